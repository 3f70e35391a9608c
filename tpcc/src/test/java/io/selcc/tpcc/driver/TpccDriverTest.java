package io.selcc.tpcc.driver;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.load.TpccLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the driver ends when its terminals fail. */
class TpccDriverTest {
    /**
     * An empty database: the terminals' transactions find no rows and throw. The run must end at once
     * (not after its 10 minutes: the timeout fails the test first) and throw with a terminal's exception
     * as cause and any other terminal's suppressed. Shown to fail on a planted bug: a terminal loop that
     * catches and drops its exception (the run then lasts its full duration and the timeout fires).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void terminalFailuresEndTheRunAndAreAllReported() {
        int terminalsPerNode = 2;
        try (Database db = TpccSchema.define(Database.builder()).cc("2pl").computeNodes(2)
            .threadsPerNode(terminalsPerNode).cacheFrames(4096).memoryPerNode(64L << 20).build()) {
            // One warehouse over two nodes: its terminals are dealt to both.
            DriverConfig config = new DriverConfig(1, 2 * terminalsPerNode, 600_000_000_000L, 0, 7, Mix.STANDARD, false,
                TpccRandom.Constants.random(7), RetryPolicy.defaults());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TpccDriver(db, config, null).run());
            int reported = 1 + e.getSuppressed().length;
            assertTrue(e.getMessage().startsWith(reported + " terminal(s) failed, first: "), e.getMessage());
            assertTrue(reported <= 2 * terminalsPerNode, "failures reported: " + reported);
            // The transactions' own exception for a row they cannot find, e.g. "row missing: table=warehouse ...".
            assertTrue(e.getCause() instanceof IllegalStateException, () -> "cause: " + e.getCause());
            for (Throwable other : e.getSuppressed()) {
                assertTrue(other instanceof IllegalStateException, other::toString);
            }
        }
    }

    /**
     * With one turn per compute node, no two of a node's terminals run a transaction at once, and each one
     * still gets its turns. Three terminals per node over the JVM's carriers: without the turns two of them
     * run at once (planted bug seen failing: {@code Turns.take} not acquiring, most running 2 or 3).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aNodesTerminalsTakeTurns() throws Exception {
        try (Database db = TpccSchema.define(Database.builder()).cc("occ").computeNodes(2).threadsPerNode(3)
            .cacheFrames(32_768).memoryPerNode(1L << 30).build()) {
            TpccRandom.Constants constants = TpccRandom.Constants.random(7);
            new TpccLoader(db, 2, 7, constants, 1, null).load();
            DriverConfig config = new DriverConfig(2, 3, TerminalPlacement.Placement.HOME,
                DriverConfig.TerminalThreads.VIRTUAL, 1_000_000_000L, 0, 7, Mix.STANDARD, false, constants,
                RetryPolicy.defaults(), DriverConfig.SPEC_REMOTE_LINES, 1);
            TpccDriver driver = new TpccDriver(db, config, null);
            DriverResult result = driver.run();
            assertEquals(1, driver.mostRunningPerNode(), "one transaction at a time per node, and some ran");
            for (long completed : result.completedByTerminal()) {
                assertTrue(completed > 0, "every terminal got turns: " + result.completedByTerminal());
            }
        }
    }

    /**
     * A commit log that refuses every append (a full disk): the first writer aborts with LOG_FAILED,
     * and the run ends at once (not after its 10 minutes) with a {@link TpccDriver.LogFailedException}
     * naming the transaction and its node as the first terminal failure.
     *
     * <p>Shown to fail: with the driver counting such a transaction as failed and going on, the run
     * lasted until the test's timeout.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCommitTheLogRefusesEndsTheRun() {
        CommitLog refusing = new CommitLog() {
            @Override
            public long append(io.selcc.engine.Redo redo) {
                return FAILED;
            }

            @Override
            public void awaitDurable(long sequence) {
            }

            @Override
            public void awaitAppendedDurable() {
            }

            @Override
            public void close() {
            }
        };
        CommitLog.Factory logs = new CommitLog.Factory() {
            @Override
            public CommitLog open(int computeNode, long settledThrough, java.util.function.LongSupplier nextSequence) {
                return refusing;
            }

            @Override
            public void close() {
            }
        };
        try (Database db = TpccSchema.define(Database.builder()).cc("2pl").computeNodes(2).threadsPerNode(1)
            .cacheFrames(32_768).memoryPerNode(1L << 30).commitLog(logs).build()) {
            TpccRandom.Constants constants = TpccRandom.Constants.random(7);
            new TpccLoader(db, 1, 7, constants, 1, null).load();
            DriverConfig config = new DriverConfig(1, 2, 600_000_000_000L, 0, 7, new Mix(50, 50, 0, 0, 0), false,
                constants, RetryPolicy.defaults());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TpccDriver(db, config, null).run());
            assertTrue(e.getCause() instanceof TpccDriver.LogFailedException, () -> "cause: " + e.getCause());
            assertTrue(e.getCause().getMessage().contains("could not be logged (LOG_FAILED)"), e.getCause().getMessage());
        }
    }
}
