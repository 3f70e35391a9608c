package io.selcc.tpcc.run;

import io.selcc.engine.Database;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.twopc.PartitionedDatabase;
import io.selcc.twopc.TwoPcStats;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * What a run's mode did in the measured interval (warm-up excluded, like the driver's
 * figures), counted on every node and thread: the invalidations that crossed compute nodes (none in
 * partitioned mode), round trips and messages per committed transaction (in partitioned mode these
 * include the work a remote branch did on its owner, which the terminal's own counters miss), and in
 * partitioned mode the two-phase commit's exact counts.
 *
 * @param committed the driver's committed transactions of the measured interval
 */
public record ModeReport(String mode, Integer distribution, long committed, long invalidations, long roundTrips,
                  long messages, long walForces, TwoPcStats twoPc) {
    /** The counters at the start of the measured interval. */
    record Start(CounterSnapshot nodes, long walForces, TwoPcStats twoPc) {
        static Start of(Database db, io.selcc.wal.Wal wal, PartitionedDatabase partitioned) {
            return new Start(nodeCounters(db), wal == null ? 0 : wal.counters().forces(),
                partitioned == null ? null : partitioned.stats());
        }
    }

    static ModeReport of(Database db, io.selcc.wal.Wal wal, PartitionedDatabase partitioned, String mode,
                         Integer distribution, Start start, long committed) {
        CounterSnapshot nodes = nodeCounters(db).minus(start.nodes());
        long walForces = (wal == null ? 0 : wal.counters().forces()) - start.walForces();
        return new ModeReport(mode, distribution, committed, nodes.invalidationsSent(), nodes.get(Counter.ROUND_TRIPS),
            nodes.get(Counter.MESSAGES_SENT), walForces,
            partitioned == null ? null : partitioned.stats().minus(start.twoPc()));
    }

    /**
     * Forced writes per committed transaction: the commit logs' forces and the 2PC logs' (a force covers a
     * group of commits in the commit log, one record in a 2PC log).
     */
    public double forcedWritesPerTxn() {
        return per(walForces + (twoPc == null ? 0 : twoPc.logForces()), committed);
    }

    /** The counters of the compute nodes this process hosts (every node's but with compute nodes as processes). */
    private static CounterSnapshot nodeCounters(Database db) {
        CounterSnapshot sum = CounterSnapshot.zero();
        for (int n = 0; n < db.computeNodeCount(); n++) {
            if (db.cluster().hosts(n)) {
                sum = sum.plus(db.node(n).computeNode().counters().snapshot());
            }
        }
        return sum;
    }

    /** This report with another process's counts added (shared mode: no 2PC figures). */
    ModeReport plus(ModeReport other) {
        return new ModeReport(mode, distribution, committed + other.committed, invalidations + other.invalidations,
            roundTrips + other.roundTrips, messages + other.messages, walForces + other.walForces, twoPc);
    }

    /** This report over {@code committed} transactions (the merged driver result's). */
    ModeReport committing(long committed) {
        return new ModeReport(mode, distribution, committed, invalidations, roundTrips, messages, walForces, twoPc);
    }

    /** Distributed attempts: commits and aborts (a retried conflict counts each attempt); partitioned mode only. */
    public long distributedAttempts() {
        return twoPc.distributedCommits() + twoPc.distributedAborts();
    }

    /** {@code count} per {@code of}; 0 when {@code of} is 0 (nothing committed, no distributed attempt). */
    public static double per(long count, long of) {
        return of == 0 ? 0 : count / (double) of;
    }

    public double roundTripsPerTxn() {
        return per(roundTrips, committed);
    }

    public double messagesPerTxn() {
        return per(messages, committed);
    }

    /** 2PC log forces per distributed commit (the forces of aborted attempts' prepares included). */
    public double forcesPerDistributedCommit() {
        return twoPc == null ? 0 : per(twoPc.logForces(), twoPc.distributedCommits());
    }

    void print(PrintWriter out) {
        out.printf(Locale.ROOT, "mode %s%s (measured interval, all nodes): %,d invalidations between compute nodes;"
                + " %.2f round trips, %.2f messages and %.3f forced writes per committed transaction%n", mode,
            distribution == null ? "" : ", distribution " + distribution + "%", invalidations, roundTripsPerTxn(),
            messagesPerTxn(), forcedWritesPerTxn());
        if (twoPc != null) {
            long all = twoPc.singlePartitionCommits() + twoPc.distributedCommits();
            out.printf(Locale.ROOT, "2pc (measured interval): %,d distributed commits (%.1f%% of commits), %,d aborted"
                    + " distributed attempts; per distributed attempt %.2f 2PC messages, %.2f 2PC round trips; per"
                    + " distributed commit %.2f 2PC records (prepares and decision), %.2f forces; %,d inquiries, %,d"
                    + " unilateral aborts%n",
                twoPc.distributedCommits(), 100.0 * per(twoPc.distributedCommits(), all), twoPc.distributedAborts(),
                per(twoPc.messages(), distributedAttempts()), per(twoPc.roundTrips(), distributedAttempts()),
                per(twoPc.prepareRecords() + twoPc.decisionRecords(), twoPc.distributedCommits()),
                forcesPerDistributedCommit(), twoPc.inquiries(), twoPc.unilateralAborts());
        }
        out.flush();
    }
}
