package io.selcc.cli.tpcc;

import io.selcc.cli.CliRun;
import io.selcc.cli.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** tpcc subcommands: bad input exits 2 naming the problem; a short run writes the report. */
class TpccCommandTest {
    private static void assertBadInput(CliRun run, String... parts) {
        assertEquals(2, run.exitCode(), run.toString());
        for (String part : parts) {
            assertTrue(run.err().contains(part), "stderr lacks '" + part + "': " + run);
        }
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
    }

    /** Terminals are placed per warehouse: the old per-node flag, a bad count or placement is one line, exit 2. */
    @Test
    void terminalFlagsNameTheProblem() {
        assertBadInput(CliRun.of("tpcc", "run", "--threads", "4"), "--threads", "use --terminals");
        assertBadInput(CliRun.of("tpcc", "run", "--terminals", "0"), "--terminals", "must be >= 1");
        assertBadInput(CliRun.of("tpcc", "run", "--placement", "random"), "--placement", "random");
        assertBadInput(CliRun.of("tpcc", "run", "--terminal-threads", "green"), "--terminal-threads", "green");
        assertBadInput(CliRun.of("tpcc", "run", "--active-per-node", "0"), "--active-per-node", "auto, unlimited");
        assertBadInput(CliRun.of("tpcc", "run", "--active-per-node", "some"), "--active-per-node", "'some'");
        assertBadInput(CliRun.of("tpcc", "run", "--mode", "partitioned", "--warehouses", "2", "--placement", "spread"),
            "--placement", "use home");
        assertBadInput(CliRun.of("tpcc", "run", "--terminals", "6", "--cache", "2048"), "--cache", "frames per terminal");
        assertBadInput(CliRun.of("tpcc", "run", "--lock-wait", "bounded"), "--lock-wait", "no-wait or wait-die");
        assertBadInput(CliRun.of("tpcc", "run", "--cc", "occ", "--lock-wait", "wait-die"), "--lock-wait", "2pl only");
        assertBadInput(CliRun.of("tpcc", "run", "--mode", "partitioned", "--warehouses", "2", "--lock-wait", "wait-die"),
            "--lock-wait", "partitioned mode");
    }

    @Test
    void unknownConcurrencyControl() {
        assertBadInput(CliRun.of("tpcc", "run", "--cc", "mvcc"), "--cc", "mvcc");
    }

    @Test
    void zeroWarehouses() {
        assertBadInput(CliRun.of("tpcc", "load", "--warehouses", "0"), "--warehouses", "0");
    }

    @Test
    void negativeDuration() {
        assertBadInput(CliRun.of("tpcc", "run", "--duration", "-5s"), "--duration");
    }

    @Test
    void unwritableJsonPath(@TempDir Path dir) {
        Path inMissingDir = dir.resolve("missing").resolve("out.json");
        assertBadInput(CliRun.of("tpcc", "run", "--json", inMissingDir.toString()), "--json");
    }

    @Test
    void badMix() {
        assertBadInput(CliRun.of("tpcc", "run", "--mix", "45,43,4"), "--mix");
        assertBadInput(CliRun.of("tpcc", "run", "--mix", "0,0,0,0,0"), "--mix");
    }

    @Test
    void aCacheTooSmallForTheLatchesIsRefused() {
        assertBadInput(CliRun.of("tpcc", "run", "--cache", "64"), "--cache", "1024 frames per terminal");
    }

    @Test
    void badMemorySizes() {
        assertBadInput(CliRun.of("tpcc", "run", "--memory", "12"), "--memory", "needs a unit");
        assertBadInput(CliRun.of("tpcc", "run", "--memory", "1MB"), "--memory", "at least 64MiB");
        assertBadInput(CliRun.of("tpcc", "load", "--memory", "lots"), "--memory");
    }

