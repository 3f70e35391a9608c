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
}
