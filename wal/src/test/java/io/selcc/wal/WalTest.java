package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import io.selcc.wal.Redos.Change;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * {@link Wal}: group commit, the durable watermark across logs, ASYNC, failures. A waiter blocks
 * uninterruptibly, so every test that waits runs under a timeout in a separate thread: a hang fails.
 * No sleeps: a test that needs a waiter parked checks {@link Wal#waiters}.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class WalTest {
    private static final int THREADS = 8;
    private static final int APPENDS_PER_THREAD = 200;

    /**
     * 8 threads on two logs, each appending 200 transactions and awaiting each one's durability: every
     * wait ends with W at or past its sequence number, forces are fewer than appends, the counters are
     * exact, and both logs read back hold sequence numbers 1..1600 once each, with their writers' rows.
     *
     * <p>Shown to fail: with awaitDurable's loop testing {@code durable < sequence - 1}, a worker saw
     * W below its sequence number after the wait.
     */
    @Test
    void groupCommitCoversEveryAppendBeforeTheForce(@TempDir Path dir) throws Exception {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, Mode.SYNC)) {
            CommitLog[] logs = {wal.open(0, sequences::incrementAndGet), wal.open(1, sequences::incrementAndGet)};
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    CommitLog log = logs[t % logs.length];
                    workers.add(pool.submit(() -> {
                        Redo redo = new Redo();
                        for (int i = 0; i < APPENDS_PER_THREAD; i++) {
                            // The rows carry nothing of the sequence number: the check below matches by key.
                            long key = Thread.currentThread().threadId() * 1_000_000 + i;
                            long sequence = log.append(Redos.numbered(redo, key));
                            assertTrue(sequence > 0, "append failed");
                            log.awaitDurable(sequence);
                            long durable = wal.durable();
                            if (durable < sequence) {
                                throw new AssertionError("awaitDurable returned early: sequence=" + sequence + " durable=" + durable);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> worker : workers) {
                    worker.get();
                }
            } finally {
                pool.shutdownNow();
            }
            Wal.Counters counters = wal.counters();
            System.out.println("WalTest group commit: all=" + counters + " node0=" + wal.counters(0) + " node1=" + wal.counters(1));
            assertEquals(THREADS * APPENDS_PER_THREAD, counters.appends());
            assertEquals(THREADS * APPENDS_PER_THREAD / 2, wal.counters(0).appends());
            assertTrue(counters.forces() < counters.appends(), "no force covered two appends: " + counters);
            assertEquals(THREADS * APPENDS_PER_THREAD, wal.durable());
        }
        boolean[] seen = new boolean[THREADS * APPENDS_PER_THREAD + 1];
        Redo redo = new Redo();
        for (int node = 0; node < 2; node++) {
            LogReader.Result read = LogReader.read(Wal.nodeDirectory(dir, node));
            assertTrue(read.complete(), read.warning());
            assertEquals(THREADS * APPENDS_PER_THREAD / 2, read.records().size());
            long previous = 0;
            for (LogRecord record : read.records()) {
                assertTrue(record.sequence() > previous, "a log holds its sequence numbers in order");
                previous = record.sequence();
                assertTrue(!seen[(int) record.sequence()], "sequence " + record.sequence() + " twice");
                seen[(int) record.sequence()] = true;
                assertEquals(node, record.computeNode());
                Redos.assertHolds(Redos.numbered(redo, record.entries().getFirst().key()), record);
            }
        }
    }

    /**
     * Log B appends sequence number 2 and forces it while log A has not appended 1: a waiter for 2
     * stays parked, and returns once A appends 1 and forces it.
     *
     * <p>Shown to fail: with {@code published} setting W to the highest sequence number forced (past
     * the gap at 1), the waiter returned at once.
     */
    @Test
    void theWatermarkWaitsForAGapInAnotherLog(@TempDir Path dir) throws Exception {
        try (Wal wal = Wal.open(dir, Mode.SYNC)) {
            CommitLog a = wal.open(0, () -> 1);
            CommitLog b = wal.open(1, () -> 2);
            Redo redo = new Redo();
            assertEquals(2, b.append(Redos.numbered(redo, 2)));
            while (!wal.forced(2)) {
                Thread.onSpinWait(); // B's flusher forces 2 and publishes it
            }
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<?> waiter = pool.submit(() -> b.awaitDurable(2));
                while (wal.waiters() == 0 && !waiter.isDone()) {
                    Thread.onSpinWait();
                }
                assertTrue(!waiter.isDone(), "the waiter for 2 returned while 1 was not even appended");
                assertEquals(0, wal.durable());
                assertEquals(1, a.append(Redos.numbered(redo, 1)));
                waiter.get();
                assertEquals(2, wal.durable());
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /**
     * ASYNC: an append publishes its own number, so every wait returns at once with the flushers not
     * yet started, and nothing is ever forced; the records are in the log.
     *
     * <p>Shown to fail: with ASYNC logs opened as forcing ones, {@code forces} was 3 (the file,
     * metadata.cq4t and the directory); with the appends not publishing themselves (the flusher did,
     * every millisecond, before issue 28), the first wait never returned (the test's timeout ended it).
     */
    @Test
    void asyncNeverForcesAndAcknowledgesAtTheAppend(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        Wal wal = Wal.open(dir, Mode.ASYNC);
        try (wal) {
            wal.holdFlushersForTest();
            ChronicleCommitLog log = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            Redo redo = new Redo();
            for (int i = 1; i <= 100; i++) {
                long sequence = log.append(Redos.numbered(redo, i));
                assertEquals(i, sequence);
                log.awaitDurable(sequence);
                log.awaitAppendedDurable();
            }
            assertEquals(100, wal.durable(), "W is the dense prefix of appended numbers");
            log.startFlusher();
        }
        assertEquals(100, wal.durable());
        assertEquals(new Wal.Counters(100, 0, wal.counters().bytes()), wal.counters());
        assertEquals(100, LogReader.read(Wal.nodeDirectory(dir, 0)).records().size());
    }

    /**
     * ASYNC with two logs: node 0 draws number 1 and stalls before appending it (the number supplier
     * blocks after drawing, as a descheduled thread would); node 1 draws 2 and appends it. Its commit
     * must not be acknowledged yet: a kill now would leave a gap at 1, recovery replays only the numbers
     * below the first gap, and the acknowledged 2 would be gone. Once 1 is appended, the wait for 2
     * returns.
     *
     * <p>Shown to fail: with ASYNC's wait returning at once (before issue 28), the wait for 2 returned
     * while 1 was not appended ("acknowledged past a gap").
     */
    @Test
    void asyncDoesNotAcknowledgePastANumberNotYetAppended(@TempDir Path dir) throws Exception {
        AtomicLong sequences = new AtomicLong();
        java.util.concurrent.CountDownLatch drawn = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
        java.util.function.LongSupplier stallingAfterDraw = () -> {
            long sequence = sequences.incrementAndGet();
            drawn.countDown();
            try {
                resume.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return sequence;
        };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Wal wal = Wal.open(dir, Mode.ASYNC)) {
            CommitLog stalled = wal.open(0, stallingAfterDraw);
            CommitLog other = wal.open(1, sequences::incrementAndGet);
            Future<Long> first = pool.submit(() -> stalled.append(Redos.numbered(new Redo(), 1)));
            try {
                assertTrue(drawn.await(30, TimeUnit.SECONDS), "node 0 drew its number");
                long second = other.append(Redos.numbered(new Redo(), 2));
                assertEquals(2, second);
                Future<?> acknowledged = pool.submit(() -> other.awaitDurable(second));
                while (wal.waiters() == 0) {
                    assertTrue(!acknowledged.isDone(), "acknowledged past a gap: number 1 is drawn but not appended");
                    Thread.onSpinWait();
                }
                assertEquals(0, wal.durable(), "nothing is acknowledged while number 1 is not appended");
                resume.countDown();
                assertEquals(1, first.get(30, TimeUnit.SECONDS));
                acknowledged.get(30, TimeUnit.SECONDS);
                assertEquals(2, wal.durable());
            } finally {
                resume.countDown(); // before the close, which waits for the stalled append
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A write that throws (flushers held, so nothing is forced yet): the append returns FAILED and its
     * sequence number, 3, is a gap. A waiter already parked for 3, and any later wait above it, get
     * IllegalStateException naming the failed log's directory; a waiter for 2, below the gap, returns
     * once the flushers force 1 and 2; the failed log draws no more sequence numbers.
     *
     * <p>Shown to fail: with {@code lost} not signalling, the parked waiter for 3 never woke (the test's
     * timeout ended it); with every wait above W failing once a log failed, the waiter for 2 threw.
     */
    @Test
    void aFailedAppendFailsTheWaitersAboveIt(@TempDir Path dir) throws Exception {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, Mode.SYNC)) {
            wal.holdFlushersForTest();
            ChronicleCommitLog a = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            ChronicleCommitLog b = (ChronicleCommitLog) wal.open(1, sequences::incrementAndGet);
            Redo redo = new Redo();
            assertEquals(1, a.append(Redos.numbered(redo, 1)));
            assertEquals(2, b.append(Redos.numbered(redo, 2)));
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<?> waiterAbove = pool.submit(() -> b.awaitDurable(3));
                while (wal.waiters() < 1) {
                    Thread.onSpinWait();
                }
                a.breakAppendsForTest();
                assertEquals(CommitLog.FAILED, a.append(Redos.numbered(redo, 3)));
                ExecutionException failed = assertThrows(ExecutionException.class, waiterAbove::get);
                assertInstanceOf(IllegalStateException.class, failed.getCause());
                assertTrue(failed.getCause().getMessage().contains(a.directory().toString()), failed.getCause().getMessage());

                Future<?> waiterBelow = pool.submit(() -> b.awaitDurable(2));
                while (wal.waiters() < 1 && !waiterBelow.isDone()) {
                    Thread.onSpinWait();
                }
                a.startFlusher();
                b.startFlusher();
                waiterBelow.get();
            } finally {
                pool.shutdownNow();
            }
            assertEquals(4, b.append(Redos.numbered(redo, 4)));
            IllegalStateException later = assertThrows(IllegalStateException.class, () -> b.awaitDurable(4));
            assertTrue(later.getMessage().contains("node-0"), later.getMessage());
            assertEquals(CommitLog.FAILED, a.append(Redos.numbered(redo, 5)));
            assertEquals(4, sequences.get(), "a failed log draws no sequence number");
            assertEquals(2, wal.durable());
        }
    }

    /**
     * A force that throws: what it covered can never be durable, the waiters for it fail, and the
     * log refuses further appends.
     *
     * <p>Shown to fail: with the flusher swallowing the exception instead of reporting what it
     * covered as lost, the wait for 2 never returned (the test's timeout ended it).
     */
    @Test
    void aFailedForceFailsWhatItCovered(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, Mode.SYNC)) {
            ChronicleCommitLog log = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            Redo redo = new Redo();
            log.awaitDurable(log.append(Redos.numbered(redo, 1)));
            log.breakForcesForTest();
            assertEquals(2, log.append(Redos.numbered(redo, 2)));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> log.awaitDurable(2));
            assertTrue(e.getMessage().contains("force failed"), e.getMessage());
            assertThrows(IllegalStateException.class, log::awaitAppendedDurable);
            assertEquals(CommitLog.FAILED, log.append(Redos.numbered(redo, 3)));
            assertEquals(1, wal.durable());
        }
    }

    /**
     * A record longer than a Chronicle document may be (the overlap, 64 KiB with 256 KiB blocks) is
     * refused before a sequence number is drawn and the log goes on; the longest one that fits is written.
     *
     * <p>Shown to fail: without the length check, Chronicle's write threw, the log failed and sequence
     * number 1 was drawn and lost.
     */
    @Test
    void anOversizedTransactionIsRefusedAlone(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, Mode.SYNC, builder -> builder.blockSize(256 << 10))) {
            ChronicleCommitLog log = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            int max = log.maxRecordLength();
            int fits = max - LogRecordLayout.HEADER_LENGTH - LogRecordLayout.ENTRY_HEADER_LENGTH;
            Redo largest = Redos.of(List.of(new Change(Redo.INSERT, 1, 1, new byte[fits])));
            Redo tooLarge = Redos.of(List.of(new Change(Redo.INSERT, 1, 1, new byte[fits + 1])));
            assertEquals(CommitLog.FAILED, log.append(tooLarge));
            assertEquals(0, sequences.get());
            assertEquals(1, log.append(largest));
            log.awaitDurable(1);
            assertEquals(2, log.append(Redos.numbered(new Redo(), 2)));
            log.awaitDurable(2);
        }
        List<LogRecord> records = LogReader.read(Wal.nodeDirectory(dir, 0)).records();
        assertEquals(2, records.size());
    }

    /**
     * Close forces what was appended (the flusher is held until then, so nothing was forced before),
     * after it waiting for what was never appended throws instead of hanging; close is idempotent.
     *
     * <p>Shown to fail: with the flusher taking no batch once the log is closing, W stayed 0; with
     * {@code closed} never set, the wait for 11 never returned (the test's timeout ended it).
     */
    @Test
    void closeForcesAndEndsTheWaits(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        Wal wal = Wal.open(dir, Mode.SYNC);
        wal.holdFlushersForTest();
        CommitLog log = wal.open(0, sequences::incrementAndGet);
        assertThrows(IllegalStateException.class, () -> wal.open(0, sequences::incrementAndGet));
        Redo redo = new Redo();
        for (int i = 1; i <= 10; i++) {
            log.append(Redos.numbered(redo, i));
        }
        wal.close();
        assertEquals(10, wal.durable(), "close forces what was appended");
        assertThrows(IllegalStateException.class, () -> log.awaitDurable(11));
        assertThrows(IllegalStateException.class, () -> log.append(redo));
        wal.close();
        log.close();
        assertThrows(IllegalStateException.class, () -> wal.open(1, sequences::incrementAndGet));
    }

    /**
     * ASYNC forces nothing, but a number lost to a failed append is still a gap that recovery stops at:
     * a commit numbered after it must not be acknowledged. Planted bug this caught (found in review):
     * ASYNC's wait returning at once whatever was lost (the wait for 2 returned).
     */
    @Test
    void asyncRefusesToAcknowledgePastALostNumber(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, Mode.ASYNC)) {
            ChronicleCommitLog a = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            ChronicleCommitLog b = (ChronicleCommitLog) wal.open(1, sequences::incrementAndGet);
            Redo redo = new Redo();
            a.breakAppendsForTest();
            assertEquals(CommitLog.FAILED, a.append(Redos.numbered(redo, 1)));
            long next = b.append(Redos.numbered(redo, 2));
            assertEquals(2, next);
            IllegalStateException e = assertThrows(CommitLog.NotDurableException.class, () -> b.awaitDurable(next));
            assertTrue(e.getMessage().contains("lostFrom=1"), e.getMessage());
            assertThrows(IllegalStateException.class, b::awaitAppendedDurable);
        }
    }

    /**
     * ASYNC on demand ({@link Wal#forceThrough}, a checkpoint's): every log forces what it appended
     * (counted, each through its last append) while commits stay unforced; a number lost to a failed
     * append cannot be forced through (the message names it), a number below it still can.
     *
     * <p>Shown to fail: with forceThrough only asking the logs to force (no wait for the numbers up to
     * it to be appended), the force through the lost number 3 returned.
     */
    @Test
    void asyncForcesOnDemandAndNotPastALostNumber(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(dir, Mode.ASYNC)) {
            ChronicleCommitLog a = (ChronicleCommitLog) wal.open(0, sequences::incrementAndGet);
            ChronicleCommitLog b = (ChronicleCommitLog) wal.open(1, sequences::incrementAndGet);
            Redo redo = new Redo();
            assertEquals(1, a.append(Redos.numbered(redo, 1)));
            assertEquals(2, b.append(Redos.numbered(redo, 2)));
            a.awaitDurable(2);
            assertEquals(0, wal.counters().forces(), "ASYNC commits force nothing");

            wal.forceThrough(2);
            assertTrue(wal.counters(0).forces() >= 1 && wal.counters(1).forces() >= 1, wal.counters().toString());
            assertEquals(1, a.forcedThroughForTest());
            assertEquals(2, b.forcedThroughForTest());

            a.breakAppendsForTest();
            assertEquals(CommitLog.FAILED, a.append(Redos.numbered(redo, 3)));
            assertEquals(4, b.append(Redos.numbered(redo, 4)));
            wal.forceThrough(2);
            IllegalStateException e = assertThrows(CommitLog.NotDurableException.class, () -> wal.forceThrough(4));
            assertTrue(e.getMessage().contains("lostFrom=3") && e.getMessage().contains("node-0"), e.getMessage());
        }
    }
}
