package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Redo;
import io.selcc.engine.Table;
import io.selcc.wal.Wal.Mode;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static io.selcc.wal.CheckpointFixtures.BY_DISTRICT;
import static io.selcc.wal.CheckpointFixtures.CUSTOMERS;
import static io.selcc.wal.CheckpointFixtures.C_BALANCE;
import static io.selcc.wal.CheckpointFixtures.ITEMS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Log truncation ({@link Wal#truncate}, called by {@link Checkpoint#write} once a checkpoint is
 * published): exactly the cycle files whose records a checkpoint covers go, never a file a log is
 * appending to; recovery from the checkpoint and what is left gives the database; a log whose listing
 * still names a removed first file is read from the first file left; recovery refuses a checkpoint
 * whose records were removed.
 *
 * <p>The logs roll a cycle file per second of a test clock ({@code TEST_SECONDLY}), advanced by the
 * tests: which records land in which file is fixed. Chronicle reports a released cycle file on its
 * background releaser thread; the tests wait for those reports
 * ({@link BackgroundResourceReleaser#releasePendingResources}) before truncating, where a run would
 * leave a file not yet reported for the next checkpoint. A waiter for the log blocks uninterruptibly,
 * so every test runs under a timeout in a separate thread.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class LogTruncationTest {
    private static final long START = TimeUnit.DAYS.toNanos(20_000);

    /**
     * Two logs, sequence numbers drawn in order: node 0 appends 1-10 in cycle file t0 and 16-20 in
     * t1; node 1 appends 11-15 in t0, 21-25 in t1 and 26-30 in t2. Truncated through 22: node 0's t0
     * and node 1's t0 go (2 files); node 0's t1 stays although every record in it is at or below 22,
     * because node 0 is appending to it; node 1's t1 stays (23-25 are in it), and so does its t2. Once
     * node 0 appends 31-35 in t3, the same truncation removes its t1 too. Read back, the logs hold
     * exactly the records of the files left, 21 to 35 among them: every record above 22.
     *
     * <p>Shown to fail, each bug planted once in {@link ChronicleCommitLog#truncate}: (a) with neither
     * the file being appended to nor a file Chronicle has not released spared (either guard alone
     * spares the current file), the first truncation removed 3 files, node 0's t1 among them; (b) with
     * the bound off by three ({@code c.highest > coveredThrough + 3}), it removed 3 files too: node 1's
     * t1, with 23-25 in it, which a recovery from the checkpoint needs.
     */
    @Test
    void removesExactlyTheFilesACheckpointCoversButNeverTheCurrentOne(@TempDir Path dir) {
        SetTimeProvider clock = new SetTimeProvider(START);
        AtomicLong sequences = new AtomicLong();
        Redo redo = new Redo();
        Map<Integer, List<Long>> expected = new HashMap<>();
        try (Wal wal = Wal.open(dir, Mode.SYNC, secondly(clock))) {
            ChronicleCommitLog n0 = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            ChronicleCommitLog n1 = (ChronicleCommitLog) wal.open(1, sequences::incrementAndGet);
            append(n0, redo, sequences, 10);                      // 1-10, t0
            append(n1, redo, sequences, 5);                       // 11-15, t0
            clock.advanceMillis(1_000);
            append(n0, redo, sequences, 5);                       // 16-20, t1
            append(n1, redo, sequences, 5);                       // 21-25, t1
            clock.advanceMillis(1_000);
            append(n1, redo, sequences, 5);                       // 26-30, t2
            n1.awaitAppendedDurable();
            BackgroundResourceReleaser.releasePendingResources();
            List<File> n0Files = n0.cycleFilesForTest();
            List<File> n1Files = n1.cycleFilesForTest();
            assertEquals(2, n0Files.size(), n0Files.toString());
            assertEquals(3, n1Files.size(), n1Files.toString());

            assertEquals(2, wal.truncate(22));
            assertEquals(List.of(n0Files.get(1).getName()), cycleFileNames(Wal.nodeDirectory(dir, 0)));
            assertEquals(List.of(n1Files.get(1).getName(), n1Files.get(2).getName()), cycleFileNames(Wal.nodeDirectory(dir, 1)));
            assertEquals(0, wal.truncate(22), "nothing more is covered");

            clock.advanceMillis(1_000);
            append(n0, redo, sequences, 5);                       // 31-35, t3: the flusher forces past the removed files
            n0.awaitAppendedDurable();
            assertEquals(35, wal.durable());
            BackgroundResourceReleaser.releasePendingResources();
            assertEquals(1, wal.truncate(22), "node 0's t1 once node 0 appends elsewhere");
            assertEquals(3, wal.filesRemoved());
            expected.put(0, range(31, 35));
            expected.put(1, range(21, 30));
        }
        for (int node = 0; node < 2; node++) {
            LogReader.Result read = LogReader.read(Wal.nodeDirectory(dir, node));
            assertTrue(read.complete(), read.warning());
            assertEquals(expected.get(node), read.records().stream().map(LogRecord::sequence).toList(), "node " + node);
            for (LogRecord record : read.records()) {
                Redos.assertHolds(Redos.numbered(redo, record.sequence()), record);
            }
        }
    }

    /**
     * A database on two nodes logs across cycle files: node 0 loads in t0 (a first checkpoint removes
     * nothing: t0 is node 0's current file), then both nodes commit in t1, t2 and t3, and a second,
     * quiescent checkpoint (replay start = every number drawn) removes every file but each node's
     * current t3: 3 of node 0's, 2 of node 1's. Both commit in t4 and t5, and the process ends without
     * a final checkpoint (as a crash would leave it). Recovery from the second checkpoint reads the 6
     * records left (one per node in t3, t4, t5), replays the 4 after its replay start, and gives the
     * source's rows exactly.
     *
     * <p>Shown to fail: with neither the file being appended to nor an unreleased one spared in
     * {@link ChronicleCommitLog#truncate}, the first checkpoint already removed node 0's only file.
     */
    @Test
    void recoveryFromACheckpointAndATruncatedLogIsTheDatabase(@TempDir Path dir) {
        Path data = dir.resolve("data");
        Path logs = Recovery.logDirectory(data);
        SetTimeProvider clock = new SetTimeProvider(START);
        Wal wal = Wal.open(logs, Mode.SYNC, secondly(clock));
        Checkpoint.Summary second;
        Map<String, TreeMap<Long, String>> expected;
        long highest;
        try (Database a = source(wal)) {
            DatabaseNode n0 = a.node(0);
            DatabaseNode n1 = a.node(1);
            CheckpointFixtures.fill(n0, new SplittableRandom(5), 200, 20);
            Checkpoint.Summary first = Checkpoint.write(a, data, wal, Map.of());
            assertEquals(0, first.logFilesRemoved(), "node 0's only file is the one it appends to");
            long key = 1;
            for (int cycle = 1; cycle <= 3; cycle++) {
                clock.advanceMillis(1_000);
                key = updateBoth(n0, n1, key);
            }
            BackgroundResourceReleaser.releasePendingResources();
            List<File> n0Files = wal.logForTest(0).cycleFilesForTest();
            List<File> n1Files = wal.logForTest(1).cycleFilesForTest();
            assertEquals(4, n0Files.size(), n0Files.toString());
            assertEquals(3, n1Files.size(), n1Files.toString());

            second = Checkpoint.write(a, data, wal, Map.of());
            assertEquals(a.commitSequence(), second.replayFrom(), "quiescent: every number drawn is covered");
            assertEquals(3 + 2, second.logFilesRemoved());
            assertEquals(List.of(n0Files.getLast().getName()), cycleFileNames(Wal.nodeDirectory(logs, 0)));
            assertEquals(List.of(n1Files.getLast().getName()), cycleFileNames(Wal.nodeDirectory(logs, 1)));

            for (int cycle = 4; cycle <= 5; cycle++) {
                clock.advanceMillis(1_000);
                key = updateBoth(n0, n1, key);
            }
            expected = rows(a);
            highest = a.commitSequence();
            assertEquals(second.replayFrom() + 4, highest);
        }
        try (Database b = fresh()) {
            Recovery.Summary summary = Recovery.recover(b, data);
            System.out.println("LogTruncationTest: " + summary.describe() + " warnings=" + summary.warnings());
            assertEquals(List.of(), summary.warnings());
            assertEquals(second.path(), summary.checkpoint());
            assertEquals(6, summary.recordsRead(), "one record per node in t3, t4 and t5");
            assertEquals(4, summary.replayed());
            assertEquals(highest, summary.lastReplayed());
            for (String table : expected.keySet()) {
                CheckpointFixtures.assertSameRows(expected.get(table), rows(b).get(table), table);
            }
        }
    }

    /**
     * A log of three cycle files whose first file was removed but whose Chronicle metadata still
     * names it as the first cycle (a crash between removing the file and refreshing Chronicle's
     * listing): the reader reads the records of the two files left, complete.
     *
     * <p>Shown to fail: with the reader's tailer left where Chronicle's listing puts it (no move to
     * the lowest file present), it read no record at all, and said the log was complete.
     */
    @Test
    void readsALogWhoseListingStillNamesARemovedFirstFile(@TempDir Path dir) throws IOException {
        SetTimeProvider clock = new SetTimeProvider(START);
        AtomicLong sequences = new AtomicLong();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, Mode.SYNC, secondly(clock))) {
            ChronicleCommitLog log = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            for (int cycle = 0; cycle < 3; cycle++) {
                append(log, redo, sequences, 4);
                clock.advanceMillis(1_000);
            }
        }
        Path node = Wal.nodeDirectory(dir, 0);
        List<String> files = cycleFileNames(node);
        assertEquals(3, files.size(), files.toString());
        Files.delete(node.resolve(files.getFirst())); // behind Chronicle's back: its listing is not refreshed

        LogReader.Result read = LogReader.read(node);
        assertTrue(read.complete(), read.warning());
        assertEquals(range(5, 12), read.records().stream().map(LogRecord::sequence).toList());
    }

    /**
     * A log whose only cycle file Chronicle's listing does not know (a kill between creating the file
     * and listing it: the file holds Chronicle's header and no record): the reader reads nothing and
     * says the log is complete, as it did before it looked for the lowest file present.
     *
     * <p>Found by the kill -9 test: the reader threw "cannot read the log from its first cycle file"
     * and recovery refused the directory. Shown to fail on that code.
     */
    @Test
    void readsNothingFromACycleFileTheListingDoesNotKnow(@TempDir Path dir) throws IOException {
        SetTimeProvider clock = new SetTimeProvider(START);
        try (Wal wal = Wal.open(dir.resolve("listed-nothing"), Mode.SYNC, secondly(clock))) {
            wal.open(0, new AtomicLong()::incrementAndGet); // its queue and metadata, no cycle file
        }
        Path node = Wal.nodeDirectory(dir.resolve("listed-nothing"), 0);
        Path elsewhere = dir.resolve("elsewhere");
        try (net.openhft.chronicle.queue.impl.single.SingleChronicleQueue queue =
                 secondly(clock).apply(SingleChronicleQueueBuilder.binary(elsewhere)).build()) {
            queue.storeForCycle(queue.cycle(), queue.epoch(), true, null).close(); // the header, no record
        }
        List<String> created = cycleFileNames(elsewhere);
        assertEquals(1, created.size(), created.toString());
        Files.copy(elsewhere.resolve(created.getFirst()), node.resolve(created.getFirst()));

        LogReader.Result read = LogReader.read(node);
        assertTrue(read.complete(), read.warning());
        assertEquals(List.of(), read.records());
    }

    /**
     * A fuzzy checkpoint (transactions committed on node 1 during its scan, so its rows are consistent
     * only once the log is replayed past its covered number); then node 1's cycle file, which holds
     * those transactions, is removed (as a truncation past the replay start would). Recovery refuses,
     * naming the number it needs, and changes nothing in the data directory.
     *
     * <p>Shown to fail: with {@link Recovery#recover}'s check of the covered number removed, the
     * recovery went through (nothing was thrown).
     */
    @Test
    void recoveryRefusesACheckpointWhoseRecordsWereRemoved(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        Path logs = Recovery.logDirectory(data);
        Wal wal = Wal.open(logs, Mode.SYNC, secondly(new SetTimeProvider(START)));
        Checkpoint.Summary fuzzy = null;
        try (Database a = source(wal)) {
            DatabaseNode n0 = a.node(0);
            DatabaseNode n1 = a.node(1);
            // More rows than two scan chunks: the scan spans several transactions, with commits between them.
            CheckpointFixtures.fill(n0, new SplittableRandom(6), 5_000, 20);
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<?> worker = pool.submit(() -> {
                    for (long key = 1; !stop.get(); key = key % 4_000 + 1) {
                        if (key % 7 != 0) { // fill deleted every seventh
                            long k = key;
                            CheckpointFixtures.commit(n1, tx -> assertTrue(tx.update(n1.table("customer"), k,
                                row -> row.setMoney(C_BALANCE, k))));
                        }
                    }
                    return null;
                });
                for (int attempt = 0; attempt < 20 && fuzzy == null; attempt++) {
                    Checkpoint.Summary s = Checkpoint.write(a, data, wal, Map.of());
                    if (s.coveredThrough() > s.replayFrom()) {
                        fuzzy = s;
                    }
                    if (worker.isDone()) {
                        worker.get(); // its failure, not a hang
                    }
                }
                stop.set(true);
                worker.get();
            } finally {
                stop.set(true);
                pool.shutdownNow();
            }
            assertNotNull(fuzzy, "no checkpoint had a commit during its scan in 20 tries");
        }
        Path node1 = Wal.nodeDirectory(logs, 1);
        List<String> node1Files = cycleFileNames(node1);
        assertEquals(1, node1Files.size(), "the test clock stood still: " + node1Files);
        Files.delete(node1.resolve(node1Files.getFirst()));
        List<String> before = CheckpointTest.list(data);
        List<String> node0Files = cycleFileNames(Wal.nodeDirectory(logs, 0));
        try (Database b = fresh()) {
            Checkpoint.Summary checkpoint = fuzzy;
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Recovery.recover(b, data));
            assertTrue(e.getMessage().contains("end at sequence " + checkpoint.replayFrom() + ", before "
                + checkpoint.coveredThrough()), e.getMessage());
        }
        assertEquals(before, CheckpointTest.list(data), "the data directory is unchanged");
        assertEquals(node0Files, cycleFileNames(Wal.nodeDirectory(logs, 0)), "node 0's log is unchanged");
    }

    /**
     * A crashed compute node is repaired from a base and the records after it ({@link Wal#openRepair}):
     * node 0 appends 1-5 in t0 and 6-10 in t1.
     * <ul>
     *   <li>A truncation through 5 with no checkpoint (the base is memory when logging started) removes
     *       t0; the repair then refuses, naming what was removed, and {@code canReadBack}, which
     *       {@code Database.crashRefusal} asks, says no.</li>
     *   <li>A checkpoint published with replay start 5 removes t0 too, but becomes the base: the repair
     *       reads 6-10 only, from that checkpoint.</li>
     *   <li>While a repair source is open, a checkpoint published removes neither the older checkpoint
     *       nor log files (the repair may be reading them); the next one after it closed does.</li>
     * </ul>
     *
     * <p>Shown to fail: with {@code openRepair} not checking for removed files, nothing was thrown
     * (records 1-5 were gone, and the repair would not have known); with {@code checkpointPublished}
     * ignoring open repairs, t1 was removed under the open source.
     */
    @Test
    void aRepairReadsFromItsBaseAndNothingItReadsIsRemovedUnderIt(@TempDir Path dir) {
        for (boolean checkpoint : new boolean[] {false, true}) {
            Path logs = dir.resolve(checkpoint ? "checkpointed" : "truncated");
            SetTimeProvider clock = new SetTimeProvider(START);
            AtomicLong sequences = new AtomicLong();
            Redo redo = new Redo();
            try (Wal wal = Wal.open(logs, Mode.SYNC, secondly(clock))) {
                ChronicleCommitLog log = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
                append(log, redo, sequences, 5);
                clock.advanceMillis(1_000);
                append(log, redo, sequences, 5);
                clock.advanceMillis(1_000);
                append(log, redo, sequences, 5);
                log.awaitAppendedDurable();
                BackgroundResourceReleaser.releasePendingResources();
                assertTrue(wal.canReadBack());
                java.util.TreeSet<Long> read = new java.util.TreeSet<>();
                if (!checkpoint) {
                    assertEquals(1, wal.truncate(5));
                    assertFalse(wal.canReadBack(), "what a crashed node's repair is told (Database.crashRefusal)");
                    IllegalStateException e = assertThrows(IllegalStateException.class, wal::openRepair);
                    assertTrue(e.getMessage().contains("log files through 5 were removed"), e.getMessage());
                    continue;
                }
                int[] olderRemoved = {0};
                assertEquals(1, wal.checkpointPublished(touch(dir.resolve("checkpoint-5.ckpt")), 5, 0, () -> olderRemoved[0]++));
                assertEquals(1, olderRemoved[0]);
                assertTrue(wal.canReadBack(), "the checkpoint is the base");
                try (CommitLog.RepairSource source = wal.openRepair()) {
                    assertTrue(source.baseIsCheckpoint());
                    assertTrue(source.describeBase().contains("checkpoint-5.ckpt"), source.describeBase());
                    assertEquals(0, wal.checkpointPublished(touch(dir.resolve("checkpoint-10.ckpt")), 10, 0, () -> olderRemoved[0]++),
                        "nothing removed under an open repair");
                    assertEquals(1, olderRemoved[0], "the older checkpoint stays under an open repair");
                    source.forEachChange((sequence, kind, tableId, key, recordId, image) -> read.add(sequence));
                    assertEquals(range(6, 15), List.copyOf(read), "the records after the base");
                }
                try (CommitLog.RepairSource source = wal.openRepair()) {
                    assertTrue(source.describeBase().contains("checkpoint-10.ckpt"), "the newest is the base now");
                    read.clear();
                    source.forEachChange((sequence, kind, tableId, key, recordId, image) -> read.add(sequence));
                    assertEquals(range(11, 15), List.copyOf(read));
                }
                assertEquals(1, wal.checkpointPublished(touch(dir.resolve("checkpoint-10.ckpt")), 10, 0, () -> olderRemoved[0]++),
                    "once the repair closed, t1 goes");
                assertEquals(2, olderRemoved[0]);
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    /** An empty file at {@code path} (a checkpoint the repair would read: it must exist). */
    private static Path touch(Path path) {
        try {
            if (!Files.exists(path)) {
                Files.createFile(path);
            }
            return path;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A cycle file per second of {@code clock}. */
    private static UnaryOperator<SingleChronicleQueueBuilder> secondly(SetTimeProvider clock) {
        return b -> b.rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock);
    }

    /** Appends the next {@code count} records, each numbered as the sequence number it draws from {@code sequences}. */
    private static void append(CommitLog log, Redo redo, AtomicLong sequences, int count) {
        for (int i = 0; i < count; i++) {
            long next = sequences.get() + 1; // one appending thread: the number the append draws
            assertEquals(next, log.append(Redos.numbered(redo, next)));
        }
    }

    private static List<Long> range(long from, long to) {
        List<Long> numbers = new ArrayList<>();
        for (long s = from; s <= to; s++) {
            numbers.add(s);
        }
        return numbers;
    }

    /** The Chronicle cycle files in a node's log directory, sorted by name (= by cycle). */
    private static List<String> cycleFileNames(Path node) {
        try (Stream<Path> files = Files.list(node)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".cq4")).sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** One update on each node, of customers {@code key} and the next (never multiples of 7); returns the key after. */
    private static long updateBoth(DatabaseNode n0, DatabaseNode n1, long key) {
        long next = key;
        for (DatabaseNode node : List.of(n0, n1)) {
            if (next % 7 == 0) {
                next++;
            }
            long k = next;
            CheckpointFixtures.commit(node, tx -> assertTrue(tx.update(node.table("customer"), k,
                row -> row.setMoney(C_BALANCE, 1_000 + k))));
            next++;
        }
        return next;
    }

    /** Two compute nodes, both opened before anything commits (see RecoveryTest#source). */
    private static Database source(CommitLog.Factory logs) {
        Database db = Database.builder().cc("2pl").computeNodes(2).table(CUSTOMERS).table(ITEMS).index(BY_DISTRICT)
            .commitLog(logs).build();
        for (int n = 0; n < db.computeNodeCount(); n++) {
            db.node(n);
        }
        return db;
    }

    private static Database fresh() {
        return Database.builder().cc("2pl").computeNodes(2).table(CUSTOMERS).table(ITEMS).index(BY_DISTRICT).build();
    }

    private static Map<String, TreeMap<Long, String>> rows(Database db) {
        DatabaseNode node = db.node(0);
        Map<String, TreeMap<Long, String>> rows = new TreeMap<>();
        for (Table table : node.tables()) {
            rows.put(table.name(), CheckpointFixtures.rows(node, table));
        }
        return rows;
    }
}
