package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.fabric.NodeFailedException;
import io.selcc.wal.Wal.Mode;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import static io.selcc.wal.CheckpointFixtures.BY_DISTRICT;
import static io.selcc.wal.CheckpointFixtures.CUSTOMERS;
import static io.selcc.wal.CheckpointFixtures.C_BALANCE;
import static io.selcc.wal.CheckpointFixtures.ITEMS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * An append that fails after its record may have become complete (Chronicle marks the header complete,
 * then writes the index and calls the appender listener): the transaction must neither abort (others
 * would commit on its undone writes, and a later replay would redo it under them) nor commit. Its node
 * stops as a crash would; the survivor's repair, and a later recovery, take the record from the log.
 *
 * <p>Node 1 moves 10 from customer 1 to customer 2 while the appender listener throws once; then node 0
 * moves 5 from customer 1 to customer 3. The balances' sum is the same in memory and after a recovery
 * from the checkpoint and the logs, and both see both transfers.
 *
 * <p>Shown to fail with the outcome treated as a failed append (the abort as before issue 28): node 1's
 * transfer returned aborted with LOG_FAILED. With that first assertion relaxed (checked once), node 0's
 * transfer read the undone balance, the recovery replayed both records, and its sum came out 10 too
 * high.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class UnknownAppendOutcomeTest {
    @Test
    void theNodeStopsAndTheLogDecides(@TempDir Path dir) {
        ListenerThrowingOnce listener = new ListenerThrowingOnce();
        stopsAndTheLogDecides(dir, listener::install, wal -> listener.armed.set(true), listener.thrown::get);
    }

    /**
     * The same with the failure after Chronicle's close returned, where the log notes the record's cycle
     * file (a planted exception there): the record is complete, so the outcome is as unknown as above.
     *
     * <p>Shown to fail (issue 28, a review) with what the log did before: a failure after the write
     * failed the append ({@code FAILED}), and node 1's transfer returned aborted with LOG_FAILED while
     * its record stayed in the log.
     */
    @Test
    void aFailureAfterTheRecordWasWrittenStopsTheNodeToo(@TempDir Path dir) {
        Wal[] armed = new Wal[1];
        stopsAndTheLogDecides(dir, UnaryOperator.identity(), wal -> {
            armed[0] = wal;
            wal.logForTest(1).plantFaultForTest(ChronicleCommitLog.FaultPoint.WRITTEN,
                new IllegalStateException("planted: noting the record's cycle file failed"));
        }, () -> !armed[0].logForTest(1).faultPlantedForTest());
    }

    /**
     * Node 1's transfer fails once {@code arm} ran, in a way that leaves its record complete in the log
     * ({@code fired} says the planted failure happened); node 0's transfer follows.
     */
    private static void stopsAndTheLogDecides(Path dir, UnaryOperator<SingleChronicleQueueBuilder> tuning,
                                              java.util.function.Consumer<Wal> arm, java.util.function.BooleanSupplier fired) {
        Path data = dir.resolve("data");
        Wal wal = Wal.open(Recovery.logDirectory(data), Mode.SYNC, tuning);
        Database a = database(io.selcc.cache.AccessMode.SELCC).commitLog(wal).build();
        TreeMap<Long, Long> inMemory;
        long sum;
        try {
            DatabaseNode n0 = a.node(0);
            DatabaseNode n1 = a.node(1);
            CheckpointFixtures.fill(n0, new SplittableRandom(7), 20, 5);
            Checkpoint.write(a, data, wal, Map.of());
            TreeMap<Long, Long> before = balances(n0);
            sum = sum(before);

            arm.accept(wal);
            Table atNode1 = n1.table("customer");
            RuntimeException stopped = assertThrows(RuntimeException.class, () -> n1.run(tx -> move(tx, atNode1, 1, 2, 10)),
                "the transfer whose append's outcome is unknown neither commits nor aborts");
            assertTrue(fired.getAsBoolean(), "the planted failure happened");
            assertInstanceOf(NodeFailedException.class, stopped, stopped.toString());
            assertTrue(stopped.getMessage().contains("outcome unknown"), stopped.getMessage());

            // Node 0 needs customer 1's line, which node 1 held: it waits for node 1's repair. A number
            // whose outcome is unknown is a gap for this run: nothing after it is acknowledged.
            Table atNode0 = n0.table("customer");
            CommitLog.NotDurableException notAcknowledged = assertThrows(CommitLog.NotDurableException.class,
                () -> n0.run(tx -> move(tx, atNode0, 1, 3, 5)));
            System.out.println("UnknownAppendOutcomeTest: node 0's transfer: " + notAcknowledged.getMessage());
            inMemory = balances(n0);
            assertEquals(before.get(1L) - 15, inMemory.get(1L), "both transfers took from customer 1");
            assertEquals(before.get(2L) + 10, inMemory.get(2L), "node 1's transfer came back from its log");
            assertEquals(before.get(3L) + 5, inMemory.get(3L));
            assertEquals(sum, sum(inMemory), "money is neither made nor lost in memory");
        } finally {
            closeBroken(a);
        }

        try (Database b = database(io.selcc.cache.AccessMode.SELCC).build()) {
            Recovery.Summary summary = Recovery.recover(b, data);
            System.out.println("UnknownAppendOutcomeTest recovery: " + summary.describe() + " warnings=" + summary.warnings());
            TreeMap<Long, Long> recovered = balances(b.node(0));
            assertEquals(sum, sum(recovered), "money is neither made nor lost after a recovery");
            assertEquals(inMemory, recovered, "the recovery rebuilds what memory held");
        }
    }

    /**
     * The same in SEL mode (no cache; a node's latches cannot be repaired): the node stops all the same,
     * its latches on customers 1 and 2 stay, so node 0's transfer from customer 1 cannot commit instead of
     * committing on undone rows; a recovery finds node 1's transfer whole and the money all there.
     *
     * <p>Shown to fail (found in review) before the node could be stopped in SEL mode: the crash was
     * refused, the transfer rolled back, node 0's transfer committed on the undone rows, and the sum
     * after the recovery came out 10 too high.
     */
    @Test
    void inSelModeTheNodeStopsTooAndItsRowsStayLatched(@TempDir Path dir) {
        Path data = dir.resolve("data");
        ListenerThrowingOnce listener = new ListenerThrowingOnce();
        Wal wal = Wal.open(Recovery.logDirectory(data), Mode.SYNC, listener::install);
        Database a = database(io.selcc.cache.AccessMode.SEL).commitLog(wal).build();
        TreeMap<Long, Long> before;
        try {
            DatabaseNode n0 = a.node(0);
            DatabaseNode n1 = a.node(1);
            CheckpointFixtures.fill(n0, new SplittableRandom(7), 20, 5);
            Checkpoint.write(a, data, wal, Map.of());
            before = balances(n0);
            listener.armed.set(true);
            Table atNode1 = n1.table("customer");
            RuntimeException stopped = assertThrows(RuntimeException.class, () -> n1.run(tx -> move(tx, atNode1, 1, 2, 10)));
            assertInstanceOf(NodeFailedException.class, stopped, stopped.toString());
            Table atNode0 = n0.table("customer");
            try {
                io.selcc.engine.TxnResult<Object> meanwhile = n0.run(new io.selcc.engine.RetryPolicy(3, 0, 0, () -> 0),
                    tx -> move(tx, atNode0, 1, 3, 5));
                assertTrue(!meanwhile.committed(), "customer 1 stays latched by the stopped node: " + meanwhile);
            } catch (CommitLog.NotDurableException e) {
                throw new AssertionError("node 0's transfer committed on rows the stopped node held", e);
            }
        } finally {
            closeBroken(a);
        }
        try (Database b = database(io.selcc.cache.AccessMode.SELCC).build()) {
            Recovery.recover(b, data);
            TreeMap<Long, Long> recovered = balances(b.node(0));
            assertEquals(sum(before), sum(recovered), "money is neither made nor lost after a recovery");
            assertEquals(before.get(1L) - 10, recovered.get(1L), "node 1's transfer, from its log");
            assertEquals(before.get(2L) + 10, recovered.get(2L));
            assertEquals(before.get(3L), recovered.get(3L), "node 0's transfer never committed");
        }
    }

    /** An appender listener that throws once when armed, as an index entry that could not be written. */
    private static final class ListenerThrowingOnce {
        final AtomicBoolean armed = new AtomicBoolean();
        final AtomicBoolean thrown = new AtomicBoolean();

        SingleChronicleQueueBuilder install(SingleChronicleQueueBuilder builder) {
            return builder.appenderListener((wire, index) -> {
                if (armed.getAndSet(false)) {
                    thrown.set(true);
                    throw new IllegalStateException("planted: the index entry could not be written");
                }
            });
        }
    }

    /** The checkpoint fixtures' tables on two compute nodes, 2PL, in {@code mode}. */
    private static Database.Builder database(io.selcc.cache.AccessMode mode) {
        return Database.builder().cc("2pl").accessMode(mode).computeNodes(2).table(CUSTOMERS).table(ITEMS).index(BY_DISTRICT);
    }

    /** Moves {@code cents} from customer {@code from} to customer {@code to} in {@code tx}. */
    private static Object move(io.selcc.engine.Transaction tx, Table customer, long from, long to, long cents) {
        assertTrue(tx.update(customer, from, row -> row.setMoney(C_BALANCE, row.getMoney(C_BALANCE) - cents)));
        assertTrue(tx.update(customer, to, row -> row.setMoney(C_BALANCE, row.getMoney(C_BALANCE) + cents)));
        return null;
    }

    /** Closes a database whose log failed (its close may throw): the cluster at least. */
    private static void closeBroken(Database db) {
        try {
            db.close();
        } catch (RuntimeException e) {
            System.out.println("closing a database with a failed log: " + e);
            db.cluster().close();
        }
    }

    /**
     * Every customer's balance by key, from the heap (no transaction: after the failed append none can
     * be acknowledged in this run, a read-only one included).
     */
    private static TreeMap<Long, Long> balances(DatabaseNode node) {
        Table customer = node.table("customer");
        TreeMap<Long, Long> balances = new TreeMap<>();
        customer.heap().scan((rid, row) -> balances.put(customer.primaryKey(row), row.getMoney(C_BALANCE)));
        return balances;
    }

    private static long sum(TreeMap<Long, Long> balances) {
        return balances.values().stream().mapToLong(Long::longValue).sum();
    }
}
