package io.selcc.twopc;

/**
 * The coordinator of a distributed transaction died while committing it (an injected fault, see
 * {@link TwoPcFaults}): the caller does not learn the outcome. Participants that voted yes wait,
 * holding their locks, until {@link PartitionedDatabase#recoverCoordinator} brings it back. Also what
 * {@link PartitionedDatabase#begin} throws while the coordinator is down (its log failed: a disk error,
 * a full disk), with that failure as the cause.
 */
public final class CoordinatorFailedException extends IllegalStateException {
    private final long globalId;

    public CoordinatorFailedException(int node, long globalId, String where) {
        super("coordinator on node " + node + " died " + where + ": gtid=0x" + Long.toHexString(globalId));
        this.globalId = globalId;
    }

    /**
     * A transaction could not begin: the coordinator on {@code node} is down ({@code cause}: the failure
     * of its log that took it down, or null).
     */
    public CoordinatorFailedException(int node, Throwable cause) {
        super("the coordinator on compute node " + node + " is down" + (cause == null ? " (recoverCoordinator brings it back)"
            : ": its two-phase-commit log failed (" + cause.getMessage() + ")"), cause);
        this.globalId = 0;
    }

    /** The transaction it was committing; 0 when it refused to begin one. */
    public long globalId() {
        return globalId;
    }
}
