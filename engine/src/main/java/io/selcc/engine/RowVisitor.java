package io.selcc.engine;

import io.selcc.storage.TupleView;

/** Receives rows of a scan; return false to stop. The row is a private copy, valid until the transaction ends. */
@FunctionalInterface
public interface RowVisitor {
    boolean visit(TupleView row);
}
