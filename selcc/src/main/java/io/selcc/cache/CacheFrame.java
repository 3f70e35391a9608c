package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.NodeCounters;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One cache frame: a local copy of a GCL with its local S/X latch, ownership memo, dirty bounds,
 * the one pending invalidation it keeps, and fairness state (paper 4.2, 5.1, 5.3).
 *
 * <p>What a cache hit reads (the tag, the local latch, the ownership, the pending and draining flags)
 * lives in the frame's {@link FrameHeader}, 64 bytes of the node's header table, and the hit path
 * reads it by frame index without this object; this object keeps what only misses, evictions,
 * invalidations and wait-die touch, and offers the header through methods for them.
 *
 * <p>Identity ({@link #address}) changes only under the frame's X latch and its shard's lock, so a
 * thread that latched a frame re-checks the address before trusting it.
 *
 * <p>Blocking latch waits park on the frame's {@link Parking} condition: a waiter marks the latch word
 * ({@link FrameHeader#PARKED}) holding its lock, and the release that clears the mark signals.
 */
final class CacheFrame {
    private static final VarHandle PENDING;
    private static final VarHandle PARKING;

    static {
        try {
            PENDING = MethodHandles.lookup().findVarHandle(CacheFrame.class, "pending", InvalidationRequest.class);
            PARKING = MethodHandles.lookup().findVarHandle(CacheFrame.class, "parking", Parking.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    static final long NO_ADDRESS = FrameHeader.NO_TAG;
    static final int CLEAN = FrameHeader.CLEAN;
    /**
     * Longest park of a blocking latch wait between looks: a safety net only, every release that lets a
     * parked thread go on wakes it. Not short: a parked waiter that looks again every millisecond costs a
     * wake-up per millisecond, and two hundred virtual threads waiting at 1 ms woke 200,000 times a second,
     * which kept the carriers from the holders they waited for (a test's waves then stood still for minutes).
     */
    private static final long MAX_PARK_MILLIS = 1_000;

    final int index;
    /** The node's header table and where this frame's header starts in it. */
    final long[] headers;
    final int at;
    /** This frame's copy of its line: a slice of the node's pool. */
    final MemorySegment copy;
    /** The node's counters: parks are counted ({@link Counter#LATCH_PARKS}). */
    private final NodeCounters counters;

    /** Stamp of the eviction worker's X latch while this frame is being evicted. */
    long evictionStamp;

    /**
     * The one invalidation request kept while local threads hold the latch (highest priority wins).
     * The header's pending flag says a hit must look here: set after every install, cleared by a take
     * that then looks again (so an install racing the take leaves the flag set).
     */
    private volatile InvalidationRequest pending;
    /** Made by the first thread that waits on this frame ({@link #parking()}); most frames never need one. */
    private volatile Parking parking;

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

    CacheFrame(int index, long[] headers, MemorySegment copy, NodeCounters counters) {
        this.index = index;
        this.headers = headers;
        this.at = FrameHeader.at(index);
        this.copy = copy;
        this.counters = counters;
    }

    long address() {
        return FrameHeader.tag(headers, at);
    }

    /** Sets the frame's identity; only under its X latch and its shard's lock. */
    void address(long address) {
        FrameHeader.tag(headers, at, address);
    }

    Ownership ownership() {
        return decode(FrameHeader.ownership(FrameHeader.word(headers, at)));
    }

    /** The one place ownership changes (under X); asserts that the transition exists in MSI. */
    void ownership(Ownership next) {
        assert next != ownership() || next == Ownership.INVALID
            : "no transition " + ownership() + " -> " + next + " at frame " + index;
        FrameHeader.ownership(headers, at, encode(next));
    }

    static int encode(Ownership ownership) {
        return switch (ownership) {
            case INVALID -> FrameHeader.INVALID;
            case SHARED -> FrameHeader.SHARED;
            case MODIFIED -> FrameHeader.MODIFIED;
        };
    }

    static Ownership decode(int code) {
        return switch (code) {
            case FrameHeader.INVALID -> Ownership.INVALID;
            case FrameHeader.SHARED -> Ownership.SHARED;
            case FrameHeader.MODIFIED -> Ownership.MODIFIED;
            default -> throw new IllegalStateException("frame header holds no ownership code: " + code);
        };
    }

    void referenced(boolean referenced) {
        FrameHeader.referenced(headers, at, referenced);
    }

    int dirtyLow() {
        return FrameHeader.dirtyLow(headers, at);
    }

    int dirtyHigh() {
        return FrameHeader.dirtyHigh(headers, at);
    }

    void markDirty(int low, int high) {
        FrameHeader.widenDirty(headers, at, low, high);
    }

    void clearDirty() {
        FrameHeader.dirty(headers, at, CLEAN, 0);
    }

    boolean isDirty() {
        return dirtyLow() != CLEAN;
    }

    void resetLease() {
        FrameHeader.resetLease(headers, at);
    }

    InvalidationRequest pending() {
        return pending;
    }

    boolean casPending(InvalidationRequest expected, InvalidationRequest next) {
        if (!PENDING.compareAndSet(this, expected, next)) {
            return false;
        }
        if (next != null) {
            FrameHeader.flag(headers, at, FrameHeader.PENDING, true);
        } else {
            clearPendingFlag();
        }
        return true;
    }

    /** Removes and returns the pending request, or null. */
    InvalidationRequest takePending() {
        InvalidationRequest taken = (InvalidationRequest) PENDING.getAndSet(this, (InvalidationRequest) null);
        clearPendingFlag();
        return taken;
    }

    /**
     * A pending flag left set with no request behind it (an installer set it after a taker had cleared
     * it) would send every hit down the full path until the next request: cleared here when seen. True
     * if a request came while it was cleared: the caller serves it if the frame is idle, since the
     * release that would have served it may have seen the flag cleared.
     */
    boolean clearStalePendingFlag() {
        if (pending == null && (FrameHeader.word(headers, at) & FrameHeader.PENDING) != 0) {
            clearPendingFlag();
            return pending != null; // one came meanwhile: its installer may have found the latch held
        }
        return false;
    }

    /** Clears the flag, then sets it again if a request was installed meanwhile (its installer may have set it first). */
    private void clearPendingFlag() {
        FrameHeader.flag(headers, at, FrameHeader.PENDING, false);
        if (pending != null) {
            FrameHeader.flag(headers, at, FrameHeader.PENDING, true);
        }
    }

    boolean draining() {
        return (FrameHeader.word(headers, at) & FrameHeader.DRAINING) != 0;
    }

    /** True if this thread became the drainer. */
    boolean startDrain() {
        return FrameHeader.startDrain(headers, at);
    }

    void endDrain() {
        FrameHeader.flag(headers, at, FrameHeader.DRAINING, false);
        wakeParked(); // drain waiters and latch waiters share the condition; both loop
    }

    /**
     * Waits until no thread drains this frame. A drain lasts the drainer's wait for the local holders
     * and its serving round trips, so the wait parks (on the frame's condition, which unmounts a virtual
     * thread): a yield loop here kept a terminal runnable for all that time.
     */
    void awaitDrainEnd() {
        if (!draining()) {
            return;
        }
        boolean interrupted = false;
        Parking parking = parking(); // made before the flag is read again: endDrain clears it, then looks for this
        parking.lock.lock();
        try {
            while (draining()) {
                try {
                    parking.released.await();
                } catch (InterruptedException e) {
                    interrupted = true; // a newcomer does not give up its access: the drain ends soon
                }
            }
        } finally {
            parking.lock.unlock();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    int localReads() {
        return FrameHeader.leaseReads(headers, at);
    }

    int localWrites() {
        return FrameHeader.leaseWrites(headers, at);
    }

    int countLocalRead() {
        return FrameHeader.countLeaseRead(headers, at);
    }

    int countLocalWrite() {
        return FrameHeader.countLeaseWrite(headers, at);
    }

    // ---------------------------------------------------------------- local latch (see FrameHeader)

    long tryReadLock() {
        return FrameHeader.tryReadLock(headers, at);
    }

    long tryWriteLock() {
        return FrameHeader.tryWriteLock(headers, at);
    }

    /** S, waiting (parked) while a writer holds the latch or waits for it. */
    long readLock() {
        return await(false, Long.MAX_VALUE);
    }

    /** X, waiting (parked) for the holders to leave. */
    long writeLock() {
        return await(true, Long.MAX_VALUE);
    }

    /** X, waiting at most {@code time}; 0 if not taken by then or if interrupted meanwhile. */
    long tryWriteLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return await(true, System.nanoTime() + unit.toNanos(time));
    }

    /**
     * Takes the latch, parking between looks until {@code deadline} (System.nanoTime; MAX_VALUE for
     * none): 0 if the deadline passed. A blocking reader lets a waiting writer go first.
     */
    private long await(boolean exclusive, long deadline) {
        boolean interrupted = false;
        try {
            for (int spins = 0; ; spins++) {
                long stamp = exclusive ? FrameHeader.tryWriteLock(headers, at)
                    : FrameHeader.tryReadLockBehindWriters(headers, at);
                if (stamp != 0) {
                    return stamp;
                }
                if (spins < 4) {
                    Thread.onSpinWait(); // a holder about to release: cheaper than parking
                    continue;
                }
                long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0 || interrupted && deadline != Long.MAX_VALUE) {
                    giveUp(exclusive);
                    return 0; // a timed wait ends at its deadline or when interrupted, as StampedLock's did
                }
                Parking parking = parking(); // made before the mark: a release that clears the mark finds it
                parking.lock.lock();
                try {
                    if (FrameHeader.markParked(headers, at, exclusive)) {
                        counters.increment(Counter.LATCH_PARKS);
                        try {
                            parking.released.await(Math.max(1, Math.min(MAX_PARK_MILLIS, left / 1_000_000)),
                                TimeUnit.MILLISECONDS);
                        } catch (InterruptedException e) {
                            interrupted = true; // an untimed latch wait is not given up (StampedLock's was not either)
                        }
                    }
                } finally {
                    parking.lock.unlock();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A writer that stops waiting lets the readers that stood aside for it go on. */
    private void giveUp(boolean exclusive) {
        if (exclusive) {
            FrameHeader.withdrawWriter(headers, at);
            wakeParked();
        }
    }

    /** Wakes threads parked on this frame's latch (called by the release that cleared the mark). */
    void wakeParked() {
        Parking parking = this.parking;
        if (parking == null) {
            return; // nobody ever parked here (a parker makes it before it marks the word)
        }
        parking.lock.lock();
        try {
            parking.released.signalAll();
        } finally {
            parking.lock.unlock();
        }
    }

    /** This frame's parking place, made by the first thread that waits on the frame. */
    private Parking parking() {
        Parking parking = this.parking;
        if (parking == null) {
            Parking made = new Parking();
            parking = PARKING.compareAndSet(this, null, made) ? made : this.parking;
        }
        return parking;
    }

    /**
     * Where threads wait for this frame's latch or drain: a lock and its condition, not the frame's
     * monitor. A virtual thread woken from {@code Object.wait} re-enters the monitor through the JDK's
     * unblocker thread, a hand-off from outside the carrier pool that the pool (JDK 25) can leave waiting
     * for seconds while its carriers run virtual threads that wake each other; a condition's waiter is
     * unparked by the releasing thread itself, on its carrier.
     */
    private static final class Parking {
        final ReentrantLock lock = new ReentrantLock();
        final Condition released = lock.newCondition();
    }

    void unlockRead(long stamp) {
        if (FrameHeader.wakes(FrameHeader.unlockRead(headers, at))) {
            wakeParked();
        }
    }

    void unlockWrite(long stamp) {
        if (FrameHeader.wakes(FrameHeader.unlockWrite(headers, at))) {
            wakeParked();
        }
    }

    void unlock(long stamp) {
        if (stamp == FrameHeader.WRITE_STAMP) {
            unlockWrite(stamp);
        } else if (stamp == FrameHeader.READ_STAMP) {
            unlockRead(stamp);
        } else {
            throw new IllegalMonitorStateException("not a held frame latch's stamp: " + stamp);
        }
    }

    /** S to X if this thread is the only reader (an X stamp stays X); 0 otherwise, S still held. */
    long tryConvertToWriteLock(long stamp) {
        if (stamp == FrameHeader.WRITE_STAMP) {
            return stamp;
        }
        return FrameHeader.tryConvertToWrite(headers, at);
    }

    /** X to S (an S stamp stays S). */
    long tryConvertToReadLock(long stamp) {
        if (stamp == FrameHeader.READ_STAMP) {
            return stamp;
        }
        if (FrameHeader.convertToRead(headers, at)) {
            wakeParked();
        }
        return FrameHeader.READ_STAMP;
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
