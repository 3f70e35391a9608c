package io.selcc.cache;

import io.selcc.cache.InvalidationMessages.Answer;
import io.selcc.fabric.ReplyHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The receiver's record of one invalidation it received, and the handle its answer goes through. The
 * receiver alone decides what happens to it: the requester only ever sees the one {@link Answer}.
 *
 * <p>Status machine: NEW -> answered at once, or NEW -> PENDING when kept on the frame; PENDING ->
 * SERVING (a holder of this node claimed it) -> answered, or PENDING -> CANCELLED (the requester's
 * {@code Cancel} came first) or PENDING -> DROPPED (replaced by a higher priority, or its frame left).
 * Only the winner of {@link #claim()} may act on the line for the requester.
 */
final class InvalidationRequest {
    enum Status { NEW, PENDING, SERVING, ANSWERED }

    private static final VarHandle STATUS;

    static {
        try {
            STATUS = MethodHandles.lookup().findVarHandle(InvalidationRequest.class, "status", Status.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long requestId;
    final long address;
    final int fromNode;
    final InvalidationCase kind;
    /** Starvation priority: the requester's latch retries so far (paper 5.3.2). */
    final int priority;
    /** The requester's wait-die age; {@link ComputeNode#NO_AGE} for an acquire without one. */
    final long age;
    private final ReplyHandle reply;
    /** Told once the request is answered (the receiver forgets a kept request then). */
    private final Runnable onAnswered;
    @SuppressWarnings("unused") // accessed through STATUS
    private volatile Status status = Status.NEW;

    InvalidationRequest(InvalidationMessages.Invalidate message, int fromNode, ReplyHandle reply, Runnable onAnswered) {
        this.requestId = message.requestId();
        this.address = message.address();
        this.fromNode = fromNode;
        this.kind = message.kind();
        this.priority = message.priority();
        this.age = message.age();
        this.reply = reply;
        this.onAnswered = onAnswered;
    }

    /** The key a receiver keeps its pending requests under: the sender and its request id. */
    static long key(int fromNode, long requestId) {
        return ((long) fromNode << 56) ^ requestId;
    }

    private void answer(Answer answer) {
        reply.reply(answer);
        onAnswered.run();
    }

    Status status() {
        return (Status) STATUS.getVolatile(this);
    }

    boolean isPending() {
        return status() == Status.PENDING;
    }

    void markPending() {
        STATUS.setVolatile(this, Status.PENDING);
    }

    /** Takes a pending request for serving; false if it was cancelled or dropped meanwhile. */
    boolean claim() {
        return STATUS.compareAndSet(this, Status.PENDING, Status.SERVING);
    }

    /** The requester's cancel: answers CANCELLED if nobody claimed it yet. */
    boolean cancel() {
        if (!STATUS.compareAndSet(this, Status.PENDING, Status.ANSWERED)) {
            return false;
        }
        answer(Answer.of(requestId, Answer.Status.CANCELLED));
        return true;
    }

    /** Drops a still-pending request (replaced or its frame left); false if it was claimed or answered. */
    boolean dropIfPending() {
        if (!STATUS.compareAndSet(this, Status.PENDING, Status.ANSWERED)) {
            return false;
        }
        answer(Answer.of(requestId, Answer.Status.DROPPED));
        return true;
    }

    /** Answers a request being served (NEW or SERVING). */
    Answer.Status finish(Answer answer) {
        STATUS.setVolatile(this, Status.ANSWERED);
        answer(answer);
        return answer.status();
    }

    Answer.Status finish(Answer.Status outcome) {
        return finish(Answer.of(requestId, outcome));
    }
}
