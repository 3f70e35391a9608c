package io.selcc.cache;

import io.selcc.cache.InvalidationMessages.Answer;
import io.selcc.fabric.ReplyHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The receiver's record of one invalidation it received, and the handle its answer goes through. The
 * receiver alone decides what happens to it: the requester only ever sees the one {@link Answer}.
 *
 * <p>Status machine: NEW -> SERVING (served at once) -> answered, NEW -> answered at once without acting
 * (dropped, die), or NEW -> PENDING when kept on the frame; PENDING -> SERVING (a holder of this node
 * claimed it) -> answered, or PENDING -> CANCELLED (the requester's {@code Cancel} came first) or PENDING
 * -> DROPPED (replaced by a higher priority, or its frame left). NEW or PENDING -> abandoned (ANSWERED
 * with no answer sent) when the connection it came on is lost. Only the winner of {@link #claim()} or
 * {@link #claimAtOnce()} may act on the line for the requester.
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

    /** Keeps a new request; false if it was abandoned meanwhile (then it must not be kept). */
    boolean markPending() {
        return STATUS.compareAndSet(this, Status.NEW, Status.PENDING);
    }

    /** Takes a pending request for serving; false if it was cancelled, dropped or abandoned meanwhile. */
    boolean claim() {
        return STATUS.compareAndSet(this, Status.PENDING, Status.SERVING);
    }

    /** Takes a new request for serving at once; false if it was abandoned meanwhile. */
    boolean claimAtOnce() {
        return STATUS.compareAndSet(this, Status.NEW, Status.SERVING);
    }

    /**
     * The connection the request came on is lost: nobody serves it from now on. Returns what it found:
     * {@link Status#PENDING} (or NEW): given up unserved; {@link Status#SERVING}: a thread of this node is
     * serving it right now (the caller waits for that with {@link #awaitAnswered}); {@link Status#ANSWERED}:
     * answered before, nothing to do.
     */
    Status abandon() {
        while (true) {
            Status status = status();
            if (status == Status.SERVING || status == Status.ANSWERED) {
                return status;
            }
            if (STATUS.compareAndSet(this, status, Status.ANSWERED)) {
                onAnswered.run(); // nothing is sent: no answer reaches the requester any more
                return Status.PENDING;
            }
        }
    }

    /** Waits (parked) until a request being served is answered; {@link #finish} wakes it. */
    synchronized void awaitAnswered() {
        boolean interrupted = false;
        while (status() == Status.SERVING) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true; // the serve is short; the flag is kept for the caller
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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
        synchronized (this) {
            notifyAll(); // an abandon waiting for the serve to end (rare; uncontended otherwise)
        }
        return answer.status();
    }

    Answer.Status finish(Answer.Status outcome) {
        return finish(Answer.of(requestId, outcome));
    }
}
