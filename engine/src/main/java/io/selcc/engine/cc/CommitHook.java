package io.selcc.engine.cc;

import io.selcc.engine.AbortReason;

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

    /** The commit failed after {@link #beforeInstall} succeeded: puts the index back as it was. */
    void undo();
}
