package io.selcc.engine.cc;

import java.util.function.Supplier;

/** An algorithm on one compute node; thread-safe. */
public interface ConcurrencyControl {
    String name();

    /** Starts a transaction on the calling thread (which runs all of it). */
    CcTransaction begin();

    /** An algorithm whose transactions come from {@code begin}. */
    static ConcurrencyControl named(String name, Supplier<CcTransaction> begin) {
        return new ConcurrencyControl() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public CcTransaction begin() {
                return begin.get();
            }
        };
    }
}
