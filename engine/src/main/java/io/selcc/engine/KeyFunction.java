package io.selcc.engine;

import io.selcc.storage.TupleView;

/** Computes a 64-bit index key from a row (compose several columns with a KeyComposer). */
@FunctionalInterface
public interface KeyFunction {
    long key(TupleView row);
}
