package io.selcc.fabric;

/**
 * The reply a message call returns when the request or its reply was lost (the sender's wait for it
 * timed out): an expected outcome on a lossy network, which the caller's protocol must handle. Only
 * a {@link MessageInterceptor} produces it on the in-JVM fabric.
 */
public enum MessageLost {
    REPLY
}
