package io.selcc.twopc;

import java.util.concurrent.atomic.LongAdder;

/** The counts behind {@link TwoPcStats}, shared by every node's coordinator and participant. */
final class Counters {
    final LongAdder singlePartitionCommits = new LongAdder();
    final LongAdder distributedCommits = new LongAdder();
    final LongAdder distributedAborts = new LongAdder();
    final LongAdder messages = new LongAdder();
    final LongAdder roundTrips = new LongAdder();
    final LongAdder prepareRecords = new LongAdder();
    final LongAdder decisionRecords = new LongAdder();
    final LongAdder inquiries = new LongAdder();
    final LongAdder unilateralAborts = new LongAdder();

    TwoPcStats snapshot(long logForces) {
        return new TwoPcStats(singlePartitionCommits.sum(), distributedCommits.sum(), distributedAborts.sum(),
            messages.sum(), roundTrips.sum(), prepareRecords.sum(), decisionRecords.sum(), logForces, inquiries.sum(),
            unilateralAborts.sum());
    }
}
