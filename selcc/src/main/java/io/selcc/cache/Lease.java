package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.NodeCounters;

import java.util.concurrent.TimeUnit;

/**
 * The lease of paper 5.3.1 for one {@link SelccNode}: how its threads take a frame's local latch while
 * another node's request is pending on the frame. Every local acquisition then counts (readers never
 * wait for each other, so counting only waits would let a stream of local readers keep the line for
 * ever); once Rc/P + Wc exceeds the lease ({@link #countExpires}, the one place that computes it) the
 * line goes to the requester: a blocking acquire drains the local holders and serves the request, a
 * no-wait one gives up so that the last release serves it. Runs on the locking thread.
 */
final class Lease {
    /** A drainer waits for the local holders at most this many times pendingWaitNanos. */
    private static final long DRAIN_WAIT_FACTOR = 10;

    private final Settings settings;
    private final NodeCounters counters;
    private final InvalidationHandler invalidations;
    /** Told of the frame a drain holds while it serves (a flush waits for such holds). */
    private final Evictor evictor;

    Lease(Settings settings, NodeCounters counters, InvalidationHandler invalidations, Evictor evictor) {
        this.settings = settings;
        this.counters = counters;
        this.invalidations = invalidations;
        this.evictor = evictor;
    }

    /**
     * No-wait local latch; 0 if not taken. While a remote request is pending it counts toward the lease
     * like any local acquisition, and it never barges past a drain or an expired lease: it gives up
     * instead, so the current holders run out and the last release serves the request (no-wait 2PL and
     * OCC use only this path, which would otherwise keep a remote writer waiting for ever).
     */
    long tryLatchLocal(CacheFrame frame, boolean exclusive) {
        if ((frame.pending() != null || frame.draining()) && !withinLease(frame, exclusive)) {
            invalidations.servePendingIfIdle(frame); // nobody holds it right now: serve here rather than leave it waiting
            return 0;
        }
        return tryLatch(frame, exclusive);
    }

    /** Blocking local latch; while a remote request is pending the lease is enforced first. */
    long latchLocal(CacheFrame frame, boolean exclusive) {
        if (frame.pending() != null || frame.draining()) {
            enforce(frame, exclusive);
        }
        long stamp = tryLatch(frame, exclusive);
        if (stamp != 0) {
            return stamp;
        }
        return exclusive ? frame.writeLock() : frame.readLock();
    }

    private static long tryLatch(CacheFrame frame, boolean exclusive) {
        return exclusive ? frame.tryWriteLock() : frame.tryReadLock();
    }

    /** Counts one local acquisition against the pending request's lease; false once it expired or a drain runs. */
    private boolean withinLease(CacheFrame frame, boolean exclusive) {
        if (frame.draining()) {
            return false;
        }
        InvalidationRequest waiting = frame.pending();
        if (waiting == null) {
            return true;
        }
        if (!countExpires(frame, waiting, exclusive)) {
            return true;
        }
        counters.increment(Counter.LEASE_REFUSALS);
        return false;
    }

    /**
     * Drains the local holders and serves the pending request once its lease expired, then resets the
     * counters. Newcomers stand aside during the drain, because the local latch lets readers overtake a
     * queued writer.
     *
     * <p>The drainer waits for the holders for a bounded time ({@link #DRAIN_WAIT_FACTOR} x
     * {@code pendingWaitNanos}, by which the requester has given up anyway) and then lets go: two
     * threads that each hold S on one line and ask for S on the other's, both leases expired, used to
     * wait for each other for ever.
     */
    private void enforce(CacheFrame frame, boolean exclusive) {
        frame.awaitDrainEnd();
        InvalidationRequest waiting = frame.pending();
        if (waiting == null) {
            return;
        }
        if (!countExpires(frame, waiting, exclusive) || !frame.startDrain()) {
            return;
        }
        try {
            long writeStamp = tryWriteLockFor(frame, DRAIN_WAIT_FACTOR * settings.pendingWaitNanos());
            if (writeStamp == 0) {
                counters.increment(Counter.DRAIN_TIMEOUTS);
                return; // the holders stayed (they may wait for this thread): the last release serves it
            }
            evictor.holdStarted();
            try {
                InvalidationRequest request = frame.takePending();
                if (request != null && request.claim()) {
                    counters.increment(Counter.LEASE_EXPIRIES);
                    invalidations.serve(frame, request);
                }
                frame.resetLease();
            } finally {
                frame.unlockWrite(writeStamp);
                evictor.holdEnded();
            }
        } finally {
            frame.endDrain();
        }
    }

    /**
     * The lease rule: counts this local acquisition against {@code waiting}'s lease and says whether the
     * lease is used up, Rc/P + Wc > lease. Without the integer division: with it, P - 1 local reads would
     * still pass a starving requester, whose lease is 0 (priority aging, 5.3.2: it gets the line at the
     * next local access).
     */
    private boolean countExpires(CacheFrame frame, InvalidationRequest waiting, boolean exclusive) {
        int reads = exclusive ? frame.localReads() : frame.countLocalRead();
        int writes = exclusive ? frame.countLocalWrite() : frame.localWrites();
        int lease = waiting.priority >= settings.starvationPriority() ? 0 : settings.lease();
        long threads = settings.threadsPerNode();
        return reads + threads * writes > threads * lease;
    }

    private static long tryWriteLockFor(CacheFrame frame, long nanos) {
        try {
            return frame.tryWriteLock(Math.max(1, nanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
