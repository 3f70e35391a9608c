package io.selcc.engine;

import io.selcc.storage.TupleView;

/**
 * Receives one row of {@link Transaction#read}. The view must not be written (a write through a
 * transaction's view throws) and is valid only during the call: copy out what you keep. It is the row
 * in its page where the algorithm holds the page to commit (2PL), else the statement's scratch copy. A
 * read through the transaction inside the call leaves it alone (it has a view of its own); a write
 * through the transaction inside the call (update, delete, insert) may move it, as a 2PL upgrade of its
 * page releases the page first. Commit, abort and close of the transaction inside the call throw; a
 * reader that throws {@code AbortException} aborts the transaction (rolled back, then rethrown); one that
 * returns after a nested call ended the transaction makes the read throw.
 */
@FunctionalInterface
public interface RowReader {
    void read(TupleView row);
}
