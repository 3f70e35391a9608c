package io.selcc.cache;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * One invalidation message and its reply slot. In the in-JVM fabric the receiver writes the
 * forwarded GCL straight into {@link #target} (the requester's frame, as an RDMA WRITE to the
 * sender's buffer would) and then publishes the final {@link Status}.
 *
 * <p>Status machine: NEW -> (GRANTED | RELEASED | DROPPED) when answered at once, or NEW -> PENDING
 * when kept; PENDING -> SERVING (a holder claimed it) -> GRANTED | RELEASED | DROPPED, or PENDING ->
 * CANCELLED (the requester stopped waiting) or PENDING -> DROPPED (replaced by a higher priority).
 * Only the winner of {@link #claim()} may touch the requester's frame or the latch on its behalf.
 */
final class InvalidationRequest {
    enum Status {
        NEW, PENDING, SERVING,
        /** Ownership and the latest copy were passed to the requester. */
        GRANTED,
        /** The receiver released its shared copy; the requester retries the latch. */
        RELEASED,
        /** Nothing was done; the requester retries the latch. */
        DROPPED,
        CANCELLED;

        boolean isFinal() {
            return this == GRANTED || this == RELEASED || this == DROPPED || this == CANCELLED;
        }
    }

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(InvalidationRequest.class, "status", Status.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long address;
    final int fromNode;
    final InvalidationCase kind;
    /** Starvation priority: the requester's latch retries so far (paper 5.3.2). */
    final int priority;
    final MemorySegment target;
    final Thread waiter;
    /** Dirty bounds of a forwarded modified copy (case 1); written before the final status. */
    int forwardedDirtyLow;
    int forwardedDirtyHigh;
    @SuppressWarnings("unused") // accessed through STATUS
    private volatile Status status = Status.NEW;

    InvalidationRequest(long address, int fromNode, InvalidationCase kind, int priority, MemorySegment target) {
        this.address = address;
        this.fromNode = fromNode;
        this.kind = kind;
        this.priority = priority;
        this.target = target;
        this.waiter = Thread.currentThread();
    }

    Status status() {
        return (Status) STATUS.getVolatile(this);
    }

    void markPending() {
        STATUS.setVolatile(this, Status.PENDING);
    }

    /** Takes a pending request for serving; false if it was cancelled or dropped meanwhile. */
    boolean claim() {
        return STATUS.compareAndSet(this, Status.PENDING, Status.SERVING);
    }

    /** Requester side: stop waiting. False if a holder already claimed it (then wait for its answer). */
    boolean cancel() {
        return STATUS.compareAndSet(this, Status.PENDING, Status.CANCELLED);
    }

    /** Drops a still-pending request (replaced or its frame evicted). */
    void dropIfPending() {
        if (STATUS.compareAndSet(this, Status.PENDING, Status.DROPPED)) {
            LockSupport.unpark(waiter);
        }
    }

    /** Publishes the answer of a request being served (NEW or SERVING). */
    Status finish(Status outcome) {
        STATUS.setVolatile(this, outcome);
        LockSupport.unpark(waiter);
        return outcome;
    }
}
