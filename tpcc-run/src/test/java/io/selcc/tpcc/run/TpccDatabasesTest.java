package io.selcc.tpcc.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.cache.AccessMode;
import io.selcc.fabric.OffHeap;
import org.junit.jupiter.api.Test;

/**
 * The default shared memory of a run leaves room for what the run inserts: a 60 s W=2 standard mix took
 * 1.48 GiB beyond the load at 40,000 txn/s and, with the load's default alone, filled memory after 47 s
 * (docs/benchmarks.md). Fails without the allowance (checked).
 */
class TpccDatabasesTest {
    private static ClusterSpec cluster(int computeNodes, int memoryNodes) {
        return new ClusterSpec(AccessMode.SELCC, computeNodes, memoryNodes, 1, 2048, 81_920, 0, 0, true,
            ClusterSpec.Placement.inProcess());
    }

    @Test
    void runDefaultGrowsWithTheRunAndSpreadsOverMemoryNodes() {
        ClusterSpec one = cluster(2, 1);
        long load = TpccDatabases.memoryPerNode(one, 2, 0);
        long seventySeconds = TpccDatabases.runMemoryPerNode(one, 2, 0, 70);
        if (!OffHeap.lazilyZeroed()) {
            assertEquals(load, seventySeconds, "eagerly zeroed memory is not padded");
            return;
        }
        assertTrue(seventySeconds - load >= 3L * 1_551_800_320, "room for three times the measured growth: "
            + (seventySeconds - load));
        assertTrue(TpccDatabases.runMemoryPerNode(one, 2, 0, 700) > seventySeconds, "longer runs get more");
        long spread = TpccDatabases.runMemoryPerNode(cluster(2, 2), 2, 0, 70);
        assertTrue(spread < seventySeconds, "two memory nodes each hold half: " + spread);
        assertEquals(0, seventySeconds % 8);
    }

    /**
     * A recovered database is sized for what its data directory holds, not for its initial population:
     * a W=2 directory whose minute of NO+P grew its checkpoint to 863 MB (10.5 million rows) could not be
     * recovered with the warehouses' default ("shared memory is full" while loading the checkpoint).
     * Fails without the recovered bytes in the default (checked).
     */
    @Test
    void aRecoveredDatabaseGetsRoomForItsCheckpointAndLogs() {
        ClusterSpec one = cluster(2, 1);
        long initial = TpccDatabases.memoryPerNode(one, 2, 0);
        assertEquals(initial, TpccDatabases.memoryPerNode(one, 2, 100L << 20), "a small checkpoint: as loaded");
        long grown = TpccDatabases.memoryPerNode(one, 2, 863_000_000L);
        assertTrue(grown >= 2 * 863_000_000L, "twice the checkpoint: " + grown);
        assertTrue(TpccDatabases.memoryPerNode(cluster(2, 2), 2, 863_000_000L) < grown, "spread over two");
    }

    /**
     * A run's memory nodes register the room for its inserts (64 MiB per compute node and second, or 40 MiB per
     * core and second if less, spread over the memory nodes), up to a quarter of the machine's physical memory
     * shared among them; a run under 20 s registers nothing.
     */
    @Test
    void memoryNodesRegisterTheRunsRoomUpToAQuarterOfThePhysical() {
        long mib = 1L << 20;
        long gib = 1L << 30;
        assertEquals(2 * 30 * 64 * mib, TpccDatabases.registeredForTheRun(cluster(2, 1), 30, 8, 24 * gib), "2 nodes, 30 s");
        assertEquals(30 * 2 * 40 * mib, TpccDatabases.registeredForTheRun(cluster(2, 1), 30, 2, 24 * gib),
            "2 nodes on 2 cores: what the cores can insert");
        assertEquals(30 * 40 * mib, TpccDatabases.registeredForTheRun(cluster(2, 1), 30, 0, 24 * gib), "cores unknown: one");
        assertEquals(30 * 64 * mib, TpccDatabases.registeredForTheRun(cluster(2, 2), 30, 8, 24 * gib), "spread over two");
        assertEquals(21 * 64 * mib, TpccDatabases.registeredForTheRun(cluster(1, 1), 20.5, 8, 24 * gib), "whole seconds");
        assertEquals(0, TpccDatabases.registeredForTheRun(cluster(2, 1), 19.9, 8, 24 * gib), "a short run: none");
        assertEquals(0, TpccDatabases.registeredForTheRun(cluster(2, 1), 13, 2, 24 * gib), "the README's run: none");
        assertEquals(6 * gib, TpccDatabases.registeredForTheRun(cluster(2, 1), 600, 8, 24 * gib), "a quarter of 24 GiB");
        assertEquals(3 * gib, TpccDatabases.registeredForTheRun(cluster(2, 2), 6000, 8, 24 * gib), "shared by two");
        assertEquals(0, TpccDatabases.registeredForTheRun(cluster(2, 1), 30, 8, 0), "physical memory unknown: none");
        assertTrue(TpccDatabases.physicalMemory() > 0, "this JDK tells the physical memory");
    }

