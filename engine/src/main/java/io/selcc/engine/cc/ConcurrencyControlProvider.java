package io.selcc.engine.cc;

/** Service interface: one per algorithm module, found by {@link #name()}. */
public interface ConcurrencyControlProvider {
    /** Lower-case name users pick the algorithm by, e.g. "2pl", "to", "occ". */
    String name();

    /** The algorithm's instance for one compute node. */
    ConcurrencyControl create(CcEnvironment environment);

    /**
     * Whether a crashed compute node's lines can be restored from the logs alone while this algorithm's
     * transactions run on the other nodes ({@code Database.crash}): either every uncommitted in-place
     * change of a transaction (an inserted slot, a mark) stays on lines its node holds exclusive until
     * the transaction ends, so a crashed node's lines carry no live transaction's state of another node,
     * or the transaction notices at commit that such a change was lost with the crashed cache and aborts.
     * False unless an algorithm says so.
     */
    default boolean survivesCrashedNodes() {
        return false;
    }

    /** Whether this algorithm implements {@code policy}; all do {@link LockWaitPolicy#NO_WAIT} (the default). */
    default boolean supports(LockWaitPolicy policy) {
        return policy == LockWaitPolicy.NO_WAIT;
    }
}
