package io.selcc.fabric;

/**
 * The reply to a request sent with {@link FabricEndpoint#send}, which may come later than the send
 * returns. One per request; waited on by the sender only.
 */
public interface PendingReply {
    /** Whether the reply (or the peer's failure) has come. */
    boolean isDone();

    /**
     * The reply, waiting at most {@code nanos} for it; null if it has not come by then (the request
     * stays outstanding: wait again or ask the receiver to give it up). Throws
     * {@link NodeFailedException} if the receiver failed before answering.
     */
    Object await(long nanos);

    /** The reply, however long it takes; throws {@link NodeFailedException} if the receiver failed first. */
    default Object await() {
        while (true) {
            Object reply = await(Long.MAX_VALUE);
            if (reply != null) {
                return reply;
            }
        }
    }
}
