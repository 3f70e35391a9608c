package io.selcc.cache;

import io.selcc.fabric.GlobalAddress;

/**
 * What one thread's acquires on one {@link SelccNode} leave for the next step or the next acquire: the
 * verdict of a wait-die attempt that gave up, a crashed holder met, and how far a no-wait acquire that
 * gave up had aged. One per thread and node, reused: an acquire allocates nothing for it. Only its
 * thread reads or writes it.
 */
final class AcquireState {
    /** The last wait-die attempt that gave up met an older holder (here or on another node): it dies. */
    boolean die;
    /** The local frame that attempt would wait for, if the latch it could not take was local; else null. */
    CacheFrame waitFor;
    /** The acquire met a crashed holder: it lets go of its frame, then waits (see {@code RemoteAcquire.peerFailed}). */
    boolean peerFailed;
    /** The line of the last no-wait acquire that gave up ({@link GlobalAddress#NULL}: none) ... */
    long agingAddress = GlobalAddress.NULL;
    /** ... and the priority it had reached there, which the next no-wait acquire of that line inherits. */
    int agingPriority;

    /** Before a wait-die attempt: nothing met yet. */
    void clearVerdict() {
        die = false;
        waitFor = null;
    }
}
