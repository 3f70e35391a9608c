package io.selcc.engine;

import io.selcc.storage.TupleView;

/**
 * Writes row {@code i} of a {@link Transaction#insertAll} into {@code row}: the statement's scratch image,
 * with its nullable columns NULL, valid only during the call.
 */
@FunctionalInterface
public interface BatchWriter {
    void write(int i, TupleView row);
}
