package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import static io.selcc.wal.CheckpointFixtures.I_ID;
import static io.selcc.wal.CheckpointFixtures.I_PRICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where logging starts. A compute node that opens (and starts logging) while another node's commit
 * waits for its force must not move the durable watermark past that commit: the group's durability
 * starts where the database's logging started, the same for every node. Planted bug this caught (found
 * by a reviewer): every node passing the counter at its own opening as settled (the watermark jumped to
 * 1 with nothing forced, a reader on the new node was acknowledged with it, and the later force failed
 * the log). And no transaction straddles {@link Database#startLogging}: one running is refused, one
 * that begins meanwhile waits.
 */
class LoggingStartTest {
    @Test
    @Timeout(60)
    void aNodeOpenedLaterDoesNotSettleAnotherNodesPendingCommit(@TempDir Path dir) throws Exception {
        Wal wal = Wal.open(dir, Wal.Mode.SYNC);
        wal.holdFlushersForTest();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Database db = Database.builder().cc("2pl").computeNodes(2).table(CheckpointFixtures.ITEMS)
                .commitLog(wal).build()) {
            DatabaseNode first = db.node(0);
            Future<TxnResult<Object>> commit = pool.submit(() -> first.run(tx -> {
                tx.insert(first.table("item"), row -> {
                    row.setLong(CheckpointFixtures.I_ID, 1);
                    row.setMoney(CheckpointFixtures.I_PRICE, 100);
                });
                return null;
            }));
            while (wal.waiters() < 1) {
                Thread.onSpinWait(); // the commit drew 1 and waits for its force (flushers held)
            }
            db.node(1); // opens and starts logging now
            assertEquals(0, wal.durable(), "nothing was forced, so nothing is durable");
            assertFalse(commit.isDone(), "the commit is still waiting for its force");
            for (int node = 0; node < 2; node++) {
                wal.logForTest(node).startFlusher();
            }
            assertTrue(commit.get().committed());
            assertEquals(1, wal.durable());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Transactions open on nodes 0 and 1 (node 1's has inserted a row) when logging is asked to start:
     * the start is refused, naming two running transactions and their nodes, and nothing started (no
     * log opened). Once they end, logging starts, and the next commit is logged.
     *
     * <p>Shown to fail: without the check, logging started under the open transactions, node 1's then
     * committed its insert, and the log got nothing (0 appends): the row was in neither the log nor a
     * checkpoint taken before.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTransactionRunningWhenLoggingStartsIsRefused(@TempDir Path dir) {
        Wal wal = Wal.open(dir, Wal.Mode.ASYNC);
        try (Database db = Database.builder().cc("2pl").computeNodes(2).table(CheckpointFixtures.ITEMS).build()) {
            DatabaseNode first = db.node(0);
            DatabaseNode second = db.node(1);
            Transaction reader = first.begin();
            Transaction writer = second.begin();
            assertTrue(writer.insert(second.table("item"), row -> item(row, 1)));

            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> db.startLogging(wal));
            assertTrue(refused.getMessage().contains("2 running (node 0: 1, node 1: 1)"), refused.getMessage());
            assertThrows(IllegalArgumentException.class, () -> wal.counters(0), "no log was opened");

            assertTrue(writer.commit().committed());
            assertTrue(reader.commit().committed());
            db.startLogging(wal); // closed with db
            assertEquals(0, wal.counters().appends(), "what committed before the start is not logged");
            insert(first, 2);
            assertEquals(1, wal.counters().appends(), "a commit after the start is");
        }
    }

    /**
     * A transaction that begins while logging starts (the start held inside the log factory's open)
     * waits until the start is over, and is then logged: it has not committed while the start was held
     * (its thread parked at the gate), and its commit is the log's one record.
     *
     * <p>Shown to fail: without the gate in {@code begin}, the transaction ran and committed while the
     * start was held (unlogged: the nodes had no log yet).
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTransactionThatBeginsWhileLoggingStartsWaitsForIt(@TempDir Path dir) throws Exception {
        HeldFactory held = new HeldFactory(Wal.open(dir, Wal.Mode.ASYNC));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Database db = Database.builder().cc("2pl").computeNodes(1).table(CheckpointFixtures.ITEMS).build()) {
            try {
                DatabaseNode node = db.node(0); // before the start: node() waits for it on the database's monitor
                Future<?> start = pool.submit(() -> db.startLogging(held));
                held.entered.await();
                AtomicReference<Thread> beginner = new AtomicReference<>();
                Future<?> commit = pool.submit(() -> {
                    beginner.set(Thread.currentThread());
                    insert(node, 1);
                });
                while (beginner.get() == null || beginner.get().getState() != Thread.State.WAITING) {
                    assertFalse(commit.isDone(), "the transaction ran while logging was starting");
                    Thread.onSpinWait();
                }
                assertFalse(commit.isDone(), "the transaction ran while logging was starting (its thread went idle)");
                held.release.countDown();
                start.get();
                commit.get();
                assertEquals(1, held.wal.counters().appends(), "the transaction that waited is logged");
            } finally {
                held.release.countDown(); // before the database closes: the start holds its monitor
                pool.shutdownNow();
            }
        }
    }

    private static void insert(DatabaseNode node, long key) {
        Table item = node.table("item");
        CheckpointFixtures.commit(node, tx -> assertTrue(tx.insert(item, row -> item(row, key))));
    }

    private static void item(io.selcc.storage.TupleView row, long key) {
        row.setLong(I_ID, key);
        row.setMoney(I_PRICE, key);
    }

    /** A Wal whose {@code open} waits until the test releases it (it tells when it is entered). */
    private static final class HeldFactory implements CommitLog.Factory {
        final Wal wal;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HeldFactory(Wal wal) {
            this.wal = wal;
        }

        @Override
        public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence) {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while held", e);
            }
            return wal.open(computeNode, settledThrough, nextSequence);
        }

        @Override
        public void close() {
            wal.close();
        }
    }
}
