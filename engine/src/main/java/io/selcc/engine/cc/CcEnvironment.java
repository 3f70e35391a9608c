package io.selcc.engine.cc;

import io.selcc.cache.ComputeNode;

/**
 * What the engine gives an algorithm on one compute node.
 *
 * @param node the compute node
 * @param timestampCounter global address of an 8-byte word for FAA timestamps, in a GCL that is never latched
 * @param lockWait what a locking algorithm does on a held lock (the provider accepted it, see
 *                 {@link ConcurrencyControlProvider#supports})
 */
public record CcEnvironment(ComputeNode node, long timestampCounter, LockWaitPolicy lockWait) {
    public CcEnvironment {
        java.util.Objects.requireNonNull(lockWait, "lockWait");
    }

    /** An environment with the default {@link LockWaitPolicy#NO_WAIT}. */
    public CcEnvironment(ComputeNode node, long timestampCounter) {
        this(node, timestampCounter, LockWaitPolicy.NO_WAIT);
    }
}