    /**
     * A run registers its room in its in-JVM memory nodes and says so; a short or a logged one does not (without the call,
     * or with the amount not passed on, the line is missing or names another amount: checked).
     */
    @Test
    void aRunRegistersItsRoomAndSaysSo() {
        RunSpec run = RunSpec.builder().cluster(cluster(1, 1)).duration(java.time.Duration.ofSeconds(25))
            .warmup(java.time.Duration.ZERO).build();
        try (io.selcc.fabric.LocalFabric memory = new io.selcc.fabric.LocalFabric(1, 64L << 20, 1,
            io.selcc.fabric.LatencyModel.OFF)) {
            java.io.StringWriter out = new java.io.StringWriter();
            TpccRun.registerForTheRun(run, memory, new java.io.PrintWriter(out, true));
            // 25 s x 40 MiB or more asked for; the 64 MiB node ends sooner.
            assertTrue(out.toString().startsWith("memory nodes registered 64MiB for the run's inserts"), out.toString());
            java.io.StringWriter shortOut = new java.io.StringWriter();
            RunSpec shortRun = RunSpec.builder().cluster(cluster(1, 1)).duration(java.time.Duration.ofSeconds(10))
                .warmup(java.time.Duration.ofSeconds(3)).build(); // the README's run
            TpccRun.registerForTheRun(shortRun, memory, new java.io.PrintWriter(shortOut, true));
            assertEquals("", shortOut.toString(), "a short run registers nothing");
            java.io.StringWriter loggedOut = new java.io.StringWriter();
            RunSpec logged = RunSpec.builder().cluster(cluster(1, 1)).duration(java.time.Duration.ofSeconds(25))
                .log(RunSpec.LogMode.SYNC).build();
            TpccRun.registerForTheRun(logged, memory, new java.io.PrintWriter(loggedOut, true));
            assertEquals("", loggedOut.toString(), "a logged run registers nothing: its commits wait for forces");
        }
    }

    /** A terminal that failed because the commit log did is one line; any other failure keeps its trace. */
    @Test
    void aFailedCommitLogIsOneLine() {
        RuntimeException lost = new IllegalStateException("1 terminal(s) failed",
            new io.selcc.engine.CommitLog.NotDurableException("wal failed: sequence=7"));
        RuntimeException mapped = TpccRun.failureOf(lost, java.nio.file.Path.of("db"), null);
        assertTrue(mapped instanceof RunFailedException, mapped.toString());
        assertTrue(mapped.getMessage().contains("wal failed: sequence=7") && mapped.getMessage().contains("db"),
            mapped.getMessage());
        RuntimeException refused = new IllegalStateException("1 terminal(s) failed",
            new io.selcc.tpcc.driver.TpccDriver.LogFailedException("PAYMENT on compute node 1 could not be logged"));
        assertTrue(TpccRun.failureOf(refused, null, null) instanceof RunFailedException);
        RuntimeException bug = new IllegalStateException("1 terminal(s) failed", new NullPointerException());
        assertTrue(TpccRun.failureOf(bug, null, null) == bug);
    }
}
