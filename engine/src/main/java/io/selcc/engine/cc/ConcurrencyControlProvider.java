package io.selcc.engine.cc;

/** Service interface: one per algorithm module, found by {@link #name()}. */
public interface ConcurrencyControlProvider {
    /** Lower-case name users pick the algorithm by, e.g. "2pl", "to", "occ". */
    String name();

    /** The algorithm's instance for one compute node. */
    ConcurrencyControl create(CcEnvironment environment);

    /**
     * Whether every in-place change a transaction makes before its commit point (an inserted slot, a
     * mark) stays on lines its node holds exclusive until the transaction ends. Then the lines a crashed
     * node held carry no state of another node's live transaction, and the survivors can restore them
     * from the logs alone ({@code Database.crash}). False unless an algorithm says so.
     */
    default boolean keepsUncommittedStateOnHeldLines() {
        return false;
    }
}
