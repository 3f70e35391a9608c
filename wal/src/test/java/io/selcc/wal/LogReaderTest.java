package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * {@link LogReader}: records come back as written, in order; the log is cut at the first damaged
 * record, with a warning naming the cycle file and the record's place.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class LogReaderTest {
    private static final int RECORDS = 100;
    private static final int DAMAGED = 60;

    /** Ways a record's bytes can be wrong on disk once Chronicle's own header is complete. */
    enum Harm {
        /** One bit of an image flipped. */
        BIT_ROT,
        /** The second half of the record is zeros (a torn write of the payload). */
        ZEROED_TAIL,
        /** The whole record is zeros. */
        ZEROED
    }

    /**
     * 100 records, the 60th damaged in the cycle file: the reader returns exactly the first 59 and a
     * warning naming the directory, the file and the record's index and position.
     *
     * <p>Shown to fail: with the reader skipping a damaged record instead of stopping, it returned 99.
     */
    @ParameterizedTest
    @EnumSource(Harm.class)
    void cutsTheLogAtTheFirstDamagedRecord(Harm harm, @TempDir Path dir) throws IOException {
        writeNumbered(dir, Mode.ASYNC, RECORDS);
        Path node = Wal.nodeDirectory(dir, 0);
        Path cycleFile = damage(node, DAMAGED, harm);

        LogReader.Result read = LogReader.read(node);
        assertEquals(DAMAGED - 1, read.records().size());
        Redo redo = new Redo();
        for (int i = 0; i < DAMAGED - 1; i++) {
            LogRecord record = read.records().get(i);
            assertEquals(i + 1, record.sequence());
            Redos.assertHolds(Redos.numbered(redo, i + 1), record);
        }
        String warning = read.warning();
        assertTrue(warning.contains(node.toString()), warning);
        assertTrue(warning.contains(cycleFile.getFileName().toString()), warning);
        assertTrue(warning.contains("index=0x") && warning.contains("position="), warning);
    }

    /**
     * A SYNC log rolls through four cycle files before its flusher starts: the flusher's first force
     * covers all four (each with Chronicle's metadata file and the directory, as each is new), and the
     * records come back in order from all of them.
     *
     * <p>Shown to fail: with the flusher forcing only the last file of a batch, {@code forces} was 3.
     */
    @Test
    void oneForceCoversEveryCycleFileAndTheReaderReadsThemAll(@TempDir Path dir) throws IOException {
        SetTimeProvider clock = new SetTimeProvider(TimeUnit.DAYS.toNanos(20_000));
        AtomicLong sequences = new AtomicLong();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, Mode.SYNC, b -> b.rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock))) {
            wal.holdFlushersForTest();
            ChronicleCommitLog log = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            for (int i = 1; i <= 30; i++) {
                if (i % 10 == 0) {
                    clock.advanceMillis(1_000);
                }
                log.append(Redos.numbered(redo, i));
            }
            log.startFlusher();
            log.awaitAppendedDurable();
            assertEquals(30, wal.durable());
            assertEquals(3 * 4 + 2, wal.counters().forces(),
                "a cycle file, metadata.cq4t and the directory per new file; the two directories above with the first");
        }
        Path node = Wal.nodeDirectory(dir, 0);
        try (Stream<Path> files = Files.list(node)) {
            assertEquals(4, files.filter(f -> f.toString().endsWith(".cq4")).count());
        }
        LogReader.Result read = LogReader.read(node);
        assertTrue(read.complete(), read.warning());
        assertEquals(30, read.records().size());
        for (int i = 0; i < 30; i++) {
            Redos.assertHolds(Redos.numbered(redo, i + 1), read.records().get(i));
        }
    }

    @Test
    void refusesAMissingDirectory(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> LogReader.read(dir.resolve("node-9")));
    }

    /** A node that opened its log and committed nothing has an empty, complete log. */
    @Test
    void readsALogWithNoRecords(@TempDir Path dir) {
        writeNumbered(dir, Mode.SYNC, 0);
        LogReader.Result read = LogReader.read(Wal.nodeDirectory(dir, 0));
        assertTrue(read.complete(), read.warning());
        assertEquals(List.of(), read.records());
    }

    private static void writeNumbered(Path dir, Mode mode, int records) {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, mode)) {
            CommitLog log = wal.open(0, sequences::incrementAndGet);
            Redo redo = new Redo();
            for (int i = 1; i <= records; i++) {
                assertEquals(i, log.append(Redos.numbered(redo, i)));
            }
        }
    }

    /** Harms record {@code sequence} where it lies in the node's cycle file (found by its bytes); returns the file. */
    private static Path damage(Path node, long sequence, Harm harm) throws IOException {
        Redo redo = Redos.numbered(new Redo(), sequence);
        byte[] record = new byte[LogRecordLayout.encodedLength(redo)];
        LogRecordLayout.encode(redo, sequence, 0, record, new CRC32C());
        List<Path> cycleFiles;
        try (Stream<Path> files = Files.list(node)) {
            cycleFiles = files.filter(f -> f.toString().endsWith(".cq4")).toList();
        }
        assertEquals(1, cycleFiles.size(), cycleFiles.toString());
        Path file = cycleFiles.getFirst();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            byte[] head = new byte[(int) Math.min(raf.length(), 1 << 20)];
            raf.readFully(head);
            int at = CapturingLogs.indexOf(head, record);
            assertTrue(at > 0, "record not found in " + file);
            switch (harm) {
                case BIT_ROT -> record[record.length - 3] ^= 0x10;
                case ZEROED_TAIL -> Arrays.fill(record, record.length / 2, record.length, (byte) 0);
                case ZEROED -> Arrays.fill(record, (byte) 0);
            }
            raf.seek(at);
            raf.write(record);
        }
        return file;
    }
}
