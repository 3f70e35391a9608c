package io.selcc.cache;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.StampedLock;

/**
 * One cache frame: a local copy of a GCL with its local S/X latch, ownership memo, dirty bounds,
 * the one pending invalidation it keeps, and fairness state (paper 4.2, 5.1, 5.3).
 *
 * <p>Identity ({@link #address}) changes only under the frame's X latch and its shard's lock, so a
 * thread that latched a frame re-checks the address before trusting it.
 */
final class CacheFrame {
    static final long NO_ADDRESS = 0L;
    static final int CLEAN = -1;

    final int index;
    final MemorySegment copy;
    final StampedLock latch = new StampedLock();
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
    final AtomicReference<InvalidationRequest> pending = new AtomicReference<>();

    // Lease (paper 5.3.1): local acquisitions counted while a remote request is pending.
    final AtomicInteger localReads = new AtomicInteger();
    final AtomicInteger localWrites = new AtomicInteger();
    /** Set while one thread drains local holders to serve an expired lease; newcomers stand aside. */
    final java.util.concurrent.atomic.AtomicBoolean draining = new java.util.concurrent.atomic.AtomicBoolean();

    /** Priority with which this node won X after starving; lower-priority readers are refused (5.3.2). */
    volatile int ownerPriority;
    /** Until this time (clock nanos) local remote-S acquires wait, so a starving writer gets a window. */
    volatile long readerHoldOffUntil;
    volatile boolean readerHoldOff;

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
        localReads.set(0);
        localWrites.set(0);
    }
}
