package io.selcc.engine.cc;

import io.selcc.engine.AbortReason;

/**
 * The engine's part of a commit, called by the algorithm while it holds every latch its writes need,
 * so index changes become visible atomically with the tuples.
 */
public interface CommitHook {
    /** Before writes are installed: index inserts. Returns null to go on, or why the commit must abort. */
    AbortReason beforeInstall();

    /** After writes are installed, before latches are released: index deletes. */
    void afterInstall();
}
