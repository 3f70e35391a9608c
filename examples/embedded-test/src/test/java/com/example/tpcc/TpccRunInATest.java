package com.example.tpcc;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.tpcc.run.ClusterSpec;
import io.selcc.tpcc.run.RunOutcome;
import io.selcc.tpcc.run.RunSpec;
import io.selcc.tpcc.run.TpccRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

/**
 * A TPC-C run from a user's test: a spec in, an outcome to assert on out (what {@code selcc tpcc run}
 * does with its flags).
 */
class TpccRunInATest {
    @Test
    @Timeout(120)
    void aShortRunOnTwoNodesCommitsAndPassesTheConsistencyChecks() throws InterruptedException {
        RunSpec spec = RunSpec.builder()
            .cc("2pl")
            .warehouses(1)
            .cluster(ClusterSpec.inProcess(2))
            .terminalsPerWarehouse(2)
            .duration(Duration.ofSeconds(1))
            .check(true)
            .build();
        StringWriter report = new StringWriter();
        RunOutcome outcome = TpccRun.run(spec, new PrintWriter(report, true), new PrintWriter(System.err, true));
        assertTrue(outcome.passed(), report.toString());
        assertTrue(outcome.result().committed() > 0, report.toString());
        System.out.printf("%.1f txn/s, %.3f aborts per commit%n", outcome.result().txnPerSec(),
            outcome.result().aborted() / (double) outcome.result().committed());
    }
}
