package io.selcc.engine.cc;

/** An algorithm on one compute node; thread-safe. */
public interface ConcurrencyControl {
    String name();

    /** Starts a transaction on the calling thread (which runs all of it). */
    CcTransaction begin();
}
