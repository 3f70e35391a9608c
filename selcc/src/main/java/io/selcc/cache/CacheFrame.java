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

    /** Wait-die (2PL's WAIT_DIE policy): the ages of the aged holders of the local latch (see {@link AgeSet}). */
    final AgeSet agedHolders = new AgeSet();
    /**
     * Wait-die: the ages of this node's transactions waiting for this frame's latch. A younger
     * transaction dies rather than overtake one of them (the local latch keeps no queue, so a stream
     * of young ones could take it before every retry of an old waiter until its wait ran out).
     */
    final AgeSet agedWaiters = new AgeSet();

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
        synchronized (this) { // the monitor, not the StampedLock: only drain waiters use it
            notifyAll();
        }
    }

    /**
     * Waits until no thread drains this frame. A drain lasts the drainer's wait for the local holders
     * and its serving round trips, so the wait parks (Object.wait unmounts a virtual thread on JDK 25):
     * a yield loop here kept a terminal runnable for all that time.
     */
    void awaitDrainEnd() {
        if (!draining) {
            return;
        }
        boolean interrupted = false;
        synchronized (this) {
            while (draining) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // a newcomer does not give up its access: the drain ends soon
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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

    /**
     * A set of transaction ages with its oldest readable without a lock; changed under its monitor
     * (only wait-die acquires touch it). Exact, not a bound: a minimum that reset only when the last
     * shared holder left kept a long-gone reader's age while readers overlapped, and every younger
     * writer died for ever (a livelock the wait-die test met). The array is made on first use, grown rarely.
     */
    static final class AgeSet {
        private volatile long oldest = ComputeNode.NO_AGE;
        private long[] ages;
        private int count;

        long oldest() {
            return oldest;
        }

        void add(long age) {
            if (age == ComputeNode.NO_AGE) {
                return;
            }
            synchronized (this) {
                if (ages == null) {
                    ages = new long[4];
                } else if (count == ages.length) {
                    ages = java.util.Arrays.copyOf(ages, count * 2);
                }
                ages[count++] = age;
                if (age < oldest) {
                    oldest = age;
                }
            }
        }

        /** Removes one {@link #add} of {@code age}. */
        void remove(long age) {
            if (age == ComputeNode.NO_AGE) {
                return;
            }
            synchronized (this) {
                int i = count - 1;
                while (i >= 0 && ages[i] != age) {
                    i--;
                }
                if (i < 0) {
                    throw new IllegalStateException("wait-die: age " + age + " is not in the set");
                }
                ages[i] = ages[--count];
                if (age == oldest) {
                    long min = ComputeNode.NO_AGE;
                    for (int j = 0; j < count; j++) {
                        min = Math.min(min, ages[j]);
                    }
                    oldest = min;
                }
            }
        }
    }
}
