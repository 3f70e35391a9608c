package io.selcc.tpcc.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.tpcc.driver.Mix;
import io.selcc.tpcc.driver.TypeStats;
import io.selcc.tpcc.txn.TxnType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A database kept in a directory across library calls: a load, two runs that each recover what the one
 * before left, log with sync and checkpoint at the end, and a check that finds every New-Order the runs
 * committed. Fails when a run's HISTORY ids restart at an earlier run's (the second run's duplicate key,
 * seen as the command's test), and, planted here, when a run skips its final checkpoint while its logs
 * are still removed ("ordersSinceLoad 0 < committed 1266").
 */
@Timeout(value = 240, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KeptDatabaseTest {
    private final StringWriter out = new StringWriter();
    private final PrintWriter print = new PrintWriter(out, true);

    @Test
    void aKeptDatabaseGrowsRunByRun(@TempDir Path dir) throws InterruptedException {
        Path db = dir.resolve("db");
        RunSpec spec = RunSpec.builder().dataDir(db).log(RunSpec.LogMode.SYNC).mix(new Mix(50, 50, 0, 0, 0))
            .duration(Duration.ofSeconds(2)).build();
        assertTrue(TpccRun.load(spec, print));
        InvalidRunException twice = assertThrows(InvalidRunException.class, () -> TpccRun.load(spec, print));
        assertTrue(twice.violations().get(0).problem().contains("holds a database already"), twice.toString());
        long ordersCommitted = 0;
        for (int run = 1; run <= 2; run++) {
            RunOutcome outcome = TpccRun.run(spec, print, print);
            assertTrue(outcome.passed(), out.toString());
            TypeStats newOrders = outcome.result().stats(TxnType.NEW_ORDER);
            assertTrue(newOrders.committed() > 0, out.toString());
            ordersCommitted += newOrders.committed() - newOrders.rolledBack(); // a rollback inserts no order
            assertEquals("sync", outcome.log().mode());
        }
        assertTrue(out.toString().contains("recovered from checkpoint-"), out.toString());
        TpccRun.KeptCheck check = TpccRun.check(spec, print, print);
        assertTrue(check.report().passed(), out.toString());
        assertTrue(check.ordersSinceLoad() >= ordersCommitted,
            "ordersSinceLoad " + check.ordersSinceLoad() + " < committed " + ordersCommitted);
    }

    /** What the directory says against a spec is refused before anything runs, naming the flag. */
    @Test
    void aSpecThatDiffersFromTheKeptDatabaseIsRefused(@TempDir Path dir) throws InterruptedException {
        Path db = dir.resolve("db");
        RunSpec spec = RunSpec.builder().dataDir(db).log(RunSpec.LogMode.SYNC).build();
        assertTrue(TpccRun.load(spec, print));
        RunSpec its = RunSpec.builder().warehouses(3).keptDatabase(db).build();
        assertEquals(1, its.warehouses(), "the kept database's warehouses");
        assertEquals(RunSpec.LogMode.SYNC, its.log(), "a kept database keeps what it acknowledged");
        InvalidRunException more = assertThrows(InvalidRunException.class,
            () -> TpccRun.run(spec.toBuilder().warehouses(2).build(), print, print));
        assertEquals("--warehouses", more.violations().get(0).flag(), more.toString());
        InvalidRunException partitioned = assertThrows(InvalidRunException.class,
            () -> TpccRun.run(spec.toBuilder().mode(RunSpec.Mode.PARTITIONED).cluster(ClusterSpec.inProcess(1)).build(),
                print, print));
        assertEquals("--mode", partitioned.violations().get(0).flag(), partitioned.toString());
        InvalidRunException missing = assertThrows(InvalidRunException.class,
            () -> TpccRun.run(spec.toBuilder().dataDir(dir.resolve("none")).build(), print, print));
        assertTrue(missing.violations().get(0).problem().contains("is not a directory"), missing.toString());
    }
}
