package io.selcc.fabric;

/**
 * Receives requests of one {@link MessageKind} on a compute node and returns the reply.
 *
 * <p>Must not block on anything a sender may hold: the in-JVM fabric may run it on the sender's
 * thread. Handlers try-lock and answer "dropped" or "pending" instead of waiting.
 */
@FunctionalInterface
public interface MessageHandler {
    Object onMessage(int fromNode, Object request);
}
