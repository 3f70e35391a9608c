package io.selcc.engine;

/**
 * The prepare step of a transaction that is one branch of a distributed transaction: see
 * {@link Transaction#commit(BranchVote)}.
 */
@FunctionalInterface
public interface BranchVote {
    /**
     * Called at the branch's commit point, on its thread, with every write latch held: makes the branch
     * durable as prepared if the protocol needs it, votes yes, and waits for the global decision.
     *
     * @param changes the branch's changes as the commit log would get them; null when the database logs
     *                nothing, and possibly empty (a read-only branch)
     * @return true to commit the branch, false to roll it back
     */
    boolean prepared(Redo changes);
}