    /**
     * A run that fills shared memory stops early: the report of what ran, one line naming --memory,
     * exit code 1, no stack trace, and the database still passes every consistency check (the
     * transaction that found memory full changed nothing). Before: an IllegalStateException with a
     * stack trace and no report (the driver counted it as a terminal failure). Shown failing, too, with
     * the commit's index maintenance letting the exception escape instead of undoing its index changes.
     */
    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRunThatFillsSharedMemoryStopsCleanly(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("full.json");
        CliRun run = CliRun.of("tpcc", "run", "--warehouses", "1", "--memory", "150MB", "--mix", "50,50,0,0,0",
            "--duration", "120s", "--check", "--json", json.toString());
        assertEquals(1, run.exitCode(), run.toString());
        assertTrue(run.err().contains("shared memory is full") && run.err().contains("raise --memory"), run.err());
        assertFalse(run.err().contains("Exception") || run.err().contains("\tat "), "no stack trace: " + run.err());
        assertTrue(run.out().contains("tpmC"), "the report of what ran: " + run.out());
        assertTrue(run.out().contains("consistency: all conditions passed"), run.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
        assertEquals(Boolean.TRUE, report.get("stoppedBySharedMemoryFull"), report.toString());
        assertTrue(((Number) report.get("committed")).longValue() > 0, "it ran before memory ran out");
    }

    @Test
    void aLoadThatDoesNotFitNamesTheFlag() {
        CliRun run = CliRun.of("tpcc", "load", "--warehouses", "1", "--memory", "64MiB");
        assertEquals(1, run.exitCode(), run.toString());
        assertTrue(run.err().contains("shared memory is full while loading") && run.err().contains("--memory"), run.err());
        assertFalse(run.err().contains("\tat "), "no stack trace: " + run.err());
    }

    @Test
    void everySubcommandHasHelp() {
        for (String sub : List.of("load", "run", "check")) {
            CliRun run = CliRun.of("tpcc", sub, "--help");
            assertEquals(0, run.exitCode(), run.toString());
            assertTrue(run.out().contains("--warehouses"), run.toString());
        }
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // terminals run concurrently
    void shortRunWritesTheReportAndPassesTheChecks(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("tpcc.json");
        CliRun run = CliRun.of("tpcc", "run", "--cc", "occ", "--warehouses", "1", "--compute-nodes", "2",
            "--terminals", "2", "--duration", "2s", "--warmup", "1s", "--check", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("tpmC"), run.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
        for (String key : List.of("cc", "access", "warehouses", "committed", "aborted", "txnPerSec", "tpmC",
            "roundTripsPerTxn", "terminalCpuMicrosPerTxn", "perType", "consistency", "seed", "constants",
            "abortsPerCommit", "allocatedBytesPerTxn")) {
            assertTrue(report.containsKey(key), "JSON lacks " + key + ": " + report.keySet());
        }
        // The terminals and what ran them: two terminals of warehouse 1, one on each node, virtual threads.
        assertEquals(2, ((Number) report.get("terminalsPerWarehouse")).intValue(), report.toString());
        assertEquals(2, ((Number) report.get("terminals")).intValue(), report.toString());
        assertEquals("home", report.get("placement"));
        assertEquals("virtual", report.get("terminalThreads"));
        assertTrue(((Number) report.get("carriers")).intValue() >= 1, report.toString());
        // Two nodes in this JVM, no log or latency model: one turn each where the carriers are no more than the
        // nodes, else every terminal runs.
        boolean turns = ((Number) report.get("carriers")).intValue() <= 2;
        assertEquals(turns ? "1" : "unlimited", report.get("activePerNode"), report.toString());
        assertEquals(turns, run.out().contains("taking turns: 1 transaction(s) at once per compute node"), run.out());
        // A 3 s run registers no memory (TpccDatabasesTest covers a longer one).
        assertFalse(run.out().contains("memory nodes registered"), run.out());
        assertEquals(List.of(1L, 1L), ((List<?>) report.get("terminalsByNode")).stream()
            .map(n -> ((Number) n).longValue()).toList(), "terminals by node");
        // Fails when the terminals stop measuring their CPU time (0 per transaction).
        double cpu = ((Number) report.get("terminalCpuMicrosPerTxn")).doubleValue();
        assertTrue(cpu > 1 && cpu < 1_000_000, "terminal CPU per transaction: " + cpu + " us");
        assertTrue(run.out().contains("terminal CPU us/txn"), run.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> perType = (Map<String, Object>) report.get("perType");
        for (String type : List.of("NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> stats = (Map<String, Object>) perType.get(type);
            for (String key : List.of("committed", "aborted", "p50Micros", "p90Micros", "p99Micros", "roundTripsPerTxn",
                    "gclAccessesPerTxn")) {
                assertTrue(stats.containsKey(key), type + " lacks " + key);
            }
            // Fails when the driver stops adding a transaction's GCL accesses (0 per transaction).
            if (((Number) stats.get("committed")).longValue() > 0) {
                assertTrue(((Number) stats.get("gclAccessesPerTxn")).doubleValue() >= 1, type + " touched no GCL: " + stats);
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> consistency = (Map<String, Object>) report.get("consistency");
        assertEquals(Boolean.TRUE, consistency.get("passed"), run.out());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> conditions = (List<Map<String, Object>>) consistency.get("conditions");
        assertEquals(13, conditions.size(), "twelve conditions and the index check: " + conditions);
        assertEquals("C8", conditions.get(7).get("name"));
        assertEquals(8, ((Number) conditions.get(7).get("number")).intValue());
        assertEquals("indexes", conditions.get(12).get("name"));
        assertEquals(Boolean.TRUE, conditions.get(12).get("passed"));
        assertTrue(run.out().contains("index/heap agreement    : passed"), run.out());
        assertTrue(((Number) report.get("committed")).longValue() > 0, run.out());
    }

    @Test
    void badWalMode() {
        assertBadInput(CliRun.of("tpcc", "run", "--wal", "fsync"), "--wal", "fsync", "off, async or sync");
    }

    /**
     * {@code --wal sync} without a data directory: every committed writer is one record, forces happened
     * (fewer or as many as records: group commit), the report and JSON say so, the checks pass, and the
     * temporary log directory is gone afterwards. Fails when the database is built without the log (0
     * records) and when the directory is left behind.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aSyncLoggedRunCountsRecordsAndForcesAndCleansUp(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("tpcc.json");
        CliRun run = CliRun.of("tpcc", "run", "--warehouses", "1", "--compute-nodes", "2", "--terminals", "2",
            "--mix", "50,50,0,0,0", "--duration", "2s", "--warmup", "1s", "--wal", "sync", "--check",
            "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("into (\\S+), removed at the end").matcher(run.out());
        assertTrue(m.find(), run.out());
        assertFalse(Files.exists(Path.of(m.group(1))), "the temporary log directory is removed: " + m.group(1));
        assertTrue(run.out().contains("wal sync (whole run, warm-up included)"), run.out());
        @SuppressWarnings("unchecked")
        Map<String, Object> wal = (Map<String, Object>) ((Map<String, Object>) MiniJson.parse(Files.readString(json))).get("wal");
        assertEquals("sync", wal.get("mode"));
        long records = ((Number) wal.get("records")).longValue();
        long forces = ((Number) wal.get("forces")).longValue();
        assertTrue(records > 0, "records: " + wal);
        // At most one force per group, plus per node: its first file's metadata and directories (2, and
        // the 2 above its log's), and a roll to the next five-minute file (the file, metadata, directory:
        // 3) should the run cross one.
        assertTrue(forces > 0 && forces <= records + 2 * (4 + 3) + 4, "forces (one per group, plus file metadata): " + wal);
        assertTrue(((Number) wal.get("bytes")).longValue() > records * 100, "bytes: " + wal);
        assertEquals(records / (double) forces, ((Number) wal.get("recordsPerForce")).doubleValue(), 1e-9, wal.toString());
        // Every acknowledged commit waited for a force: the wait's percentiles are live (0 if none was measured).
        long p50 = ((Number) wal.get("durabilityWaitP50Micros")).longValue();
        long p99 = ((Number) wal.get("durabilityWaitP99Micros")).longValue();
        assertTrue(p99 > 0 && p99 >= p50, "durability wait: " + wal);
        assertTrue(run.out().contains("durability wait per commit"), run.out());
    }

    /** Every misuse of --crash-node is one line naming the flag and the problem, exit 2. */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void crashNodeMisuseNamesTheProblem() {
        assertBadInput(CliRun.of("tpcc", "run", "--compute-nodes", "3", "--wal", "async", "--crash-node", "3"),
            "--crash-node", "must name one of the 3 compute nodes");
        assertBadInput(CliRun.of("tpcc", "run", "--compute-nodes", "1", "--wal", "async", "--crash-node", "0"),
            "--crash-node", "needs another compute node");
        assertBadInput(CliRun.of("tpcc", "run", "--compute-nodes", "2", "--crash-node", "1"), "--crash-node",
            "needs a log");
        assertBadInput(CliRun.of("tpcc", "run", "--crash-after", "1s"), "--crash-after", "needs --crash-node");
        assertBadInput(CliRun.of("tpcc", "run", "--warehouses", "1", "--compute-nodes", "2", "--wal", "async",
            "--access", "sel", "--crash-node", "1", "--duration", "1s"), "--crash-node", "only in SELCC mode");
    }

    /** Every misuse of --data-dir is one line naming the flag and the problem, exit 2. */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void dataDirectoryMisuseNamesTheProblem(@TempDir Path dir) throws Exception {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertBadInput(CliRun.of("tpcc", "run", "--data-dir", empty.toString()), "--data-dir", "holds no checkpoint");
        assertBadInput(CliRun.of("tpcc", "check", "--data-dir", dir.resolve("missing").toString()), "--data-dir",
            "is not a directory");
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertBadInput(CliRun.of("tpcc", "load", "--data-dir", file.toString()), "--data-dir", "is a file");
        assertBadInput(CliRun.of("tpcc", "check", "--json", dir.resolve("c.json").toString()), "--json", "needs --data-dir");
        assertBadInput(CliRun.of("tpcc", "run", "--checkpoint-every", "2s"), "--checkpoint-every", "needs --data-dir");

        Path db = dir.resolve("db");
        CliRun load = CliRun.of("tpcc", "load", "--warehouses", "1", "--data-dir", db.toString());
        assertEquals(0, load.exitCode(), load.toString());
        assertTrue(load.out().contains("checkpoint "), load.out());
        assertBadInput(CliRun.of("tpcc", "load", "--data-dir", db.toString()), "--data-dir", "holds a database already");
        assertBadInput(CliRun.of("tpcc", "run", "--data-dir", db.toString(), "--warehouses", "2"), "--warehouses",
            "differs from the 1 warehouse(s)");
        assertBadInput(CliRun.of("tpcc", "run", "--data-dir", db.toString(), "--mode", "partitioned"), "--mode",
            "differs from the shared database");
        assertBadInput(CliRun.of("tpcc", "run", "--data-dir", db.toString(), "--wal", "off", "--checkpoint-every", "1s"),
            "--checkpoint-every", "needs a log");
        // Another command holds the directory (here: a lock taken as a second process would find it).
        try (java.nio.channels.FileChannel held = java.nio.channels.FileChannel.open(db.resolve("lock"),
                java.nio.file.StandardOpenOption.WRITE); var lock = held.lock()) {
            assertTrue(lock.isValid());
            assertBadInput(CliRun.of("tpcc", "check", "--data-dir", db.toString()), "--data-dir", "is in use");
        }

        Path checkpoint;
        try (var files = Files.list(db)) {
            checkpoint = files.filter(p -> p.getFileName().toString().endsWith(".ckpt")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(checkpoint);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(checkpoint, bytes);
        assertBadInput(CliRun.of("tpcc", "check", "--data-dir", db.toString()), "--data-dir",
            checkpoint.getFileName().toString());
    }

    /**
     * {@code run --checkpoint-every} with logs that roll a cycle file per second
     * ({@value io.selcc.wal.Wal#ROLL_CYCLE_PROPERTY}={@code TEST_SECONDLY}): the checkpoints taken while
     * the terminals run remove the log files they cover, and their lines say how many; check then finds
     * every New-Order the run acknowledged and every condition holds.
     *
     * <p>Shown to fail: with {@code Checkpoint.write} not truncating the log, every line said 0 log
     * files removed.
     */
    @Test
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void checkpointsDuringARunRemoveTheLogFilesTheyCover(@TempDir Path dir) throws Exception {
        Path db = dir.resolve("db");
        assertEquals(0, CliRun.of("tpcc", "load", "--warehouses", "1", "--data-dir", db.toString()).exitCode());
        CliRun r = withALogFilePerSecond("tpcc", "run", "--data-dir", db.toString(), "--mix", "50,50,0,0,0",
            "--duration", "6s", "--checkpoint-every", "1s");
        assertEquals(0, r.exitCode(), r.toString());
        java.util.regex.Matcher lines = java.util.regex.Pattern.compile(
            "checkpoint \\S+ written during the run: .*, (\\d+) log files removed").matcher(r.out());
        int checkpoints = 0;
        long removed = 0;
        while (lines.find()) {
            checkpoints++;
            removed += Long.parseLong(lines.group(1));
        }
        assertTrue(checkpoints >= 1, "checkpoints during the run: " + r.out());
        assertTrue(removed > 0, "no log file removed by " + checkpoints + " checkpoints: " + r.out());
        long durable = KeptDatabaseCheck.lastDurable(r.out());
        assertTrue(durable > 0, "durable New-Orders reported: " + r.out());
        KeptDatabaseCheck.assertCheckFinds(dir, db, durable, r.out());
    }

    /** A command run with logs that roll a cycle file per second, so that a short run has files to remove. */
    private static CliRun withALogFilePerSecond(String... args) {
        System.setProperty(io.selcc.wal.Wal.ROLL_CYCLE_PROPERTY, "TEST_SECONDLY");
        try {
            return CliRun.of(args);
        } finally {
            System.clearProperty(io.selcc.wal.Wal.ROLL_CYCLE_PROPERTY);
        }
    }

    /**
     * {@code --crash-node} on a kept database with checkpoints every second and a log file per second:
     * the checkpoints remove the log files they cover, the crashed node is repaired from the newest
     * checkpoint and the logs after it, and every check passes.
     *
     * Node 0 too: recovery opens only node 0, so the survivors are opened before the crash is checked,
     * and a checkpoint whose scan read through node 0 when it crashed is abandoned, not the run.
     *
     * <p>Shown to fail (before repairs started from checkpoints): with the run not keeping its log
     * files, the first checkpoint removed 3 of them, the crashed node's lines were not repaired (the
     * repair refused truncated logs), and the run ended with exit 1. Node 0 was refused with exit 2 ("no
     * other compute node is open") before the survivors were opened first.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "crash node {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 0})
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRunThatCrashesANodeIsRepairedFromItsNewestCheckpoint(int crashed, @TempDir Path dir) throws Exception {
        Path db = dir.resolve("db");
        assertEquals(0, CliRun.of("tpcc", "load", "--warehouses", "1", "--data-dir", db.toString()).exitCode());
        // A checkpoint takes about 2 s here: the crash comes after at least one.
        CliRun r = withALogFilePerSecond("tpcc", "run", "--data-dir", db.toString(), "--compute-nodes", "3",
            "--terminals", "3", "--mix", "50,50,0,0,0", "--duration", "8s", "--checkpoint-every", "1s", "--crash-node",
            String.valueOf(crashed), "--crash-after", "6s", "--check");
        assertEquals(0, r.exitCode(), r.toString());
        java.util.regex.Matcher lines = java.util.regex.Pattern.compile(
            "written during the run: .*, (\\d+) log files removed").matcher(r.out());
        long removed = 0;
        while (lines.find()) {
            removed += Long.parseLong(lines.group(1));
        }
        assertTrue(removed > 0, "the checkpoints removed log files: " + r.out());
        int crashLine = r.out().indexOf("compute node " + crashed + " crashed; node ");
        int firstCheckpoint = r.out().indexOf("written during the run");
        assertTrue(crashLine > 0, r.out());
        assertTrue(firstCheckpoint >= 0 && firstCheckpoint < crashLine, "no checkpoint before the crash: " + r.out());
        assertTrue(r.out().indexOf("from checkpoint checkpoint-", crashLine) > 0, "the repair's base: " + r.out());
        assertTrue(r.out().contains("consistency: all conditions passed"), r.out());
    }
}
