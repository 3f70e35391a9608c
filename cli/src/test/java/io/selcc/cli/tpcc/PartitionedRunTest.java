package io.selcc.cli.tpcc;

import io.selcc.cli.CliRun;
import io.selcc.cli.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code tpcc run --mode partitioned --distribution P}: the run, its report, and the flags it refuses.
 */
@Timeout(300)
class PartitionedRunTest {
    private static void assertBadInput(CliRun run, String... parts) {
        assertEquals(2, run.exitCode(), run.toString());
        for (String part : parts) {
            assertTrue(run.err().contains(part), "stderr lacks '" + part + "': " + run);
        }
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
        assertTrue(run.out().isEmpty(), "nothing ran: " + run);
    }

    @Test
    void badModesAndSharesAreRefusedNamingTheFlag() {
        assertBadInput(CliRun.of("tpcc", "run", "--mode", "sharded"), "--mode", "sharded", "shared or partitioned");
        assertBadInput(CliRun.of("tpcc", "run", "--distribution", "101"), "--distribution", "101", "0-100");
        assertBadInput(CliRun.of("tpcc", "run", "--distribution", "-1"), "--distribution", "-1");
        assertBadInput(CliRun.of("tpcc", "run", "--distribution", "20", "--compute-nodes", "1"), "--distribution",
            "two or more compute nodes");
        assertBadInput(CliRun.of("tpcc", "run", "--mode", "partitioned", "--compute-nodes", "3", "--warehouses", "2"),
            "--mode", "a warehouse per compute node");
        assertBadInput(CliRun.of("tpcc", "run", "--mode", "partitioned", "--compute-nodes", "2", "--warehouses", "2",
            "--cc", "occ"), "--mode", "2pl only");
    }

    @Test
    void aPartitionedRunCommitsAcrossPartitionsWithoutInvalidationsAndPassesTheCheck(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("partitioned.json");
        CliRun run = CliRun.of("tpcc", "run", "--mode", "partitioned", "--compute-nodes", "2", "--warehouses", "2",
            "--distribution", "50", "--mix", "50,50,0,0,0", "--duration", "2s", "--warmup", "1s", "--wal", "sync",
            "--check", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("consistency: all conditions passed"), run.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
        assertEquals("partitioned", report.get("mode"));
        assertEquals(50L, ((Number) report.get("distribution")).longValue());
        assertEquals(0L, ((Number) report.get("invalidationsBetweenNodes")).longValue(), report.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> twoPc = (Map<String, Object>) report.get("twoPhaseCommit");
        assertTrue(((Number) twoPc.get("distributedCommits")).longValue() > 0, twoPc.toString());
        // With --wal sync every distributed commit forced a prepare and a decision (a new log file forces more).
        // The window's edges cut at most one transaction per terminal (2) at each end: 2 records each.
        long commits = ((Number) twoPc.get("distributedCommits")).longValue();
        long records = ((Number) twoPc.get("prepareRecords")).longValue() + ((Number) twoPc.get("decisionRecords")).longValue();
        assertTrue(Math.abs(records - 2 * commits) <= 8, twoPc.toString());
        // A record is counted just after its force: one forced before the window opened and counted after it is
        // a record of the window without its force (at most one per forcing thread: 2 terminals, 2 branch threads).
        assertTrue(((Number) twoPc.get("logForces")).longValue() >= records - 4, "every record forced: " + twoPc);
        assertTrue(((Number) report.get("forcedWritesPerTxn")).doubleValue() > 0, report.toString());
    }

    @Test
    void theSameOrdersRunFullyShared(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("shared.json");
        CliRun run = CliRun.of("tpcc", "run", "--mode", "shared", "--compute-nodes", "2", "--warehouses", "2",
            "--distribution", "50", "--mix", "50,50,0,0,0", "--duration", "2s", "--warmup", "1s", "--check",
            "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
        assertEquals("shared", report.get("mode"));
        assertTrue(!report.containsKey("twoPhaseCommit"), report.toString());
        // Half the New-Orders update a stock row of the other node's warehouse: lines move between caches.
        assertTrue(((Number) report.get("invalidationsBetweenNodes")).longValue() > 0, report.toString());
    }
}
