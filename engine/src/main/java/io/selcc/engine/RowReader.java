package io.selcc.engine;

import io.selcc.storage.TupleView;

/**
 * Receives one row of {@link Transaction#read}. The view is the statement's scratch copy: valid only
 * during the call (copy out what you keep), and it must not be written.
 */
@FunctionalInterface
public interface RowReader {
    void read(TupleView row);
}
