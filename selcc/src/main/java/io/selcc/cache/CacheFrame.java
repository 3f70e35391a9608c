package io.selcc.cache;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.StampedLock;

/**
 * One cache frame: a local copy of a GCL with its local S/X latch, ownership memo, dirty bounds,
 * the one pending invalidation it keeps, and fairness state (paper 4.2, 5.1, 5.3).
 *
 * <p>Identity ({@link #address}) changes only under the frame's X latch and its shard's lock, so a
 * thread that latched a frame re-checks the address before trusting it.
 *
 * <p>The frame <em>is</em> its local latch (it extends {@link StampedLock}) and keeps its atomics as
 * fields behind VarHandles: a cache hit then touches one object instead of five, which mattered
 * because TPC-C's frames are too many to stay in the CPU caches (each extra object was a miss).
 */
final class CacheFrame extends StampedLock {
    private static final VarHandle PENDING;
    private static final VarHandle DRAINING;
    private static final VarHandle LOCAL_READS;
    private static final VarHandle LOCAL_WRITES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findVarHandle(CacheFrame.class, "pending", InvalidationRequest.class);
            DRAINING = lookup.findVarHandle(CacheFrame.class, "draining", boolean.class);
            LOCAL_READS = lookup.findVarHandle(CacheFrame.class, "localReads", int.class);
            LOCAL_WRITES = lookup.findVarHandle(CacheFrame.class, "localWrites", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static final long NO_ADDRESS = 0L;
    static final int CLEAN = -1;

    final int index;
    final MemorySegment copy;
    volatile long address = NO_ADDRESS;
    private volatile Ownership ownership = Ownership.INVALID;

    /** Dirty bounds, byte offsets within the GCL; guarded by the X latch. {@link #CLEAN} when clean. */
    int dirtyLow = CLEAN;
    int dirtyHigh;

    /** Stamp of the eviction worker's X latch while this frame is being evicted. */
    long evictionStamp;

    // Replacement list links, guarded by the shard lock.
    CacheFrame lruPrev;
    CacheFrame lruNext;
    /** CLOCK reference bit: set on a hit (racy, a hint), cleared when the evictor passes it over. */
    boolean referenced;

    /** The one invalidation request kept while local threads hold the latch (highest priority wins). */
    private volatile InvalidationRequest pending;

    // Lease (paper 5.3.1): local acquisitions counted while a remote request is pending.
    private volatile int localReads;
    private volatile int localWrites;
    /** Set while one thread drains local holders to serve an expired lease; newcomers stand aside. */
    private volatile boolean draining;

    /** Priority with which this node won X after starving; lower-priority readers are refused (5.3.2). */
    volatile int ownerPriority;
    /** Until this time (clock nanos) local remote-S acquires wait, so a starving writer gets a window. */
    volatile long readerHoldOffUntil;
    volatile boolean readerHoldOff;

    /**
     * Wait-die (2PL's WAIT_DIE policy): the oldest age among the aged holders of the local latch,
     * {@link ComputeNode#NO_AGE} while none holds it. Read without a lock by requesters of this node
     * and by the invalidation handler answering another node's request.
     */
    private volatile long oldestHolderAge = ComputeNode.NO_AGE;
    /**
     * The aged holders' ages, the first {@link #agedCount} used; guarded by this frame's monitor (only
     * wait-die acquires take it). Exact, not a bound: with a minimum that reset only when the last
     * shared holder left, overlapping readers kept a long-gone reader's age, and every younger writer
     * died for ever (a livelock the wait-die test met). Made on the frame's first aged latch, grown rarely.
     */
    private long[] agedHolders;
    private int agedCount;

    CacheFrame(int index, MemorySegment copy) {
        this.index = index;
        this.copy = copy;
    }

    Ownership ownership() {
        return ownership;
    }

    /** The one place ownership changes; asserts that the transition exists in MSI. */
    void ownership(Ownership next) {
        assert next != ownership || next == Ownership.INVALID
            : "no transition " + ownership + " -> " + next + " at frame " + index;
        ownership = next;
    }

    /** Records a hit for CLOCK (racy, a hint: a lost set only costs the frame its second chance). */
    void touch() {
        if (!referenced) {
            referenced = true; // written only when it changes: a hit does not dirty the line
        }
    }

    void markDirty(int low, int high) {
        if (dirtyLow == CLEAN) {
            dirtyLow = low;
            dirtyHigh = high;
        } else {
            dirtyLow = Math.min(dirtyLow, low);
            dirtyHigh = Math.max(dirtyHigh, high);
        }
    }

    void clearDirty() {
        dirtyLow = CLEAN;
        dirtyHigh = 0;
    }

    boolean isDirty() {
        return dirtyLow != CLEAN;
    }

    void resetLease() {
        localReads = 0;
        localWrites = 0;
    }

    /** Records an aged holder of the local latch (or an aged requester holding it for a remote acquire). */
    void holdAged(long age) {
        if (age == ComputeNode.NO_AGE) {
            return;
        }
        synchronized (this) {
            if (agedHolders == null) {
                agedHolders = new long[4];
            } else if (agedCount == agedHolders.length) {
                agedHolders = java.util.Arrays.copyOf(agedHolders, agedCount * 2);
            }
            agedHolders[agedCount++] = age;
            if (age < oldestHolderAge) {
                oldestHolderAge = age;
            }
        }
    }

    /** Undoes one {@link #holdAged} of {@code age}. */
    void releaseAged(long age) {
        if (age == ComputeNode.NO_AGE) {
            return;
        }
        synchronized (this) {
            int i = agedCount - 1;
            while (i >= 0 && agedHolders[i] != age) {
                i--;
            }
            if (i < 0) {
                throw new IllegalStateException("wait-die: age " + age + " does not hold frame " + index);
            }
            agedHolders[i] = agedHolders[--agedCount];
            if (age == oldestHolderAge) {
                long oldest = ComputeNode.NO_AGE;
                for (int j = 0; j < agedCount; j++) {
                    oldest = Math.min(oldest, agedHolders[j]);
                }
                oldestHolderAge = oldest;
            }
        }
    }

    /** See {@link #oldestHolderAge}. */
    long oldestHolderAge() {
        return oldestHolderAge;
    }

    InvalidationRequest pending() {
        return pending;
    }

    boolean casPending(InvalidationRequest expected, InvalidationRequest next) {
        return PENDING.compareAndSet(this, expected, next);
    }

    /** Removes and returns the pending request, or null. */
    InvalidationRequest takePending() {
        return (InvalidationRequest) PENDING.getAndSet(this, (InvalidationRequest) null);
    }

    boolean draining() {
        return draining;
    }

    /** True if this thread became the drainer. */
    boolean startDrain() {
        return DRAINING.compareAndSet(this, false, true);
    }

    void endDrain() {
        draining = false;
    }

    int localReads() {
        return localReads;
    }

    int localWrites() {
        return localWrites;
    }

    int countLocalRead() {
        return (int) LOCAL_READS.getAndAdd(this, 1) + 1;
    }

    int countLocalWrite() {
        return (int) LOCAL_WRITES.getAndAdd(this, 1) + 1;
    }
}
