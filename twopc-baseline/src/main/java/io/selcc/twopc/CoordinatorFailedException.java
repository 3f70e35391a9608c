package io.selcc.twopc;

/**
 * The coordinator of a distributed transaction died while committing it (an injected fault, see
 * {@link TwoPcFaults}): the caller does not learn the outcome. Participants that voted yes wait,
 * holding their locks, until {@link PartitionedDatabase#recoverCoordinator} brings it back.
 */
public final class CoordinatorFailedException extends IllegalStateException {
    private final long globalId;

    public CoordinatorFailedException(int node, long globalId, String where) {
        super("coordinator on node " + node + " died " + where + ": gtid=0x" + Long.toHexString(globalId));
        this.globalId = globalId;
    }

    public long globalId() {
        return globalId;
    }
}
