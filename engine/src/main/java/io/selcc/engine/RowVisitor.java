package io.selcc.engine;

import io.selcc.storage.TupleView;

/**
 * Receives rows of a scan; return false to stop. From {@link Transaction#scan} the row is a private copy,
 * valid until the transaction ends; from {@link Transaction#readRange} it is a read-only view valid only
 * during the call, as a {@link RowReader}'s. As in a reader, commit, abort and close of the transaction
 * inside the call throw, a visitor that throws {@code AbortException} aborts the transaction, and one that
 * returns after a nested call ended the transaction makes the scan throw (it goes no further).
 */
@FunctionalInterface
public interface RowVisitor {
    boolean visit(TupleView row);
}
