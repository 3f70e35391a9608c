package io.selcc.engine.cc;

import java.util.function.Supplier;

/** An algorithm on one compute node; thread-safe. */
public interface ConcurrencyControl {
    String name();

    /** Starts a transaction on the calling thread (which runs all of it). */
    CcTransaction begin();

    /**
     * The age of a new logical transaction for wait-die ({@link LockWaitPolicy#WAIT_DIE}): smaller is
     * older, unique across the compute nodes. {@link io.selcc.cache.ComputeNode#NO_AGE} for algorithms
     * that use none. Drawn once per transaction, before its first attempt.
     */
    default long newAge() {
        return io.selcc.cache.ComputeNode.NO_AGE;
    }

    /**
     * Starts an attempt of a transaction whose age {@link #newAge()} gave (a retry passes its first
     * attempt's age: what keeps wait-die free of starvation). By default the age is not used.
     */
    default CcTransaction begin(long age) {
        return begin();
    }

    /**
     * Starts attempt {@code attempt} (1 for the first) of a transaction whose age {@link #newAge()} gave:
     * {@link io.selcc.engine.DatabaseNode#run} counts the attempts of one logical transaction, so an
     * algorithm can treat one that keeps failing differently (TO's ahead token). By default the number
     * is not used.
     */
    default CcTransaction begin(long age, int attempt) {
        return begin(age);
    }

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
