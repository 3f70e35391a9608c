package io.selcc.fabric;

/**
 * Where the receiver of a request sends its one reply. A handler may answer before it returns or keep
 * the handle and answer later from any thread (a request kept pending until the line is free). Only
 * the first reply counts: later ones are ignored and return false.
 */
@FunctionalInterface
public interface ReplyHandle {
    /** Sends {@code reply} (a message of the request's kind) to the requester; false if already answered. */
    boolean reply(Object reply);

    /**
     * Runs {@code abandon} once if the connection this request came on is lost before its reply went out
     * (at once, here, if it already is): no reply can reach the requester any more, and a receiver that
     * acts on the request anyway acts behind the requester's back. The fabric runs it on one of its
     * threads and waits for it: a requester's {@link FabricEndpoint#reconnect} returns only after every
     * such action of the lost connection has returned, so {@code abandon} may wait for work on the request
     * already under way, briefly. A fabric whose requests cannot outlive their connection never runs it
     * (the default). Register at most one action per request, before acting on it.
     */
    default void whenLost(Runnable abandon) {
    }
}
