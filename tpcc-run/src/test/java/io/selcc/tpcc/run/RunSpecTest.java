package io.selcc.tpcc.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.tpcc.driver.TerminalPlacement;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * A run's settings are refused by the spec itself, each naming the flag that sets it, so a test sees what
 * the command line would say without starting one. Every violation is returned, not only the first.
 * Planted bug (checked): {@code validate} stopping at the first violation fails
 * {@link #everyViolationIsReturnedNotOnlyTheFirst}.
 */
class RunSpecTest {
    private static RunSpec spec(UnaryOperator<RunSpec.Builder> change) {
        return change.apply(RunSpec.builder()).build();
    }

    private static List<String> flags(RunSpec spec) {
        return spec.validate().stream().map(RunSpec.Violation::flag).toList();
    }

    @Test
    void theDefaultsAreARun() {
        assertEquals(List.of(), RunSpec.builder().build().validate());
    }

    /**
     * Terminals take turns by default only where nothing but the cores bounds the run: a shared run at home,
     * every node in this JVM, no latency model, no log, and at least as many nodes as cores, one turn each. A
     * run waiting on round trips or forces needs many in flight, partitioned and spread runs were not measured
     * with turns, and one node on two cores ran at 0.54-0.68x of its unlimited throughput with two turns, 0.3x
     * with one. Planted bug seen failing: the earlier rule (the node's share of the cores, rounded
     * up) gives 2 for one node on two cores.
     */
    @Test
    void terminalsTakeTurnsOnlyWhereTheCoresAreAllTheyWaitFor() {
        int unlimited = io.selcc.tpcc.driver.DriverConfig.UNLIMITED;
        assertEquals(unlimited, TpccRun.activePerNode(RunSpec.builder().build(), 3), "two nodes, three cores: a carrier to spare");
        assertEquals(1, TpccRun.activePerNode(RunSpec.builder().build(), 2), "two nodes share two cores");
        assertEquals(1, TpccRun.activePerNode(RunSpec.builder().build(), 1), "two nodes on one core");
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.cluster(ClusterSpec.inProcess(1))), 2), "one node, two cores");
        assertEquals(1, TpccRun.activePerNode(spec(b -> b.cluster(ClusterSpec.inProcess(1))), 1), "one node, one core");
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.log(RunSpec.LogMode.SYNC)), 2),
            "a log: commits wait for forces");
        ClusterSpec base = ClusterSpec.inProcess(2);
        ClusterSpec modelled = new ClusterSpec(base.access(), 2, base.memoryNodes(), base.loaderThreads(),
            base.gclSize(), base.cacheFrames(), 2_000, 0, base.fairness(), base.fabric());
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.cluster(modelled)), 2),
            "a latency model: transactions wait for round trips");
        ClusterSpec bandwidth = new ClusterSpec(base.access(), 2, base.memoryNodes(), base.loaderThreads(),
            base.gclSize(), base.cacheFrames(), 0, 56, base.fairness(), base.fabric());
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.cluster(bandwidth)), 2), "a bandwidth model");
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.warehouses(2).mode(RunSpec.Mode.PARTITIONED)), 2),
            "partitioned");
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.placement(TerminalPlacement.Placement.SPREAD)), 2),
            "spread");
        assertEquals(3, TpccRun.activePerNode(spec(b -> b.activePerNode(3).log(RunSpec.LogMode.SYNC)), 2), "asked for");
        assertEquals(unlimited, TpccRun.activePerNode(spec(b -> b.activePerNode(unlimited)), 2), "asked for");
    }

    @Test
    void everyViolationIsReturnedNotOnlyTheFirst() {
        RunSpec bad = spec(b -> b.cc("mvcc").terminalsPerWarehouse(0).duration(Duration.ZERO).maxAttempts(0));
        assertEquals(List.of("--cc", "--duration", "--terminals", "--max-attempts"), flags(bad), bad.validate().toString());
    }

    /** Each rule names its own flag (and only it) with the command line's words. */
    @Test
    void eachRuleNamesItsFlag() {
        assertRefused(b -> b.warehouses(0), "--warehouses", "must be in [1,");
        assertRefused(b -> b.memoryPerNode(1 << 20), "--memory", "at least 64MiB");
        assertRefused(b -> b.terminalsPerWarehouse(1001), "--terminals", "at most 1000");
        assertRefused(b -> b.cc("occ").lockWait(LockWaitPolicy.WAIT_DIE), "--lock-wait", "2pl only");
        assertRefused(b -> b.placement(TerminalPlacement.Placement.SPREAD).distribution(OptionalInt.of(10))
            .warehouses(2), "--placement", "use home");
        assertRefused(b -> b.terminalsPerWarehouse(6).cluster(ClusterSpec.inProcess(2).withCacheFrames(2048)),
            "--cache", "frames per terminal");
        assertRefused(b -> b.distribution(OptionalInt.of(101)).warehouses(2), "--distribution", "0-100");
        assertRefused(b -> b.distribution(OptionalInt.of(10)), "--distribution", "a warehouse per compute node");
        assertRefused(b -> b.mode(RunSpec.Mode.PARTITIONED).warehouses(2).cc("occ"), "--mode", "--cc 2pl only");
        assertRefused(b -> b.mode(RunSpec.Mode.PARTITIONED), "--mode", "a warehouse per compute node");
        assertRefused(b -> b.checkpointEvery(Duration.ofSeconds(1)).log(RunSpec.LogMode.SYNC), "--checkpoint-every",
            "needs --data-dir");
        assertRefused(b -> b.checkpointEvery(Duration.ofSeconds(1)).dataDir(Path.of("db")), "--checkpoint-every",
            "needs a log");
        assertRefused(b -> b.crash(new RunSpec.CrashPlan(2, null)).log(RunSpec.LogMode.ASYNC), "--crash-node",
            "one of the 2 compute nodes");
        assertRefused(b -> b.crash(new RunSpec.CrashPlan(1, null)), "--crash-node", "needs a log");
        assertRefused(b -> b.crash(new RunSpec.CrashPlan(1, Duration.ofSeconds(-1))).log(RunSpec.LogMode.ASYNC),
            "--crash-after", ">= 0");
        assertRefused(b -> b.logDir(Path.of("logs")).log(RunSpec.LogMode.ASYNC), "--log-dir", "only with --cluster");
    }

    private static void assertRefused(UnaryOperator<RunSpec.Builder> change, String flag, String words) {
        List<RunSpec.Violation> violations = spec(change).validate();
        assertEquals(1, violations.size(), violations.toString());
        assertEquals(flag, violations.get(0).flag(), violations.toString());
        assertTrue(violations.get(0).problem().contains(words), violations.toString());
    }

    /** Compute nodes as processes refuse what they do not run yet, and need a shared log directory for a log. */
    @Test
    void computeNodesAsProcessesRefuseWhatTheyDoNotRun() {
        ClusterSpec member = new ClusterSpec(io.selcc.cache.AccessMode.SELCC, 2, 1, 1, 2048, 0, 0, 0, true,
            new ClusterSpec.Placement("tcp", 3, 1, bytes -> {
                throw new AssertionError("a refused run opens no fabric");
            }));
        RunSpec asProcess = spec(b -> b.cluster(member));
        assertEquals(List.of(), asProcess.validate());
        assertEquals(List.of("--cluster"), flags(asProcess.toBuilder().dataDir(Path.of("db")).build()));
        assertEquals(List.of("--wal"), flags(asProcess.toBuilder().log(RunSpec.LogMode.SYNC).build()));
        assertEquals("--data-dir", spec(b -> b.dataDir(Path.of("db"))).inOneProcessBecause());
    }

    /** The cache grows with the terminals unless it is given; a given one is kept as it is. */
    @Test
    void theDefaultCacheGrowsWithTheBusiestNode() {
        RunSpec many = spec(b -> b.terminalsPerWarehouse(40));
        assertEquals(20, many.busiestNode());
        assertEquals(Math.max(TpccDatabases.defaultCacheFrames(1), 20L * TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL),
            many.cacheFrames());
        assertEquals(50_000, spec(b -> b.cluster(ClusterSpec.inProcess(2).withCacheFrames(50_000))).cacheFrames());
    }
}
