package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.DurabilityWord;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * The durable watermark across processes ({@link Wal#shareWatermark}): log groups that stand for compute
 * nodes in separate processes, over one log directory, drawing commit numbers from one counter and
 * publishing their durability words in {@link WordsInMemory} (shared memory without a fabric; each call
 * counted as its one round trip). A waiter blocks uninterruptibly, so the tests run under a timeout in a
 * separate thread: a hang fails. No sleeps: where a test needs the flushers to have exchanged the words
 * a few times, it counts the exchanges.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class SharedWatermarkTest {
    /**
     * Node 0 commits s0 and its forcer stalls (its {@code fdatasync} blocks); node 1 commits s0 + 1, as a
     * transaction that read node 0's commit would be numbered. Node 1's record is forced and its word passes
     * s0 + 1, yet its commit is not acknowledged while node 0's word stays below s0: across ten more
     * exchanges of node 1 its wait goes on. Once node 0's force returns, both are acknowledged.
     *
     * <p>Shown to fail with the old rule (a process's log waits for its own records only, the other
     * numbers counted as forced elsewhere: {@code Wal.othersDrawNumbers} before issue 28), planted as the
     * minimum taken over this node's own word alone: node 1's commit was acknowledged while node 0's
     * record was unforced ("node 1's commit was acknowledged ...").
     */
    @Test
    void aCommitWaitsForAnotherProcesssUnforcedCommitBelowIt(@TempDir Path dir) throws Exception {
        WordsInMemory memory = new WordsInMemory(2);
        StallingForcing stalling = new StallingForcing();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Wal zero = Wal.open(dir, Mode.SYNC, UnaryOperator.identity(), stalling).shareWatermark();
             Wal one = Wal.open(dir, Mode.SYNC).shareWatermark()) {
            CommitLog a = zero.open(0, 0, memory::draw, memory.of(0));
            CommitLog b = one.open(1, 0, memory::draw, memory.of(1));
            try {
                whileNode0Stalls(memory, stalling, pool, zero, one, a, b);
            } finally {
                stalling.release(); // before the logs close: the stalled flusher must finish
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@link #aCommitWaitsForAnotherProcesssUnforcedCommitBelowIt} once both logs are open. */
    private static void whileNode0Stalls(WordsInMemory memory, StallingForcing stalling, ExecutorService pool, Wal zero,
                                         Wal one, CommitLog a, CommitLog b) throws Exception {
        stalling.stall();
        Redo redo = new Redo();
        long s0 = a.append(Redos.numbered(redo, 1));
        Future<?> zeroAcknowledged = pool.submit(() -> a.awaitDurable(s0));
        long s1 = b.append(Redos.numbered(redo, 2));
        assertEquals(s0 + 1, s1);
        Future<?> oneAcknowledged = pool.submit(() -> b.awaitDurable(s1));
        stalling.awaitStalled();
        awaitTrue(() -> DurabilityWord.through(memory.words.get(1)) >= s1); // node 1's own record is forced
        long exchanges = one.shared().exchangesForTest();
        awaitTrue(() -> one.shared().exchangesForTest() >= exchanges + 10);
        assertTrue(DurabilityWord.through(memory.words.get(0)) < s0, DurabilityWord.describe(memory.words.get(0)));
        assertFalse(oneAcknowledged.isDone(), "node 1's commit was acknowledged while node 0's commit " + s0
            + ", below it, was not forced: durable=" + one.durable());
        assertTrue(one.durable() < s0, "durable=" + one.durable());
        stalling.release();
        oneAcknowledged.get();
        zeroAcknowledged.get();
        assertTrue(one.durable() >= s1 && zero.durable() >= s1, one.durable() + " " + zero.durable());
    }

    /**
     * Node 1 commits nothing while node 0 commits 50 transactions one after another, each acknowledged: an
     * idle process's word advances with its flusher's exchanges, though its log takes no append.
     *
     * <p>Shown to fail with the flusher waiting for an append as before (no exchange without a batch):
     * node 0's first commit waited for ever.
     */
    @Test
    void anIdleProcessDoesNotHoldTheOthersBack(@TempDir Path dir) {
        WordsInMemory memory = new WordsInMemory(2);
        try (Wal zero = Wal.open(dir, Mode.SYNC).shareWatermark(); Wal one = Wal.open(dir, Mode.ASYNC).shareWatermark()) {
            CommitLog a = zero.open(0, 0, memory::draw, memory.of(0));
            one.open(1, 0, memory::draw, memory.of(1));
            Redo redo = new Redo();
            for (int i = 1; i <= 50; i++) {
                long s = a.append(Redos.numbered(redo, i));
                a.awaitDurable(s);
                assertTrue(DurabilityWord.through(memory.words.get(1)) >= s, "the idle node vouched for " + s);
            }
            assertEquals(0, one.counters().appends());
            assertEquals(50, zero.durable());
        }
    }

    /**
     * The cost, exactly (flushers held, their duty cycle run by hand): opening a log is one round trip
     * (its first word, before it draws); a flusher cycle is one, however many commits its batch holds; a
     * commit none (its draw, a fetch-and-add, it always had). Three commits on node 0: node 0's cycle forces
     * them and vouches for all three, but node 1's word is below them; node 1, idle, vouches in its first
     * cycle for the counter its opening read (0) and reads 3, and in its second for 3; node 0's second cycle
     * reads that and acknowledges them. Four cycles, four round trips besides the two openings.
     *
     * <p>Shown to fail with a node vouching only for the counter its previous exchange read (not for its
     * own last append too, as first drafted): node 0's word after its first cycle was 0, not 3.
     */
    @Test
    void aFlusherCycleIsOneRoundTripAndACommitNone(@TempDir Path dir) throws IOException {
        WordsInMemory memory = new WordsInMemory(2);
        try (Wal zero = Wal.open(dir, Mode.SYNC); Wal one = Wal.open(dir, Mode.SYNC)) {
            zero.holdFlushersForTest();
            one.holdFlushersForTest();
            zero.shareWatermark();
            one.shareWatermark();
            CommitLog a = zero.open(0, 0, memory::draw, memory.of(0));
            one.open(1, 0, memory::draw, memory.of(1));
            assertEquals(1, memory.roundTrips.get(0), "opening publishes the first word");
            assertEquals(1, memory.roundTrips.get(1));
            Redo redo = new Redo();
            for (int i = 1; i <= 3; i++) {
                assertEquals(i, a.append(Redos.numbered(redo, i)));
            }
            assertEquals(1, memory.roundTrips.get(0), "a commit's append exchanges nothing");
            assertEquals(3, zero.logForTest(0).flusherForTest().doWork(), "node 0's cycle forced the three");
            assertEquals(2, memory.roundTrips.get(0));
            assertEquals(3, DurabilityWord.through(memory.words.get(0)), "it vouches for all three");
            assertEquals(0, zero.durable(), "node 1's word, as node 0 read it, is below them");
            assertEquals(0, one.logForTest(1).flusherForTest().doWork(), "node 1's cycle: nothing to force");
            assertEquals(2, memory.roundTrips.get(1));
            assertEquals(0, DurabilityWord.through(memory.words.get(1)), "the counter as its opening read it");
            one.logForTest(1).flusherForTest().doWork();
            assertEquals(3, memory.roundTrips.get(1));
            assertEquals(3, DurabilityWord.through(memory.words.get(1)), "the counter as its first cycle read it");
            assertEquals(3, one.durable());
            assertEquals(0, zero.durable(), "node 0 has not read it yet");
            zero.logForTest(0).flusherForTest().doWork();
            assertEquals(3, memory.roundTrips.get(0));
            assertEquals(3, zero.durable());
            a.awaitDurable(3);
            assertEquals(3, memory.roundTrips.get(0), "the acknowledged commit's wait exchanged nothing itself");
        }
    }

    /**
     * Node 1 loses a number (its appends break underneath): its word says so, and node 0's commits above
     * that number are refused acknowledgement there too ({@link CommitLog.NotDurableException} naming node 1)
     * instead of waiting for ever; one below it is acknowledged.
     *
     * <p>Shown to fail with the lost flag left out of the word: node 0's wait for its commit above the lost
     * number never returned.
     */
    @Test
    void aNumberLostInAnotherProcessIsNeverAcknowledgedHere(@TempDir Path dir) {
        WordsInMemory memory = new WordsInMemory(2);
        try (Wal zero = Wal.open(dir, Mode.SYNC).shareWatermark(); Wal one = Wal.open(dir, Mode.SYNC).shareWatermark()) {
            CommitLog a = zero.open(0, 0, memory::draw, memory.of(0));
            CommitLog b = one.open(1, 0, memory::draw, memory.of(1));
            Redo redo = new Redo();
            long below = a.append(Redos.numbered(redo, 1));
            one.logForTest(1).breakAppendsForTest();
            assertEquals(CommitLog.FAILED, b.append(Redos.numbered(redo, 2)));
            long above = a.append(Redos.numbered(redo, 3));
            a.awaitDurable(below);
            CommitLog.NotDurableException refused = assertThrows(CommitLog.NotDurableException.class, () -> a.awaitDurable(above));
            assertTrue(refused.getMessage().contains("compute node 1 lost sequence " + (below + 1)), refused.getMessage());
        }
    }

    /**
     * Three processes; node 2 commits r, then draws x and stalls before its append (holding its log's lock,
     * as a thread between its fetch-and-add and its write does), and dies (fenced); node 0 commits a after
     * x, whose acknowledgement waits for node 2's word. Node 0's process repairs node 2
     * ({@link Wal#settleCrashed}): x, in no log, is recorded void, node 2's log taken through r, its word set
     * out of the minimum; node 0's commit is then acknowledged. Node 2, still running, then appends x: a
     * later repair's read of the logs ({@link CommitLog.RepairSource#forEachChange}) does not take it, and a
     * recovery replays r and a over the void x and ignores the late record.
     *
     * <p>Shown to fail (each planted once): with the repair source ignoring the markers, the late record
     * was among the changes; with recovery ignoring them, it replayed the late record too (three
     * transactions, customer 3 deleted).
     */
    @Test
    void aRepairSettlesTheDeadNodeAndItsLateAppendIsNeverTaken(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        long replayFrom;
        try (io.selcc.engine.Database db = CheckpointFixtures.open()) {
            CheckpointFixtures.fill(db.node(0), new java.util.SplittableRandom(5), 20, 5);
            replayFrom = Checkpoint.write(db, data, null, java.util.Map.of()).replayFrom();
        }
        Path logs = Recovery.logDirectory(data);
        WordsInMemory memory = new WordsInMemory(3);
        memory.counter.set(replayFrom);
        long x;
        long a;
        long r;
        java.util.concurrent.CountDownLatch drawn = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch proceed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean stallNextDraw = new java.util.concurrent.atomic.AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Wal zero = Wal.open(logs, Mode.SYNC).shareWatermark(); Wal one = Wal.open(logs, Mode.SYNC).shareWatermark();
             Wal two = Wal.open(logs, Mode.SYNC).shareWatermark()) {
            CommitLog at0 = zero.open(0, replayFrom, memory::draw, memory.of(0));
            one.open(1, replayFrom, memory::draw, memory.of(1));
            CommitLog at2 = two.open(2, replayFrom, () -> {
                long drawnNow = memory.draw();
                if (stallNextDraw.getAndSet(false)) {
                    drawn.countDown();
                    try {
                        proceed.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return drawnNow;
            }, memory.of(2));
            r = at2.append(deleting(1));
            at2.awaitDurable(r);
            stallNextDraw.set(true);
            Future<Long> lateAppend = pool.submit(() -> at2.append(deleting(3)));
            drawn.await();
            x = memory.counter.get();
            a = at0.append(deleting(2));
            assertEquals(x + 1, a);
            memory.fenced.add(2);
            Future<?> acknowledged = pool.submit(() -> at0.awaitDurable(a));
            zero.settleCrashed(2);
            acknowledged.get();
            assertTrue(DurabilityWord.out(memory.words.get(2)), DurabilityWord.describe(memory.words.get(2)));
            RepairMarker marker = RepairMarker.readAll(logs).get(2);
            assertEquals(r, marker.takenThrough());
            assertArrayEquals(new long[] {x}, marker.voids());

            proceed.countDown();
            assertEquals(x, lateAppend.get(), "the fenced process appends after its repair read its log");
            List<Long> changes = new ArrayList<>();
            try (CommitLog.RepairSource source = one.openRepair()) {
                source.forEachChange((sequence, kind, tableId, key, recordId, image) -> changes.add(sequence));
            }
            assertEquals(List.of(r, a), changes.stream().sorted().toList(),
                "a later repair takes r and a, not the late record: " + changes);
        } finally {
            proceed.countDown();
            pool.shutdownNow();
        }
        try (io.selcc.engine.Database fresh = CheckpointFixtures.open()) {
            Recovery.Summary summary = Recovery.recover(fresh, data);
            System.out.println("SharedWatermarkTest recovery: " + summary.describe() + " warnings=" + summary.warnings());
            assertEquals(a, summary.lastReplayed(), "replayed over the void number");
            assertEquals(2, summary.replayed());
            io.selcc.engine.Table customer = fresh.node(0).table("customer");
            assertFalse(fresh.node(0).run(tx -> tx.get(customer, 1) != null).value(), "r deleted customer 1");
            assertFalse(fresh.node(0).run(tx -> tx.get(customer, 2) != null).value(), "a deleted customer 2");
            assertTrue(fresh.node(0).run(tx -> tx.get(customer, 3) != null).value(), "the late record was not replayed");
        }
    }

    /**
     * Recovery passes a number a repair recorded void (drawn by a node that died before its append): node 0's
     * log holds r + 1 and r + 3, node 2's marker says r + 2 is void; both records are replayed. A number not
     * recorded void still ends the replay.
     *
     * <p>Shown to fail with recovery ignoring the markers' void numbers: the replay stopped after r + 1.
     */
    @Test
    void recoveryReplaysOverANumberARepairRecordedVoid(@TempDir Path dir) {
        Path data = dir.resolve("data");
        long r;
        try (io.selcc.engine.Database db = CheckpointFixtures.open()) {
            CheckpointFixtures.fill(db.node(0), new java.util.SplittableRandom(6), 20, 5);
            r = Checkpoint.write(db, data, null, java.util.Map.of()).replayFrom();
        }
        Path logs = Recovery.logDirectory(data);
        long[] numbers = {r + 1, r + 3, r + 5};
        int[] next = {0};
        try (Wal wal = Wal.open(logs, Mode.SYNC)) {
            CommitLog log = wal.open(0, r, () -> numbers[next[0]++]);
            for (long key = 1; key <= 3; key++) {
                log.append(deleting(key));
            }
        }
        new RepairMarker(2, 0, r, r + 2, new long[] {r + 2}).write(logs, FileForcing.DISK);
        try (io.selcc.engine.Database fresh = CheckpointFixtures.open()) {
            Recovery.Summary summary = Recovery.recover(fresh, data);
            System.out.println("SharedWatermarkTest void: " + summary.describe() + " warnings=" + summary.warnings());
            assertEquals(2, summary.replayed(), "r + 1 and r + 3, over the void r + 2, not past r + 4");
            assertEquals(r + 3, summary.lastReplayed());
        }
    }

    /** A transaction that deletes customer {@code key}. */
    private static Redo deleting(long key) {
        return Redos.of(List.of(new Redos.Change(Redo.DELETE, 1, key, new byte[0])));
    }

    /** Spins (yielding) until {@code condition} holds; the class timeout bounds it. */
    private static void awaitTrue(BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            Thread.yield();
        }
    }
}
