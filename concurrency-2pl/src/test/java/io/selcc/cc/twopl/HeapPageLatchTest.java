package io.selcc.cc.twopl;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.storage.HeapTable;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A page held in S and then written is upgraded (S released, X taken): the X latch goes to the cache with
 * the frame the S latch had as its guess, instead of a lookup of the page's address (a New-Order reads
 * each stock row, then updates it). Both latches bind the latch record's kept handle
 * ({@code ComputeNode.keptHandle}) rather than one from the node's pool. Seen through a compute node that
 * records the refusing latches. Fails with the upgrade passing {@code NO_FRAME}, and with the heap page
 * latches taken without the kept handle.
 */
class HeapPageLatchTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("value").build();
    private static final TableDefinition ACCOUNTS = TableDefinition.of("accounts", ROW, r -> r.getLong(0));
    /** One row per page: each row's latch is a latch of its own page. */
    private static final TableDefinition SPREAD = TableDefinition.of("spread", ROW, r -> r.getLong(0)).withOnePerPage();

    @Test
    void latchesBindTheKeptHandleAndAnUpgradeGuessesTheSharedLatchsFrame() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).table(ACCOUNTS).build()) {
            DatabaseNode node = db.node(0);
            Table accounts = node.table("accounts");
            long rid = insertRows(node, accounts, 1).get(1L);
            List<Integer> exclusiveGuesses = new ArrayList<>();
            List<Boolean> intoKeptHandle = new ArrayList<>(); // per refusing latch: into the record's kept handle
            ComputeNode recording = recording(node.computeNode(), args -> {
                intoKeptHandle.add(args.length == 4);
                if ((Boolean) args[args.length - 2]) {
                    exclusiveGuesses.add((Integer) args[args.length - 1]);
                }
            });
            TwoPhaseLockingTransaction tx = new TwoPhaseLockingTransaction(recording,
                ThreadLocal.withInitial(TwoPhaseLockingTransaction.Workspace::new), ComputeNode.NO_AGE);
            HeapTable heap = accounts.heap();
            TupleBuffer buffer = new TupleBuffer(ROW);
            assertTrue(tx.read(heap, rid, ComputeNode.NO_FRAME, row -> row.getLong(0) == 1, buffer));
            int sharedFrame = tx.lastFrame();
            assertNotEquals(ComputeNode.NO_FRAME, sharedFrame, "the page is cached");
            assertTrue(tx.update(heap, rid, ComputeNode.NO_FRAME, row -> true, row -> row.setLong(1, 11), null,
                new TupleBuffer(ROW)));
            assertEquals(List.of(sharedFrame), exclusiveGuesses, "the upgrade's X latch, with the S latch's frame");
            assertEquals(List.of(true, true), intoKeptHandle, "the read's S latch and the upgrade's X latch, kept handles");
            tx.abort(AbortReason.USER_ABORT);
        }
    }

    /**
     * A thread's transactions reuse its latch records and their kept handles: the next transaction's first
     * latch binds the same kept handle, also after a first latch or an upgrade that was refused (the record
     * goes back to the workspace at once). Fails with either refused record dropped (a new kept handle made).
     */
    @Test
    void latchRecordsAndTheirKeptHandlesAreReused() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).table(SPREAD).build()) {
            DatabaseNode node = db.node(0);
            Table spread = node.table("spread");
            Map<Long, Long> rids = insertRows(node, spread, 2);
            ComputeNode real = node.computeNode();
            List<GclHandle> spares = new ArrayList<>();
            ComputeNode recording = recording(real, args -> {
                if (args.length == 4) {
                    spares.add((GclHandle) args[0]);
                }
            });
            ThreadLocal<TwoPhaseLockingTransaction.Workspace> workspaces =
                ThreadLocal.withInitial(TwoPhaseLockingTransaction.Workspace::new);
            HeapTable heap = spread.heap();
            TupleBuffer buffer = new TupleBuffer(ROW);

            for (int i = 0; i < 2; i++) {
                TwoPhaseLockingTransaction tx = new TwoPhaseLockingTransaction(recording, workspaces, ComputeNode.NO_AGE);
                assertTrue(tx.read(heap, rids.get(1L), ComputeNode.NO_FRAME, row -> true, buffer));
                tx.abort(AbortReason.USER_ABORT);
            }
            TwoPhaseLockingTransaction blocker = new TwoPhaseLockingTransaction(real,
                ThreadLocal.withInitial(TwoPhaseLockingTransaction.Workspace::new), ComputeNode.NO_AGE);
            assertTrue(blocker.update(heap, rids.get(2L), ComputeNode.NO_FRAME, row -> true, row -> row.setLong(1, 99),
                null, new TupleBuffer(ROW)));
            TwoPhaseLockingTransaction refused = new TwoPhaseLockingTransaction(recording, workspaces, ComputeNode.NO_AGE);
            refused.refuseEveryBusyLatch(); // no first-latch wait
            AbortException e = assertThrows(AbortException.class,
                () -> refused.read(heap, rids.get(2L), ComputeNode.NO_FRAME, row -> true, buffer));
            assertEquals(AbortReason.LOCK_CONFLICT, e.reason());
            blocker.abort(AbortReason.USER_ABORT);
            TwoPhaseLockingTransaction after = new TwoPhaseLockingTransaction(recording, workspaces, ComputeNode.NO_AGE);
            assertTrue(after.read(heap, rids.get(1L), ComputeNode.NO_FRAME, row -> true, buffer));
            after.abort(AbortReason.USER_ABORT);

            // A refused upgrade: another reader holds the page in S when this transaction wants X.
            TwoPhaseLockingTransaction reader = new TwoPhaseLockingTransaction(real,
                ThreadLocal.withInitial(TwoPhaseLockingTransaction.Workspace::new), ComputeNode.NO_AGE);
            TwoPhaseLockingTransaction upgrading = new TwoPhaseLockingTransaction(recording, workspaces, ComputeNode.NO_AGE);
            assertTrue(upgrading.read(heap, rids.get(1L), ComputeNode.NO_FRAME, row -> true, buffer));
            assertTrue(reader.read(heap, rids.get(1L), ComputeNode.NO_FRAME, row -> true, buffer));
            AbortException upgrade = assertThrows(AbortException.class, () -> upgrading.update(heap, rids.get(1L),
                ComputeNode.NO_FRAME, row -> true, row -> row.setLong(1, 0), null, new TupleBuffer(ROW)));
            assertEquals(AbortReason.UPGRADE_CONFLICT, upgrade.reason());
            reader.abort(AbortReason.USER_ABORT);
            TwoPhaseLockingTransaction last = new TwoPhaseLockingTransaction(recording, workspaces, ComputeNode.NO_AGE);
            assertTrue(last.read(heap, rids.get(1L), ComputeNode.NO_FRAME, row -> true, buffer));
            last.abort(AbortReason.USER_ABORT);

            assertEquals(7, spares.size(), "five first latches and an upgrade's refused X latch, each into a kept handle");
            for (GclHandle spare : spares) {
                assertSame(spares.get(0), spare, "one record and kept handle, reused by every transaction of the thread");
            }
        }
    }

    /** Rows 1..count (value ten times the key), committed; their record ids by key. */
    private static Map<Long, Long> insertRows(DatabaseNode node, Table table, int count) {
        assertTrue(node.run(tx -> {
            for (long id = 1; id <= count; id++) {
                long key = id;
                tx.insert(table, r -> {
                    r.setLong(0, key);
                    r.setLong(1, 10 * key);
                });
            }
            return null;
        }).committed());
        Map<Long, Long> rids = new HashMap<>();
        table.primaryIndex().forEachEntry((key, rid) -> {
            rids.put(key, rid);
            return true;
        });
        return rids;
    }

    /**
     * {@code real} behind a proxy that shows {@code onTryLock} the arguments of every refusing latch:
     * {@code tryLock(address, exclusive, frameHint)} or {@code tryLock(spare, address, exclusive, frameHint)}.
     */
    private static ComputeNode recording(ComputeNode real, Consumer<Object[]> onTryLock) {
        return (ComputeNode) Proxy.newProxyInstance(ComputeNode.class.getClassLoader(),
            new Class<?>[] {ComputeNode.class}, (proxy, method, args) -> {
                if (method.getName().equals("tryLock")) {
                    onTryLock.accept(args);
                }
                try {
                    return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    }
}
