package io.selcc.twopc;

/**
 * What partitioned mode did, counted exactly (all nodes together): transactions by kind and outcome,
 * the protocol's messages and round trips (a wave of messages sent together is one round trip), and
 * the forced records of the two-phase-commit logs.
 *
 * @param singlePartitionCommits transactions that touched one partition: committed without 2PC
 * @param distributedCommits     distributed transactions that committed
 * @param distributedAborts      attempts of distributed transactions that aborted (any reason, a retried
 *                               conflict and a New-Order's rollback included)
 * @param messages               protocol messages sent (operations, prepares, decisions, inquiries)
 * @param roundTrips             waits for replies: one per operation, per prepare wave, per decision wave, per inquiry
 * @param prepareRecords         prepare records forced by participants
 * @param decisionRecords        commit decisions forced by coordinators
 * @param logForces              file forces those records took (a new cycle file adds its metadata and directory)
 * @param inquiries              questions participants in doubt asked their coordinator
 * @param unilateralAborts       branches that rolled back on their own: not prepared, the coordinator silent too long
 */
public record TwoPcStats(long singlePartitionCommits, long distributedCommits, long distributedAborts, long messages,
                         long roundTrips, long prepareRecords, long decisionRecords, long logForces, long inquiries,
                         long unilateralAborts) {
    /** What happened between {@code earlier} and this snapshot. */
    public TwoPcStats minus(TwoPcStats earlier) {
        return new TwoPcStats(singlePartitionCommits - earlier.singlePartitionCommits,
            distributedCommits - earlier.distributedCommits, distributedAborts - earlier.distributedAborts,
            messages - earlier.messages, roundTrips - earlier.roundTrips, prepareRecords - earlier.prepareRecords,
            decisionRecords - earlier.decisionRecords, logForces - earlier.logForces, inquiries - earlier.inquiries,
            unilateralAborts - earlier.unilateralAborts);
    }
}
