package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * A wall clock that steps back (an NTP correction, a hand-set clock) must not make a log's directory
 * unrecoverable: Chronicle picks an append's cycle file by the time, and an append into an earlier
 * cycle file than the newest is out of the order a reader goes through the files. The logs' time
 * ({@link MonotonicCycleTime}) never goes back behind the newest cycle used, in one log's life or across
 * a reopen. One-second cycle files and a test clock that the test steps back.
 *
 * <p>Shown to fail with the test clock handed to Chronicle as it is (before issue 28's review), in both
 * cases worse than a refused directory: the reader read records 1 and 2 and called the log complete, so
 * the records appended after the step back (acknowledged commits) were silently not there for recovery.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class ClockStepBackTest {
    private static final long START = TimeUnit.DAYS.toMillis(20_000);

    /** A wall clock the test sets, back as well as forward (Chronicle's {@code SetTimeProvider} refuses to go back). */
    private static final class SteppingClock extends AtomicLong implements TimeProvider {
        SteppingClock(long millis) {
            super(millis);
        }

        @Override
        public long currentTimeMillis() {
            return get();
        }

        void advanceMillis(long millis) {
            addAndGet(millis);
        }
    }

    @Test
    void anAppendAfterTheClockSteppedBackStaysInTheNewestCycle(@TempDir Path dir) throws IOException {
        SteppingClock clock = new SteppingClock(START);
        AtomicLong sequences = new AtomicLong();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, Mode.SYNC, b -> b.rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock))) {
            CommitLog log = wal.open(0, sequences::incrementAndGet);
            log.append(Redos.numbered(redo, 1));
            clock.advanceMillis(2_000);
            log.append(Redos.numbered(redo, 2));
            clock.set(START); // two seconds back: the first cycle's time again
            log.append(Redos.numbered(redo, 3));
            clock.advanceMillis(3_000); // past the newest cycle: the log rolls on
            log.append(Redos.numbered(redo, 4));
            log.awaitAppendedDurable();
        }
        assertReadsInOrder(Wal.nodeDirectory(dir, 0), 4);
        assertEquals(3, cycleFiles(Wal.nodeDirectory(dir, 0)), "the cycles of seconds 0, 2 and 3; none written twice");
    }

    @Test
    void aLogReopenedWithTheClockBehindItsNewestFileAppendsThere(@TempDir Path dir) throws IOException {
        SteppingClock clock = new SteppingClock(START);
        AtomicLong sequences = new AtomicLong();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, Mode.SYNC, b -> b.rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(clock))) {
            CommitLog log = wal.open(0, sequences::incrementAndGet);
            log.append(Redos.numbered(redo, 1));
            clock.advanceMillis(2_000);
            log.append(Redos.numbered(redo, 2));
            log.awaitAppendedDurable();
        }
        SteppingClock behind = new SteppingClock(START); // a restart with the clock set back
        try (Wal wal = Wal.open(dir, Mode.SYNC, b -> b.rollCycle(TestRollCycles.TEST_SECONDLY).timeProvider(behind))) {
            CommitLog log = wal.open(0, 2, sequences::incrementAndGet);
            log.append(Redos.numbered(redo, 3));
            log.awaitAppendedDurable();
        }
        assertReadsInOrder(Wal.nodeDirectory(dir, 0), 3);
        assertEquals(2, cycleFiles(Wal.nodeDirectory(dir, 0)), "the third record went into the newest file");
    }

    private static long cycleFiles(Path node) throws IOException {
        try (Stream<Path> files = Files.list(node)) {
            return files.filter(f -> f.toString().endsWith(".cq4")).count();
        }
    }

    /** The log reads back whole, numbered 1..records in order (a reader refuses a log out of order). */
    private static void assertReadsInOrder(Path node, int records) {
        LogReader.Result read = LogReader.read(node);
        assertTrue(read.complete(), read.warning());
        List<Long> numbers = read.records().stream().map(LogRecord::sequence).toList();
        assertEquals(java.util.stream.LongStream.rangeClosed(1, records).boxed().toList(), numbers);
    }
}
