package io.selcc.engine.cc;

import java.util.function.Supplier;

/** An algorithm on one compute node; thread-safe. */
public interface ConcurrencyControl {
    String name();

    /** Starts a transaction on the calling thread (which runs all of it). */
    CcTransaction begin();

    /**
     * How a crash repair on this node stamps the crashed node's lines it restores: versions as change
     * counts unless the algorithm's stamps are timestamps (TO).
     */
    default io.selcc.storage.Restamp restamp() {
        return io.selcc.storage.Restamp.CHANGE_COUNT;
    }

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
