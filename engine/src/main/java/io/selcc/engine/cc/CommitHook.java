package io.selcc.engine.cc;


/**
 * The engine's part of a commit: index changes, made by the algorithm's call while it holds every
 * latch its writes need, so they become visible atomically with the tuples.
 */
public interface CommitHook {
    /**
     * Before writes are installed: every index insert and delete of the transaction. Returns null to
     * go on, or why the commit must abort (then the index is as before).
     */
    AbortReason beforeInstall();

    /**
     * The commit point: the algorithm has decided to commit (validation passed, index changes made)
     * and still holds every write latch. The engine appends the transaction to its commit log here, so
     * conflicting transactions reach the logs in their commit order. Returns null to go on, or why the
     * commit must abort ({@link AbortReason#LOG_FAILED}); then the algorithm undoes as for a failed
     * validation (calling {@link #undo}) and nothing of the transaction stays.
     */
    default AbortReason commitPoint() {
        return null;
    }

    /** The commit failed after {@link #beforeInstall} succeeded: puts the index back as it was. */
    void undo();
}
