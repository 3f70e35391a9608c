package io.selcc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --fabric tcp} and {@code memory-node}: runs whose memory nodes are processes of their own,
 * started and stopped by the command, and the errors of bad flags and of a memory node that dies.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TcpFabricCliTest {
    @TempDir
    Path dir;

    /** The selcc processes (memory or compute nodes) this JVM started and that still run. */
    private static List<ProcessHandle> selccChildren() {
        return ProcessHandle.current().children()
            .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.contains("io.selcc.cli.SelccCli")).orElse(false))
            .toList();
    }

    /** The memory-node processes this JVM started and that still run. */
    private static List<ProcessHandle> memoryNodeChildren() {
        return ProcessHandle.current().children()
            .filter(p -> p.isAlive() && p.info().commandLine().map(c -> c.contains(" memory-node ")).orElse(false))
            .toList();
    }

    /** Compute node 1's process, if this JVM started it and it still runs. */
    private static List<ProcessHandle> computeNode1() {
        return selccChildren().stream()
            .filter(p -> p.info().commandLine().map(c -> c.contains(" --node 1")).orElse(false)).toList();
    }

    /** How a command ended after one of its processes was killed. */
    private record Killed(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit=" + exit + "\n--- out:\n" + out + "--- err:\n" + err;
        }
    }

    /**
     * Runs the command {@code args} in this JVM, kills (SIGKILL) the one process {@code victim} finds once
     * the command printed {@code ready}, and waits at most {@code seconds} for the command to end. Fails if
     * it ended before the kill or there was not exactly one such process.
     */
    private static Killed runAndKill(String ready, java.util.function.Supplier<List<ProcessHandle>> victim,
                                     long seconds, String... args) throws Exception {
        java.io.StringWriter out = new java.io.StringWriter(); // a StringBuffer inside: safe to read while written
        java.io.StringWriter err = new java.io.StringWriter();
        CompletableFuture<Integer> running = CompletableFuture.supplyAsync(() -> {
            var cl = SelccCli.commandLine();
            cl.setOut(new java.io.PrintWriter(out, true));
            cl.setErr(new java.io.PrintWriter(err, true));
            return cl.execute(args);
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!out.toString().contains(ready)) { // polled: the output has no signal to wait on
            assertFalse(running.isDone(), () -> "the run ended before the kill: " + out + err);
            assertTrue(System.nanoTime() - deadline < 0, () -> "no '" + ready + "' in " + seconds + " s: " + out + err);
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L); // parks: the run needs the cores
        }
        List<ProcessHandle> victims = victim.get();
        assertEquals(1, victims.size(), "the process to kill: " + victims + " among " + selccChildren());
        victims.get(0).destroyForcibly();
        int exit = running.get(seconds, TimeUnit.SECONDS);
        return new Killed(exit, out.toString(), err.toString());
    }

    @Test
    void microRunsEveryNodeAsAProcessOverTcpAndStopsThem() throws IOException {
        Path json = dir.resolve("micro-tcp.json");
        int startedBefore = FabricLauncher.processesStarted();
        CliRun run = CliRun.of("micro", "--fabric", "tcp", "--memory-nodes", "2", "--duration", "1s", "--gcls", "2000",
            "--seed", "7", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("fabric=tcp"), run.out());
        Map<?, ?> report = (Map<?, ?>) MiniJson.parse(Files.readString(json));
        assertEquals("tcp", report.get("fabric"));
        assertEquals(4.0, report.get("processes"), "two compute nodes (this one and a child) and two memory nodes");
        assertEquals(3, FabricLauncher.processesStarted() - startedBefore, "two memory nodes and compute node 1 started");
        assertTrue((Double) report.get("roundTripsPerOp") > 0, report.toString());
        List<?> perNode = (List<?>) report.get("perNode");
        assertEquals(2, perNode.size(), report.toString());
        for (Object n : perNode) {
            assertTrue((Double) ((Map<?, ?>) n).get("ops") > 0, "every compute node's process did its share: " + n);
        }
        assertEquals(List.of(), selccChildren(), "processes left running");
    }

    /**
     * TPC-C with every node a process: a memory node and two compute-node processes (this one as node 0 and
     * a child), each running its own terminals and logging into one shared directory; node 0 loads, gathers
     * the child's results into the one report and checks the database.
     */
    @Test
    void tpccRunsEveryComputeNodeAsAProcessAndPassesTheCheck() throws IOException {
        Path json = dir.resolve("tpcc-tcp.json");
        int startedBefore = FabricLauncher.processesStarted();
        CliRun run = CliRun.of("tpcc", "run", "--fabric", "tcp", "--warehouses", "1", "--compute-nodes", "2",
            "--duration", "2s", "--warmup", "500ms", "--wal", "sync", "--check", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("consistency: all conditions passed"), run.out());
        Map<?, ?> report = (Map<?, ?>) MiniJson.parse(Files.readString(json));
        assertEquals("tcp", report.get("fabric"));
        assertEquals(3.0, report.get("processes"), "two compute-node processes and a memory node");
        assertEquals(2, FabricLauncher.processesStarted() - startedBefore, "the memory node and compute node 1 started");
        List<?> terminals = (List<?>) report.get("completedByTerminal");
        assertEquals(2, terminals.size(), "node 0 reports its terminal and the child's: " + report);
        for (Object completed : terminals) {
            assertTrue((Double) completed > 0, "each compute node's process ran transactions: " + terminals);
        }
        assertTrue(((Number) report.get("invalidationsBetweenNodes")).longValue() > 0,
            "the compute nodes' invalidations went between the processes: " + report);
        Map<?, ?> wal = (Map<?, ?>) report.get("wal");
        Map<?, ?> perType = (Map<?, ?>) report.get("perType");
        double writers = 0;
        for (String type : List.of("NewOrder", "Payment", "Delivery")) {
            Map<?, ?> t = (Map<?, ?>) perType.get(type);
            writers += (Double) t.get("committed") - (Double) t.get("rolledBack");
        }
        assertTrue((Double) wal.get("records") >= writers,
            "both processes' logs are counted (a record per committed writer, warm-up included): " + report);
        assertEquals(0.0, report.get("computeNodesLost"), report.toString());
        assertEquals(List.of(), selccChildren(), "processes left running");
    }

    /**
     * kill -9 of compute node 1's process during TPC-C with a log (both compute nodes on warehouse 1):
     * node 0 notices its connection close, fences it, restores the lines it held from the logs (memory when
     * logging started plus every committed change), and goes on alone: its terminals commit New-Orders
     * after the repair in every district of the warehouse, and the database passes the consistency check.
     *
     * <p>Shown failing on planted bugs: with the repair ignoring the logged changes (memory's copy put back
     * alone), conditions 1 and 9 failed on a district node 1 had updated, exit 1; with TO asking only the
     * nodes of its own process whether an intent's owner had crashed ({@code cc=to}), three runs of three
     * failed: twice not one New-Order after the repair in any district (every attempt LOCK_CONFLICT on
     * node 1's intents), once "TO write intent lost" (exit 1). What made the survivor stand still for the
     * rest of a run before (issue 28: 0 txn/s for 20 s after the kill, a repair of 10-21 s that every
     * retry waited for) is caught by {@code RepairReleasesPagesFirstTest} and {@code CrashRepairReadsTest};
     * here it shows as no New-Order after the repair when the repair outlasts the run.
     */
    @ParameterizedTest(name = "cc={0} terminals={1}")
    @CsvSource({"2pl, 2", "to, 10"}) // TO: five terminals on node 1, each with a transaction open when it dies
    void aComputeNodeProcessKilledDuringTpccIsRepairedAndTheSurvivorGoesOn(String cc, int terminals) throws Exception {
        Path json = dir.resolve("tpcc-kill-" + cc + ".json");
        Killed k = runAndKill("durable=", TcpFabricCliTest::computeNode1, 240, // the first measured progress line
            "tpcc", "run", "--fabric", "tcp", "--cc", cc, "--terminals", Integer.toString(terminals), "--warehouses", "1",
            // 8 s: the kill comes after 1 s, the repair took 0.9-1.8 s here, and the survivor alone then commits
            // hundreds of New-Orders a second (1,105 in the rest of an 8 s TO run).
            "--compute-nodes", "2", "--duration", "8s",
            "--warmup", "0s", "--wal", "sync", "--check", "--json", json.toString());
        String run = k.toString();
        String out = k.out();
        int exit = k.exit();
        assertEquals(0, exit, run);
        assertTrue(k.err().contains("compute node 1's process died during the run"), run);
        java.util.regex.Matcher repaired = java.util.regex.Pattern
            .compile("compute node 1 crashed; node 0 restored its ([\\d,]+) lines").matcher(out);
        assertTrue(repaired.find(), run);
        assertTrue(Long.parseLong(repaired.group(1).replace(",", "")) > 0, "node 1 held lines that were restored: " + run);
        assertTrue(out.contains("consistency: all conditions passed"), run);
        Map<?, ?> report = (Map<?, ?>) MiniJson.parse(Files.readString(json));
        assertEquals(1.0, report.get("computeNodesLost"), report.toString());
        Map<?, ?> after = (Map<?, ?>) report.get("afterRepair");
        assertTrue(after != null, "the survivor's New-Orders after the repair are reported: " + run);
        assertEquals(List.of(1.0), after.get("computeNodes"), after.toString());
        List<?> districts = (List<?>) ((Map<?, ?>) after.get("newOrdersByDistrict")).get("1");
        assertEquals(10, districts.size(), after.toString());
        for (int d = 0; d < districts.size(); d++) {
            assertTrue((Double) districts.get(d) > 0, "district " + (d + 1) + " of warehouse 1 committed New-Orders"
                + " after the repair: " + after + "\n" + run);
        }
        assertEquals(List.of(), selccChildren(), "processes left running");
    }

    /** Without a log a dead compute node's lines cannot be restored: the run ends with one line, exit 1. */
    @Test
    void aComputeNodeProcessKilledDuringTpccWithoutALogEndsTheRun() throws Exception {
        Killed k = runAndKill("\nrun ", TcpFabricCliTest::computeNode1, 120,
            "tpcc", "run", "--fabric", "tcp", "--warehouses", "1", "--compute-nodes", "2", "--duration", "60s",
            "--warmup", "0s");
        String run = k.toString();
        String err = k.err();
        int exit = k.exit();
        assertEquals(1, exit, run);
        assertTrue(err.contains("compute node 1's process is gone") && err.contains("logs nothing"), run);
        assertFalse(err.contains("\tat "), "no stack trace for a lost compute node: " + run);
        assertEquals(List.of(), selccChildren(), "processes left running");
    }

    /** {@code tpcc check --cluster}: node 0 loads into the memory node and checks; node 1 joins and stops. */
    @Test
    void tpccCheckRunsOnNodeZeroOfAClusterOfProcesses() throws Exception {
        ClusterSettings cluster = new ClusterSettings(io.selcc.cache.AccessMode.SELCC, 2, 1, 1, 2048, 16_384, 0, 0, false);
        try (var processes = FabricLauncher.launchCluster(cluster, 900L << 20, List.of("--warehouses", "1"),
            List.of("tpcc", "check"))) {
            Path file = processes.dir().resolve("cluster.properties"); // written by the launcher
            CliRun run = CliRun.of("tpcc", "check", "--warehouses", "1", "--cluster", file.toString(), "--node", "0");
            assertEquals(0, run.exitCode(), run.toString());
            assertTrue(run.out().contains("waiting for compute nodes 1-1"), run.out());
            assertTrue(run.out().contains("consistency: all conditions passed"), run.out());
            Process node1 = processes.computeNodes().get(0);
            assertTrue(node1.waitFor(60, TimeUnit.SECONDS), "compute node 1 stopped on node 0's STOP");
            assertEquals(0, node1.exitValue(), "compute node 1's process ended well");
        }
        assertEquals(List.of(), selccChildren(), "processes left running");
    }

    @Test
    void aMemoryNodeProcessKilledMidRunEndsTheRunWithAClearError() throws Exception {
        Killed k = runAndKill("\nrun ", TcpFabricCliTest::memoryNodeChildren, 120, // the measured interval has begun
            "micro", "--fabric", "tcp", "--duration", "120s", "--gcls", "2000");
        String run = k.toString();
        String err = k.err();
        int exit = k.exit();
        assertEquals(1, exit, run);
        assertTrue(err.contains("memory node 0") && err.contains("memory is lost"), run);
        assertFalse(err.contains("\tat "), "no stack trace for a lost memory node: " + run);
    }

    /**
     * kill -9 of compute node 1's process mid-run: node 0 meets the lines it held, which nothing can restore
     * (the micro-benchmark keeps no log), and ends with exit 1 and one line naming it instead of waiting for
     * ever. (Before the fix this run hung: 0 ops/s until a timeout.)
     */
    @Test
    void aComputeNodeProcessKilledMidRunEndsTheRunInsteadOfHanging() throws Exception {
        Killed k = runAndKill("\nrun ", TcpFabricCliTest::computeNode1, 120,
            "micro", "--fabric", "tcp", "--duration", "120s", "--gcls", "2000");
        String run = k.toString();
        String err = k.err();
        int exit = k.exit();
        assertEquals(1, exit, run);
        assertTrue(err.contains("compute node 1"), run);
        assertFalse(err.contains("\tat "), "no stack trace for a lost compute node: " + run);
        assertEquals(List.of(), selccChildren(), "processes left running");
    }

    @Test
    void badFabricFlagsExitTwoNamingTheFlag() {
        assertBadInput(CliRun.of("micro", "--fabric", "udp"), "--fabric", "udp");
        assertBadInput(CliRun.of("micro", "--fabric", "tcp", "--rtt", "10us"), "--fabric", "latency model");
    }

    @Test
    void badClusterFlagsExitTwoNamingTheFlag() throws IOException {
        Path good = dir.resolve("good.properties");
        Files.writeString(good, "memory.0=127.0.0.1:7000\ncompute.0=127.0.0.1:7001\ncompute.1=127.0.0.1:7002\n");
        Path gap = dir.resolve("gap.properties");
        Files.writeString(gap, "memory.0=127.0.0.1:7000\ncompute.0=127.0.0.1:7001\ncompute.2=127.0.0.1:7002\n");
        assertBadInput(CliRun.of("micro", "--cluster", gap.toString(), "--node", "0"), "--cluster", "missing compute.1");
        assertBadInput(CliRun.of("micro", "--cluster", dir.resolve("none").toString(), "--node", "0"), "--cluster",
            "does not exist");
        assertBadInput(CliRun.of("micro", "--cluster", good.toString()), "--cluster", "--node");
        assertBadInput(CliRun.of("micro", "--cluster", good.toString(), "--node", "2"), "--node", "0-1");
        assertBadInput(CliRun.of("micro", "--node", "1"), "--node", "only with --cluster");
        assertBadInput(CliRun.of("micro", "--cluster", good.toString(), "--node", "0", "--compute-nodes", "3"),
            "--compute-nodes", "lists 2");
        assertBadInput(CliRun.of("micro", "--cluster", good.toString(), "--node", "0", "--fabric", "local"), "--fabric");
        assertBadInput(CliRun.of("tpcc", "run", "--cluster", good.toString(), "--node", "0", "--mode", "partitioned"),
            "--cluster", "--mode partitioned");
        assertBadInput(CliRun.of("tpcc", "run", "--cluster", good.toString(), "--node", "0", "--wal", "sync"), "--wal",
            "--log-dir");
        assertBadInput(CliRun.of("tpcc", "run", "--log-dir", dir.toString()), "--log-dir", "only with --cluster");
        assertBadInput(CliRun.of("tpcc", "load", "--cluster", good.toString(), "--node", "1", "--data-dir",
            dir.resolve("db").toString()), "--data-dir", "--cluster");
    }

    @Test
    void badMemoryNodeFlagsExitTwoNamingTheFlag() throws IOException {
        assertBadInput(CliRun.of("memory-node", "--listen", "nohost", "--size", "64MiB"), "--listen", "host:port");
        assertBadInput(CliRun.of("memory-node", "--listen", "127.0.0.1:99999", "--size", "64MiB"), "--listen", "65535");
        assertBadInput(CliRun.of("memory-node", "--listen", "127.0.0.1:0", "--size", "64"), "--size", "unit");
        assertBadInput(CliRun.of("memory-node", "--listen", "127.0.0.1:0", "--size", "100KiB"), "--size", "1MiB");
        assertBadInput(CliRun.of("memory-node", "--listen", "127.0.0.1:0", "--size", "lots"), "--size", "not a size");
        assertBadInput(CliRun.of("memory-node", "--size", "64MiB"), "--listen");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertBadInput(CliRun.of("memory-node", "--listen", "127.0.0.1:" + taken.getLocalPort(), "--size", "64MiB"),
                "--listen", "cannot listen");
        }
    }

    private static void assertBadInput(CliRun run, String... mentions) {
        assertEquals(2, run.exitCode(), run.toString());
        for (String m : mentions) {
            assertTrue(run.err().contains(m), "error should mention '" + m + "': " + run.err());
        }
        assertFalse(run.err().contains("\tat "), "no stack trace for bad input: " + run.err());
    }
}
