package io.selcc.fabric;

/**
 * Receives requests of one {@link MessageKind} on a compute node and answers each through its
 * {@link ReplyHandle}, at once or later.
 *
 * <p>Must not block on anything a sender may hold: the in-JVM fabric runs it on the sender's thread, a
 * network fabric on one of the receiver's few handler threads. A handler that cannot answer at once
 * keeps the handle (and answers when it can) instead of waiting.
 */
@FunctionalInterface
public interface MessageHandler {
    void onMessage(int fromNode, Object request, ReplyHandle reply);
}
