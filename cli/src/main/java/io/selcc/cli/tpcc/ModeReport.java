package io.selcc.cli.tpcc;

import io.selcc.cli.JsonWriter;
import io.selcc.engine.Database;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.twopc.PartitionedDatabase;
import io.selcc.twopc.TwoPcStats;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * What a {@code tpcc run}'s mode did, beside the driver's figures: the invalidations that crossed
 * compute nodes (none in partitioned mode) and, in partitioned mode, the two-phase commit's exact counts
 * per distributed transaction. Counted from the start of the warm-up.
 */
record ModeReport(String mode, Integer distribution, long invalidations, TwoPcStats twoPc) {
    static ModeReport of(Database db, PartitionedDatabase partitioned, String mode, Integer distribution) {
        CounterSnapshot sum = CounterSnapshot.zero();
        for (int n = 0; n < db.computeNodeCount(); n++) {
            sum = sum.plus(db.node(n).computeNode().counters().snapshot());
        }
        return new ModeReport(mode, distribution, sum.invalidationsSent(), partitioned == null ? null : partitioned.stats());
    }

    private long distributed() {
        return twoPc.distributedCommits() + twoPc.distributedAborts();
    }

    private static double per(long count, long of) {
        return of == 0 ? 0 : count / (double) of;
    }

    void print(PrintWriter out) {
        out.printf(Locale.ROOT, "mode %s%s: %,d invalidations between compute nodes (whole run)%n", mode,
            distribution == null ? "" : ", distribution " + distribution + "%", invalidations);
        if (twoPc != null) {
            long all = twoPc.singlePartitionCommits() + twoPc.distributedCommits();
            out.printf(Locale.ROOT, "2pc (whole run): %,d distributed commits (%.1f%% of commits), %,d distributed aborts;"
                    + " per distributed transaction %.2f messages, %.2f round trips; per distributed commit %.2f 2PC"
                    + " records (prepares and decision), %.2f forces of them; %,d inquiries, %,d unilateral aborts%n",
                twoPc.distributedCommits(), 100.0 * per(twoPc.distributedCommits(), all), twoPc.distributedAborts(),
                per(twoPc.messages(), distributed()), per(twoPc.roundTrips(), distributed()),
                per(twoPc.prepareRecords() + twoPc.decisionRecords(), twoPc.distributedCommits()),
                per(twoPc.logForces(), twoPc.distributedCommits()), twoPc.inquiries(), twoPc.unilateralAborts());
        }
        out.flush();
    }

    void json(JsonWriter json) {
        json.field("mode", mode);
        json.name("distribution");
        if (distribution == null) {
            json.value("spec");
        } else {
            json.value(distribution);
        }
        json.field("invalidationsBetweenNodes", invalidations);
        if (twoPc != null) {
            json.name("twoPhaseCommit").beginObject()
                .field("singlePartitionCommits", twoPc.singlePartitionCommits())
                .field("distributedCommits", twoPc.distributedCommits())
                .field("distributedAborts", twoPc.distributedAborts())
                .field("messages", twoPc.messages())
                .field("roundTrips", twoPc.roundTrips())
                .field("prepareRecords", twoPc.prepareRecords())
                .field("decisionRecords", twoPc.decisionRecords())
                .field("logForces", twoPc.logForces())
                .field("inquiries", twoPc.inquiries())
                .field("unilateralAborts", twoPc.unilateralAborts())
                .field("messagesPerDistributedTxn", per(twoPc.messages(), distributed()))
                .field("roundTripsPerDistributedTxn", per(twoPc.roundTrips(), distributed()))
                .field("recordsPerDistributedCommit",
                    per(twoPc.prepareRecords() + twoPc.decisionRecords(), twoPc.distributedCommits()))
                .field("forcesPerDistributedCommit", per(twoPc.logForces(), twoPc.distributedCommits()))
                .endObject();
        }
    }
}
