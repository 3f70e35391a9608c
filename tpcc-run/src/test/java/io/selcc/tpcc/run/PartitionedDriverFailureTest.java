package io.selcc.tpcc.run;

import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.TerminalPlacement;
import io.selcc.tpcc.driver.Mix;
import io.selcc.tpcc.driver.TpccDriver;
import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.load.TpccLoader;
import io.selcc.twopc.CoordinatorFailedException;
import io.selcc.twopc.PartitionedDatabase;
import io.selcc.twopc.TwoPcFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A partitioned run whose coordinator's two-phase-commit log fails (the force of a commit decision,
 * planted): the run stops with that failure instead of hanging. The coordinator is down, so no
 * transaction of its node begins any more (each says why), and the terminal whose decision is in doubt
 * keeps its latches waiting for a recovery the run does not do: the driver leaves it behind once the
 * run has failed, and reports it.
 *
 * <p>Planted bug this caught: with the driver joining every terminal without a bound (as before), the
 * run never returned (the test's timeout failed it).
 */
class PartitionedDriverFailureTest {
    @Test
    @Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFailedDecisionForceStopsTheRunWithItsCause() throws Exception {
        AtomicInteger decisions = new AtomicInteger();
        TwoPcFaults failsFirstDecision = new TwoPcFaults() {
            @Override
            public boolean decisionForceFails(int coordinator, long gtid) {
                return decisions.getAndIncrement() == 0;
            }
        };
        TpccRandom.Constants constants = TpccRandom.Constants.random(11);
        Database db = TpccSchema.define(Database.builder().cc("2pl").computeNodes(2).cacheFrames(16_384)
            .memoryPerNode(768L << 20), 2).build();
        new TpccLoader(db, 2, 11, constants, 1, null, 2).load();
        PartitionedDatabase partitioned = PartitionedDatabase.builder(db).faults(failsFirstDecision).build();
        DriverConfig config = new DriverConfig(2, 2, TerminalPlacement.Placement.HOME,
            DriverConfig.TerminalThreads.VIRTUAL, 600_000_000_000L, 0, 11, new Mix(50, 50, 0, 0, 0), false,
            constants, RetryPolicy.defaults(), 100, DriverConfig.UNLIMITED);
        TpccDriver driver = new TpccDriver(db, config, null);
        driver.partitioned(new TwoPhaseCommitExecution(partitioned));
        driver.giveUpOnTerminalsAfter(Duration.ofSeconds(2));
        IllegalStateException e = assertThrows(IllegalStateException.class, driver::run);
        List<Throwable> all = new ArrayList<>(List.of(e.getCause()));
        all.addAll(List.of(e.getSuppressed()));
        assertTrue(decisions.get() >= 1, "a decision was forced (and failed)");
        assertTrue(all.stream().anyMatch(t -> t instanceof CoordinatorFailedException c && c.getCause() != null
            && c.getMessage().contains("two-phase-commit log failed")), () -> "failures: " + all);
        assertTrue(all.stream().anyMatch(t -> t.getMessage() != null && t.getMessage().contains("did not stop")),
            () -> "the terminal in doubt was reported: " + all);

        // Cleaning up: the recovered coordinator's log says commit; the terminal left behind finishes its
        // transaction, the participant's branch learns the decision, and everything closes.
        for (int node = 0; node < 2; node++) {
            partitioned.recoverCoordinator(node); // the failed decision was whichever node decided first
        }
        partitioned.close();
        while (true) {
            try {
                db.close();
                break;
            } catch (IllegalStateException open) {
                assertTrue(open.getMessage().contains("transactions are open"), open.getMessage());
                Thread.yield(); // the terminal left behind is ending its transaction
            }
        }
    }
}
