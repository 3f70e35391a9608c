package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.cache.AccessMode;
import io.selcc.fabric.Counter;
import io.selcc.threads.EngineThread;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleView;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntToLongFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract every concurrency-control module passes (shipped in the engine test-jar; each module
 * subclasses it). Transactions on different compute nodes conflict through SELCC.
 */
public abstract class ConcurrencyControlContractTest {
    static final int ID = 0;
    static final int BALANCE = 1;
    static final int BRANCH = 2;
    static final int OWNER = 3;
    static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").addInt("branch")
        .addVarchar("owner", 16).build();
    static final TableDefinition ACCOUNTS = TableDefinition.of("account", ACCOUNT, row -> row.getLong(ID));
    static final IndexDefinition BY_BRANCH = new IndexDefinition("account.by_branch", "account", false,
        row -> row.getInt(BRANCH));

    /** One attempt, no retry: tests that need to see an abort. */
    static final RetryPolicy ONCE = new RetryPolicy(1, 0, 0, () -> 0L);

    /** The algorithm's name, e.g. "2pl". */
    protected abstract String cc();

    /** What the algorithm does on a held lock: 2PL runs this suite under each policy. */
    protected LockWaitPolicy lockWait() {
        return LockWaitPolicy.NO_WAIT;
    }

    /** A database builder for the algorithm and policy under test. */
    protected Database.Builder builder() {
        return Database.builder().cc(cc()).lockWait(lockWait());
    }

    protected Database open(int nodes, AccessMode mode, int cacheFrames) {
        return builder().computeNodes(nodes).accessMode(mode).cacheFrames(cacheFrames)
            .table(ACCOUNTS).index(BY_BRANCH).build();
    }

    static void insertAccount(Transaction tx, Table table, long id, long cents, int branch) {
        assertTrue(tx.insert(table, row -> {
            row.setLong(ID, id);
            row.setMoney(BALANCE, cents);
            row.setInt(BRANCH, branch);
            row.setString(OWNER, "owner-" + id);
        }), "insert of account " + id);
    }

    static void load(DatabaseNode node, int accounts, long cents) {
        Table table = node.table("account");
        TxnResult<Object> result = node.run(tx -> {
            for (int i = 1; i <= accounts; i++) {
                insertAccount(tx, table, i, cents, i % 3);
            }
            return null;
        });
        assertTrue(result.committed(), "load: " + result);
    }

    static long balance(DatabaseNode node, long id) {
        TxnResult<Long> r = node.run(tx -> {
            TupleView row = tx.get(node.table("account"), id);
            return row == null ? -1L : row.getMoney(BALANCE);
        });
        assertTrue(r.committed(), "read: " + r);
        return r.value();
    }

    static List<Long> idsInBranch(DatabaseNode node, int branch) {
        TxnResult<List<Long>> r = node.run(tx -> {
            List<Long> ids = new ArrayList<>();
            tx.scan(node.index("account.by_branch"), branch, branch, 1000, row -> ids.add(row.getLong(ID)));
            return ids;
        });
        assertTrue(r.committed(), "scan: " + r);
        return r.value();
    }

    /**
     * A row's secondary key changed twice in one transaction, or changed right after its insert, commits
     * at once, and the index holds the last key only. Shown failing before a commit netted its index
     * changes: the removal of the intermediate entry came first in index order, found nothing, and every
     * one of 1,000 attempts aborted with STALE_READ (a review found it).
     */
    @Test
    void aSecondaryKeyChangedTwiceInOneTransactionCommits() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 6, 100);
            Table table = node.table("account");
            TxnResult<Object> twice = node.run(ONCE, tx -> {
                assertTrue(tx.update(table, 1, row -> row.setInt(BRANCH, 7)));
                assertTrue(tx.update(table, 1, row -> row.setInt(BRANCH, 8)));
                insertAccount(tx, table, 50, 5000, 7);
                assertTrue(tx.update(table, 50, row -> row.setInt(BRANCH, 9)));
                return null;
            });
            assertTrue(twice.committed(), "one attempt: " + twice);
            assertEquals(List.of(), idsInBranch(node, 7), "no entry left at the intermediate keys");
            assertEquals(List.of(1L), idsInBranch(node, 8));
            assertEquals(List.of(50L), idsInBranch(node, 9));
            assertFalse(idsInBranch(node, 1 % 3).contains(1L), "the old entry is gone");
            long[] entries = {0};
            node.index("account.by_branch").forEachEntry((key, rid) -> {
                entries[0]++;
                return true;
            });
            assertEquals(7, entries[0], "one entry per row");
        }
    }

    /**
     * An update moves its row's secondary entry from the key the row had to the key it gets, whatever
     * the transaction touched before it: the old key comes from the row as it was, not from a buffer
     * an earlier statement filled. Fails with the update's before-image left out on a table that has
     * secondary indexes (the old key is then read from row 6, read just before, and row 1's entry
     * stays where it was).
     */
    @Test
    void anUpdateMovesItsRowsSecondaryEntryFromTheKeyItHad() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 6, 100); // branch = id % 3
            Table table = node.table("account");
            TxnResult<Object> moved = node.run(ONCE, tx -> {
                assertEquals(0, tx.get(table, 6).getInt(BRANCH));
                assertTrue(tx.update(table, 1, row -> row.setInt(BRANCH, 2)));
                assertEquals(1, tx.get(table, 4).getInt(BRANCH));
                assertTrue(tx.update(table, 2, row -> row.setMoney(BALANCE, 5)));
                return null;
            });
            assertTrue(moved.committed(), "one attempt: " + moved);
            assertEquals(List.of(4L), idsInBranch(node, 1), "row 1 left branch 1");
            assertEquals(List.of(1L, 2L, 5L), idsInBranch(node, 2).stream().sorted().toList());
            assertEquals(List.of(3L, 6L), idsInBranch(node, 0).stream().sorted().toList());
        }
    }

    /**
     * A reader's row, and a range visitor's, is read-only, also where it is the row in its page and the
     * transaction holds that page exclusively (2PL after an update), and it shows the transaction's own
     * update. Fails under 2PL with the page's row handed over writable (the write goes into the page,
     * past undo and log), and under OCC and TO with the copy handed over writable.
     */
    @Test
    void aReadersRowIsReadOnlyAndShowsOwnWrites() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            Transaction tx = node.begin();
            assertTrue(tx.update(table, 2, row -> row.setMoney(BALANCE, 7)));
            long[] seen = {-1};
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> tx.read(table, 2, row -> {
                seen[0] = row.getMoney(BALANCE);
                row.setMoney(BALANCE, 8);
            }));
            assertTrue(refused.getMessage().contains("read-only"), refused.getMessage());
            assertEquals(7, seen[0], "the reader saw the transaction's own update");
            IllegalStateException visited = assertThrows(IllegalStateException.class,
                () -> tx.readRange(table.primaryIndex(), 2, 2, 1, row -> {
                    row.setMoney(BALANCE, 9);
                    return true;
                }));
            assertTrue(visited.getMessage().contains("read-only"), visited.getMessage());
            assertTrue(tx.read(table, 3, row -> seen[0] = row.getMoney(BALANCE)));
            assertEquals(100, seen[0]);
            assertTrue(tx.commit().committed());
            assertEquals(7, balance(node, 2), "the refused write changed nothing");
        }
    }

    /**
     * A reader that reads another row of the same table inside its call still sees its own row after it,
     * and so does a range visitor: each statement has its own view. Fails under 2PL when the row is
     * handed in the table's one shared page view (the nested read moves it to the other row).
     */
    @Test
    void aNestedReadDoesNotMoveTheOuterReadersRow() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 40, 100);
            Table table = node.table("account");
            TxnResult<long[]> r = node.run(ONCE, tx -> {
                assertTrue(tx.update(table, 30, row -> row.setMoney(BALANCE, 3)));
                long[] ids = new long[3];
                assertTrue(tx.read(table, 1, row -> {
                    assertTrue(tx.read(table, 30, inner -> ids[1] = inner.getLong(ID)));
                    ids[0] = row.getLong(ID);
                }));
                tx.readRange(table.primaryIndex(), 5, 5, 1, row -> {
                    assertTrue(tx.read(table, 30, inner -> assertEquals(3, inner.getMoney(BALANCE))));
                    ids[2] = row.getLong(ID);
                    return true;
                });
                return ids;
            });
            assertTrue(r.committed(), "one attempt: " + r);
            assertArrayEquals(new long[] {1, 30, 5}, r.value());
        }
    }

    /**
     * An updater that throws ends its transaction: rolled back, every row it wrote as it was, whatever the
     * updater wrote before throwing (2PL's updater writes the row in its page), and nothing left latched.
     * Fails with Transaction.update's abort on a throwing updater removed (the transaction stays active,
     * under 2PL holding the half-written row).
     */
    @Test
    void anUpdaterThatThrowsAbortsItsTransaction() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            Transaction tx = node.begin();
            assertTrue(tx.update(table, 1, row -> row.setMoney(BALANCE, 111)));
            IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> tx.update(table, 2, row -> {
                row.setMoney(BALANCE, 222);
                throw new IllegalStateException("the updater failed");
            }));
            assertEquals("the updater failed", thrown.getMessage(), "the updater's own exception");
            assertFalse(tx.isActive(), "the transaction ended with the updater's exception");
            assertFalse(tx.outcome().committed());
            assertEquals(100, balance(node, 1), "the earlier update rolled back");
            assertEquals(100, balance(node, 2), "the updater's write before it threw rolled back");
            assertTrue(node.run(ONCE, t -> t.update(table, 2, row -> row.setMoney(BALANCE, 5))).committed(),
                "nothing of the aborted transaction still latched");
            assertEquals(5, balance(node, 2));
        }
    }

    /**
     * An updater may change its row's columns, not the CC header the algorithm keeps there (version,
     * flags, read timestamp), nor copy a whole tuple over it: such a write throws and aborts the
     * transaction, and the row stays as it was. Fails with the view's header check removed (under 2PL,
     * which hands the row in place, the planted version write reached the page).
     */
    @Test
    void anUpdaterCannotWriteItsRowsHeader() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 2, 100);
            Table table = node.table("account");
            byte[] zeros = new byte[ACCOUNT.tupleSize()];
            List<java.util.function.BiConsumer<Transaction, TupleView>> headerWrites = List.of(
                (tx, row) -> row.version(12345), (tx, row) -> row.flags(0), (tx, row) -> row.readTimestamp(7),
                (tx, row) -> row.writeIntent(true), (tx, row) -> row.copyFrom(zeros),
                // After a nested read of the same row, which an algorithm that buffers its writes answers from
                // its buffered image: the read must not hand the updater's view back without its guard.
                (tx, row) -> {
                    assertTrue(tx.read(table, 1, own -> assertEquals(1, own.getMoney(BALANCE))));
                    row.version(12345);
                });
            for (java.util.function.BiConsumer<Transaction, TupleView> write : headerWrites) {
                Transaction tx = node.begin();
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> tx.update(table, 1,
                    row -> {
                        row.setMoney(BALANCE, 1);
                        write.accept(tx, row);
                    }));
                assertTrue(refused.getMessage().contains("CC header"), refused.getMessage());
                assertFalse(tx.isActive(), "aborted");
            }
            assertEquals(100, balance(node, 1), "every refused update rolled back");
            assertTrue(node.run(ONCE, tx -> tx.update(table, 1, row -> row.setMoney(BALANCE, 7))).committed());
            assertEquals(7, balance(node, 1), "the row still updatable: its header intact");
        }
    }

    /**
     * An updater that throws an abort itself ends its transaction as one the algorithm threw: rolled back,
     * nothing left latched or marked (2PL's latches, TO's write intent). Fails with the rollback in
     * Transaction.ended removed (it assumed the algorithm had rolled back: under 2PL and TO the next update of
     * the row aborted with LOCK_CONFLICT).
     */
    @Test
    void anUpdaterThatThrowsAnAbortRollsBack() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 2, 100);
            Table table = node.table("account");
            TxnResult<Object> thrown = node.run(ONCE, tx -> {
                tx.update(table, 2, row -> row.setMoney(BALANCE, 222));
                return tx.update(table, 1, row -> {
                    row.setMoney(BALANCE, 111);
                    throw new AbortException(AbortReason.USER_ABORT, "the updater gives up");
                });
            });
            assertEquals(AbortReason.USER_ABORT, thrown.outcome().reason());
            assertEquals(100, balance(node, 1));
            assertEquals(100, balance(node, 2));
            assertTrue(node.run(ONCE, tx -> tx.update(table, 1, row -> row.setMoney(BALANCE, 5))
                && tx.update(table, 2, row -> row.setMoney(BALANCE, 6))).committed(), "nothing left held or marked");
        }
    }

    /**
     * An updater may not commit or abort its transaction (it aborts by throwing): the call throws, and the
     * transaction ends aborted with its rows as they were. Fails with the refusal removed (under 2PL the
     * commit inside the updater committed the row half changed in place, without its log record).
     */
    @Test
    void commitAndAbortInsideAnUpdaterAreRefused() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 1, 100);
            Table table = node.table("account");
            for (String end : List.of("commit", "abort", "close")) {
                Transaction tx = node.begin();
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> tx.update(table, 1,
                    row -> {
                        row.setMoney(BALANCE, 5);
                        endInside(tx, end);
                    }));
                assertTrue(refused.getMessage().contains(end + " inside an updater"), refused.getMessage());
                assertFalse(tx.isActive(), "aborted by the refusal thrown through the updater");
                assertEquals(100, balance(node, 1), end);
            }
        }
    }

    /**
     * A reader or scan visitor that throws an abort ends its transaction as an updater's does: over at once
     * (its outcome the thrown reason), rolled back, nothing left latched or marked, with no
     * {@code DatabaseNode.run} or close to clean up after it. Fails with the catch in Transaction.read and
     * Transaction.scan removed (the transaction stayed active; under 2PL and TO its update's latch or write
     * intent made the next update of the row abort).
     */
    @Test
    void aReaderOrVisitorThatThrowsAnAbortEndsItsTransaction() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            for (String callback : List.of("read", "readRange", "scan")) {
                Transaction tx = node.begin();
                assertTrue(tx.update(table, 2, row -> row.setMoney(BALANCE, 222)));
                AbortException thrown = new AbortException(AbortReason.USER_ABORT, "the " + callback + " gives up");
                AbortException caught = assertThrows(AbortException.class, () -> callThrowing(tx, table, callback,
                    thrown));
                assertSame(thrown, caught, callback);
                assertFalse(tx.isActive(), callback + ": the abort ended the transaction");
                assertEquals(AbortReason.USER_ABORT, tx.outcome().reason(), callback);
                assertEquals(100, balance(node, 2), callback);
                assertTrue(node.run(ONCE, t -> t.update(table, 2, row -> row.setMoney(BALANCE, 100))).committed(),
                    callback + ": nothing left held or marked");
            }
        }
    }

    /** Calls {@code callback} ("read", "readRange" or "scan") of {@code tx} on account 1 with a reader that throws {@code e}. */
    private static void callThrowing(Transaction tx, Table table, String callback, RuntimeException e) {
        switch (callback) {
            case "read" -> tx.read(table, 1, row -> {
                throw e;
            });
            case "readRange" -> tx.readRange(table.primaryIndex(), 1, 1, 1, row -> {
                throw e;
            });
            default -> tx.scan(table.primaryIndex(), 1, 1, 1, row -> {
                throw e;
            });
        }
    }

    /**
     * A reader or scan visitor may not commit, abort or close its transaction (its row may be in a page the
     * transaction holds only until it ends, and a scan goes on after the visitor): the call throws, the
     * transaction stays as it was, and it commits once the read returns. Fails with the refusal removed (the
     * commit inside the reader went through).
     */
    @Test
    void commitAndAbortInsideAReaderOrVisitorAreRefused() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            for (String callback : List.of("read", "readRange", "scan")) {
                for (String end : List.of("commit", "abort", "close")) {
                    Transaction tx = node.begin();
                    assertTrue(tx.update(table, 2, row -> row.setMoney(BALANCE, 7)));
                    RowReader ending = row -> endInside(tx, end);
                    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> {
                        switch (callback) {
                            case "read" -> tx.read(table, 1, ending);
                            case "readRange" -> tx.readRange(table.primaryIndex(), 1, 1, 1, row -> {
                                ending.read(row);
                                return true;
                            });
                            default -> tx.scan(table.primaryIndex(), 1, 1, 1, row -> {
                                ending.read(row);
                                return true;
                            });
                        }
                    });
                    assertTrue(refused.getMessage().contains(end + " inside a reader or scan visitor"),
                        callback + ": " + refused.getMessage());
                    assertTrue(tx.isActive(), callback + "/" + end + ": the refusal leaves the transaction open");
                    assertTrue(tx.commit().committed(), callback + "/" + end);
                    assertEquals(7, balance(node, 2), callback + "/" + end);
                    assertTrue(node.run(ONCE, t -> t.update(table, 2, row -> row.setMoney(BALANCE, 100))).committed());
                }
            }
        }
    }

    /**
     * An insert's writer follows the other callbacks' rules, for insert and insertAll: commit, abort and close
     * inside it throw and leave the transaction as it was; an abort it throws ends the transaction; and a
     * writer that swallows a nested call's abort and returns gets an exception naming that, nothing inserted.
     * Fails with the writers' refusal removed (the commit inside the writer went through), with the catch
     * around the writer removed (the thrown abort left the transaction active), and with the check after the
     * writer removed (the algorithm's "transaction is over" came instead).
     */
    @Test
    void anInsertsWriterFollowsTheCallbacksRules() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            for (boolean batch : new boolean[] {false, true}) {
                for (String end : List.of("commit", "abort", "close")) {
                    Transaction tx = node.begin();
                    assertTrue(tx.update(table, 2, row -> row.setMoney(BALANCE, 7)));
                    IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> insertWith(tx, table, batch, 10, row -> endInside(tx, end)));
                    assertTrue(refused.getMessage().contains(end + " inside a row writer"), refused.getMessage());
                    assertTrue(tx.isActive(), end + ": the refusal leaves the transaction open");
                    tx.abort();
                }
                Transaction thrower = node.begin();
                assertTrue(thrower.update(table, 2, row -> row.setMoney(BALANCE, 7)));
                AbortException thrown = new AbortException(AbortReason.USER_ABORT, "the writer gives up");
                assertSame(thrown, assertThrows(AbortException.class, () -> insertWith(thrower, table, batch, 10, row -> {
                    throw thrown;
                })));
                assertFalse(thrower.isActive(), "batch=" + batch + ": the writer's abort ended the transaction");

                List<String> caught = new ArrayList<>();
                Transaction swallower = node.begin();
                IllegalStateException ended = assertThrows(IllegalStateException.class,
                    () -> insertWith(swallower, table, batch, 10, row -> {
                        abortNestedAndCarryOn(swallower, table, caught);
                        row.setLong(ID, 10);
                    }));
                assertEquals(1, caught.size());
                assertTrue(ended.getMessage().contains("ended while its row writer ran"), ended.getMessage());
                assertEquals(-1, balance(node, 10), "batch=" + batch + ": nothing inserted");
                assertEquals(100, balance(node, 2), "batch=" + batch);
            }
            assertTrue(node.run(ONCE, t -> t.update(table, 2, row -> row.setMoney(BALANCE, 5))).committed(),
                "nothing left held");
        }
    }

    /** Inserts account {@code id} with {@code insert} or (batch) {@code insertAll}, {@code before} run first in its writer. */
    private static void insertWith(Transaction tx, Table table, boolean batch, long id,
                                   java.util.function.Consumer<TupleView> before) {
        java.util.function.Consumer<TupleView> writer = row -> {
            before.accept(row);
            row.setLong(ID, id);
            row.setMoney(BALANCE, 1);
        };
        if (batch) {
            tx.insertAll(table, new long[] {id}, 1, (i, row) -> writer.accept(row));
        } else {
            tx.insert(table, writer);
        }
    }

    /**
     * An updater that carries on after a nested call aborted its transaction (it caught the abort) cannot
     * write its row any more: the row was rolled back and its page let go (2PL), or its buffered image handed
     * back (OCC, TO); the write throws, and nothing of the transaction stays. Fails with the updater's view
     * left attached when the transaction ends (under 2PL the write reached the unlatched page).
     */
    @Test
    void anUpdaterCannotWriteAfterANestedCallAbortedItsTransaction() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            Transaction tx = node.begin();
            assertTrue(tx.update(table, 2, row -> row.setMoney(BALANCE, 222)));
            List<String> caught = new ArrayList<>();
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> tx.update(table, 1, row -> {
                row.setMoney(BALANCE, 111);
                abortNestedAndCarryOn(tx, table, caught);
                row.setMoney(BALANCE, 1);
            }));
            assertEquals(1, caught.size(), "the nested call aborted the transaction");
            assertTrue(refused.getMessage().contains("after its transaction ended"), refused.getMessage());
            assertFalse(tx.isActive());
            for (long id = 1; id <= 3; id++) {
                assertEquals(100, balance(node, id), "row " + id);
            }
            assertTrue(node.run(ONCE, t -> t.update(table, 1, row -> row.setMoney(BALANCE, 5))).committed());

            // An updater that swallows the nested abort and returns without another write: the update is
            // void all the same (fails with the check after the updater returns removed from Transaction and
            // the algorithm: the update reported success on a transaction already over).
            Transaction quiet = node.begin();
            IllegalStateException ended = assertThrows(IllegalStateException.class, () -> quiet.update(table, 2,
                row -> {
                    row.setMoney(BALANCE, 222);
                    abortNestedAndCarryOn(quiet, table, caught);
                }));
            assertEquals(2, caught.size());
            assertTrue(ended.getMessage().contains("ended while its updater ran"), ended.getMessage());
            assertFalse(quiet.isActive());
            assertEquals(100, balance(node, 2));
        }
    }

    /**
     * Updaters nested three deep (a fourth, nested in the third, aborts the transaction) are all let go of
     * their rows: each one's write after the abort throws, and nothing of the transaction stays. Fails when
     * the transaction's end detaches only the first two running updaters (the array's first size): the
     * third level's row stayed attached and its write went through.
     */
    @Test
    void updatersNestedThreeDeepAreAllDetachedWhenTheTransactionEnds() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 5, 100);
            Table table = node.table("account");
            Transaction tx = node.begin();
            List<String> caught = new ArrayList<>();
            List<Long> refusedWrites = new ArrayList<>();
            assertThrows(IllegalStateException.class, () -> tx.update(table, 1, first -> {
                first.setMoney(BALANCE, 11);
                assertThrows(IllegalStateException.class, () -> tx.update(table, 2, second -> {
                    second.setMoney(BALANCE, 22);
                    assertThrows(IllegalStateException.class, () -> tx.update(table, 4, third -> {
                        third.setMoney(BALANCE, 44);
                        abortNestedAndCarryOn(tx, table, caught); // the fourth level, on account 3
                        accessAfterTheEnd(() -> third.setMoney(BALANCE, 1), 4L, refusedWrites);
                    }));
                    accessAfterTheEnd(() -> second.setMoney(BALANCE, 1), 2L, refusedWrites);
                }));
                accessAfterTheEnd(() -> first.setMoney(BALANCE, 1), 1L, refusedWrites);
            }));
            assertEquals(1, caught.size(), "the fourth level aborted the transaction");
            assertEquals(List.of(4L, 2L, 1L), refusedWrites, "every level's write after the abort was refused");
            assertFalse(tx.isActive());
            for (long id = 1; id <= 5; id++) {
                assertEquals(100, balance(node, id), "row " + id);
            }
        }
    }

    /**
     * A reader's row, and a range read's row in place, are let go when a nested call ends the transaction while
     * the callback runs: reading it then throws instead of reading a page no longer latched (2PL) or a buffer
     * handed back. A reader or visitor that carries on and returns makes its read or scan throw (its read
     * stands in no transaction), and a scan goes no further. Fails with the reader's row not handed to the
     * transaction (Transaction.read) and with the visitor's not handed (OverlayingScan): the read after the
     * abort went through; and with the check after the reader (Transaction.read) or after the visitor
     * (OverlayingScan) removed: the read answered true, the scans went on.
     */
    @Test
    void aReadersRowIsDetachedWhenANestedCallEndsItsTransaction() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 100);
            Table table = node.table("account");
            List<String> caught = new ArrayList<>();
            List<String> refusedReads = new ArrayList<>();
            Transaction reading = node.begin();
            assertEndedUnder("reader", () -> reading.read(table, 1, row -> {
                abortNestedAndCarryOn(reading, table, caught);
                accessAfterTheEnd(() -> row.getMoney(BALANCE), "reader", refusedReads);
            }));
            assertFalse(reading.isActive());
            Transaction visiting = node.begin();
            int[] visits = new int[2];
            assertEndedUnder("scan visitor", () -> visiting.readRange(table.primaryIndex(), 1, 3, 3, row -> {
                visits[0]++;
                abortNestedAndCarryOn(visiting, table, caught);
                accessAfterTheEnd(() -> row.getMoney(BALANCE), "visitor", refusedReads);
                return true;
            }));
            assertFalse(visiting.isActive());
            Transaction scanning = node.begin(); // a scan's rows are copies: only the scan's end is checked
            assertEndedUnder("scan visitor", () -> scanning.scan(table.primaryIndex(), 1, 3, 3, row -> {
                visits[1]++;
                abortNestedAndCarryOn(scanning, table, caught);
                return true;
            }));
            assertFalse(scanning.isActive());
            assertEquals(3, caught.size(), "each nested call aborted its transaction");
            assertEquals(List.of("reader", "visitor"), refusedReads);
            assertArrayEquals(new int[] {1, 1}, visits, "each scan stopped after the visitor that carried on");
            assertTrue(node.run(ONCE, t -> t.update(table, 1, row -> row.setMoney(BALANCE, 5))).committed(),
                "nothing left held");
        }
    }

    /** {@code call} throws: the transaction ended while its {@code callback} ran. */
    private static void assertEndedUnder(String callback, org.junit.jupiter.api.function.Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().contains("ended while its " + callback + " ran"), e.getMessage());
    }

    /** Calls {@code end} ("commit", "abort" or "close") of {@code tx}, as a callback that tries to end it would. */
    private static void endInside(Transaction tx, String end) {
        switch (end) {
            case "commit" -> tx.commit();
            case "abort" -> tx.abort();
            default -> tx.close();
        }
    }

    /** Accesses a row after its transaction ended; records {@code who} when the access is refused. */
    private static <T> void accessAfterTheEnd(Runnable access, T who, List<T> refused) {
        try {
            access.run();
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage().contains("after its transaction ended"), e.getMessage());
            refused.add(who);
        }
    }

    /**
     * What an updater that carries on does: a nested update (of account 3) whose updater throws an abort,
     * which ends the transaction, caught and its message kept in {@code caught}.
     */
    private static void abortNestedAndCarryOn(Transaction tx, Table table, List<String> caught) {
        try {
            tx.update(table, 3, inner -> {
                throw new AbortException(AbortReason.USER_ABORT, "nested");
            });
        } catch (AbortException nested) {
            caught.add(nested.getMessage());
        }
    }

    /**
     * readRange delivers what scan delivers (the transaction's own inserts, deletes and updates
     * included, on the primary and a secondary index, with limits), only as transient views. Checked
     * to fail when readRange's rows skip the key check (a planted predicate that accepts nothing).
     */
    @Test
    void readRangeSeesWhatScanSees() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 40, 7);
            Table table = node.table("account");
            Index byBranch = node.index("account.by_branch");
            Transaction tx = node.begin();
            insertAccount(tx, table, 41, 4100, 1);
            assertTrue(tx.delete(table, 4));
            assertTrue(tx.update(table, 7, row -> row.setMoney(BALANCE, 77)));
            int compared = 0;
            for (Index index : List.of(table.primaryIndex(), byBranch)) {
                for (int limit : new int[] {3, 1000}) {
                    long low = index == byBranch ? 1 : 2;
                    long high = index == byBranch ? 1 : 41;
                    List<String> scanned = new ArrayList<>();
                    List<String> read = new ArrayList<>();
                    tx.scan(index, low, high, limit, row -> scanned.add(row.getLong(ID) + ":" + row.getMoney(BALANCE)));
                    int n = tx.readRange(index, low, high, limit, row -> read.add(row.getLong(ID) + ":" + row.getMoney(BALANCE)));
                    assertEquals(scanned, read, index.name() + " limit " + limit);
                    assertEquals(read.size(), n);
                    compared += read.size();
                }
            }
            assertTrue(compared > 40, "rows compared: " + compared);
            assertTrue(tx.commit().committed());
        }
    }

    /**
     * Rows a bulk load wrote, on two compute nodes at once, behave as committed inserts: transactions
     * find them by primary and secondary index, update, delete and scan them; a key loaded twice fails
     * the load's flush. Shown to fail with the loaded rows left invisible (flags USED only): reads of
     * them never commit.
     */
    @Test
    @Timeout(60)
    void bulkLoadedRowsBehaveAsCommittedInserts() throws InterruptedException {
        int perNode = 5_000; // more than a batch of index entries
        try (Database db = open(2, AccessMode.SELCC, 4_096)) { // 2PL holds every page a scan reads
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> loaders = new ArrayList<>();
            for (int n = 0; n < 2; n++) {
                DatabaseNode node = db.node(n);
                long first = 1 + (long) n * perNode;
                loaders.add(EngineThread.start("bulk-" + n, () -> {
                    try (BulkLoad load = node.bulkLoad()) {
                        Table table = node.table("account");
                        for (long id = first + perNode - 1; id >= first; id--) { // descending: the batches sort
                            long account = id;
                            load.insert(table, row -> {
                                row.setLong(ID, account);
                                row.setMoney(BALANCE, 100);
                                row.setInt(BRANCH, (int) (account % 3));
                                row.setString(OWNER, "owner-" + account);
                            });
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread loader : loaders) {
                loader.join();
            }
            assertNull(failure.get(), () -> "a loader failed: " + failure.get());
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            for (long id = 1; id <= 2 * perNode; id += 97) {
                assertEquals(100, balance(id % 2 == 0 ? a : b, id), "account " + id);
            }
            TxnResult<Integer> inBranch = b.run(tx -> tx.scan(b.index("account.by_branch"), 1, 1, Integer.MAX_VALUE,
                row -> row.getInt(BRANCH) == 1));
            assertEquals(java.util.stream.LongStream.rangeClosed(1, 2L * perNode).filter(id -> id % 3 == 1).count(),
                (long) inBranch.value(), "rows of branch 1 by the secondary index");
            TxnResult<Object> change = a.run(tx -> {
                Table table = a.table("account");
                assertTrue(tx.update(table, 5, row -> row.setMoney(BALANCE, 150)));
                assertTrue(tx.delete(table, 6));
                insertAccount(tx, table, 2L * perNode + 1, 50, 1);
                assertFalse(tx.insert(table, row -> row.setLong(ID, 7)), "a loaded key is taken");
                return null;
            });
            assertTrue(change.committed(), "change: " + change);
            assertEquals(150, balance(b, 5));
            assertEquals(-1, balance(b, 6));
            TxnResult<Long> total = b.run(tx -> {
                long[] sum = {0};
                tx.scan(b.table("account").primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE,
                    row -> {
                        sum[0] += row.getMoney(BALANCE);
                        return true;
                    });
                return sum[0];
            });
            assertTrue(total.committed(), "scan: " + total);
            assertEquals(100L * (2 * perNode - 1) + 50 + 50, total.value());

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> {
                try (BulkLoad again = a.bulkLoad()) {
                    again.insert(a.table("account"), row -> row.setLong(ID, 9));
                }
            });
            assertTrue(e.getMessage().contains("key already present") && e.getMessage().contains("key=9"),
                e.getMessage());
        }
    }

    /**
     * A buffering algorithm's commit that cannot latch all its pages (here: more pages than the cache
     * has frames, so a latch fails part way with "cache exhausted") releases the latches it took, frees
     * its inserted slots and takes back its write intents before the failure propagates: afterwards the
     * same rows commit again and new rows reuse the freed slots. Shown to fail with the commit calling
     * {@code writes.latchPages()} without the clean-up: under TO the intents left refuse the next
     * writer, under OCC the slots stay taken and new rows need new pages.
     */
    @Test
    @Timeout(60)
    void aCommitWhoseLatchingFailsPartWayLeavesNothingHeld() {
        assumeTrue(!cc().equals("2pl"), "2PL latches as it goes, not at commit");
        Schema slotRow = Schema.builder().addLong("id").addLong("v").build();
        TableDefinition slots = TableDefinition.of("slot", slotRow, row -> row.getLong(0)).withOnePerPage();
        int frames = 24;
        int rows = 40; // one GCL each: more than the cache can hold latched at once
        try (Database db = builder().computeNodes(1).cacheFrames(frames).table(slots).build()) {
            DatabaseNode node = db.node(0);
            Table table = node.table("slot");
            for (int first = 1; first <= rows; first += 8) {
                int from = first;
                TxnResult<Object> loaded = node.run(tx -> {
                    for (long id = from; id < from + 8; id++) {
                        long value = id;
                        assertTrue(tx.insert(table, row -> {
                            row.setLong(0, value);
                            row.setLong(1, 0);
                        }));
                    }
                    return null;
                });
                assertTrue(loaded.committed(), "load: " + loaded);
            }
            Transaction big = node.begin();
            for (long id = 1; id <= rows; id++) {
                assertTrue(big.update(table, id, row -> row.setLong(1, 1)));
            }
            for (long id = 100; id < 103; id++) {
                long value = id;
                assertTrue(big.insert(table, row -> row.setLong(0, value)));
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, big::commit);
            assertTrue(e.getMessage().contains("cache exhausted"), e.getMessage());

            // With retries: on a loaded machine the cache's evictor may hold a page at an OCC validation
            // (a spurious, retryable conflict); leaked latches or intents would refuse every attempt.
            TxnResult<Long> after = node.run(tx -> {
                for (long id = 1; id <= 8; id++) {
                    assertTrue(tx.update(table, id, row -> row.setLong(1, 2)), "row " + id);
                }
                long[] visible = {0};
                tx.scan(table.primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, row -> {
                    visible[0]++;
                    return true;
                });
                return visible[0];
            });
            assertTrue(after.committed(), "the rows of the failed commit are free again: " + after);
            assertEquals(rows, after.value(), "no insert of the failed commit became visible");
            long pages = table.heap().pageCount();
            TxnResult<Object> refill = node.run(tx -> {
                for (long id = 200; id < 203; id++) {
                    long value = id;
                    assertTrue(tx.insert(table, row -> row.setLong(0, value)));
                }
                return null;
            });
            assertTrue(refill.committed(), "refill: " + refill);
            assertEquals(pages, table.heap().pageCount(), "new rows took the slots the failed commit freed");
        }
    }

    @Test
    void readYourWrites() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            Transaction tx = node.begin();
            insertAccount(tx, table, 7, 500, 1);
            assertEquals(500, tx.get(table, 7).getMoney(BALANCE));
            assertTrue(tx.update(table, 7, row -> row.setMoney(BALANCE, 600)));
            assertEquals(600, tx.get(table, 7).getMoney(BALANCE));
            List<Long> seen = new ArrayList<>();
            tx.scan(node.index("account.by_branch"), 1, 1, 10, row -> seen.add(row.getLong(ID)));
            assertEquals(List.of(7L), seen, "scan sees own insert");
            assertFalse(tx.insert(table, row -> row.setLong(ID, 7)), "duplicate key in the same transaction");
            assertTrue(tx.delete(table, 7));
            assertNull(tx.get(table, 7));
            insertAccount(tx, table, 8, 100, 2);
            assertEquals(CommitOutcome.COMMITTED, tx.commit());
            assertEquals(-1, balance(node, 7));
            assertEquals(100, balance(node, 8));
            assertEquals(List.of(8L), idsInBranch(node, 2));
        }
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void abortRollsBackDataAndIndex(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 3, 100);
            Transaction tx = b.begin();
            Table table = b.table("account");
            assertTrue(tx.update(table, 1, row -> {
                row.setMoney(BALANCE, 50);
                row.setInt(BRANCH, 2);
            }));
            insertAccount(tx, table, 9, 900, 0);
            assertTrue(tx.delete(table, 2));
            tx.abort();
            assertEquals(CommitOutcome.aborted(AbortReason.USER_ABORT), tx.outcome());
            assertEquals(100, balance(a, 1));
            assertEquals(100, balance(a, 2), "deleted row is back");
            assertEquals(-1, balance(a, 9), "inserted row is gone");
            assertEquals(List.of(1L), idsInBranch(a, 1), "secondary index unchanged");
            assertEquals(List.of(2L), idsInBranch(a, 2));
            assertEquals(List.of(3L), idsInBranch(a, 0), "aborted insert never reached the index");
        }
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void noDirtyRead(AccessMode mode) {
        // Every kind of uncommitted write, read by a point read and by a scan, from the writer's own
        // compute node and from another; the writer then aborts.
        for (String write : List.of("update", "insert", "delete")) {
            for (int readerNode = 0; readerNode < 2; readerNode++) {
                for (boolean scan : new boolean[] {false, true}) {
                    String what = write + (scan ? " seen by a scan" : " seen by a get") + " from node " + readerNode;
                    try (Database db = open(2, mode, 256)) {
                        DatabaseNode a = db.node(0);
                        DatabaseNode b = db.node(readerNode);
                        load(a, 2, 100);
                        Table accounts = a.table("account");
                        Transaction writer = a.begin();
                        switch (write) {
                            case "update" -> assertTrue(writer.update(accounts, 1, row -> row.setMoney(BALANCE, 999)));
                            case "insert" -> insertAccount(writer, accounts, 3, 999, 0);
                            default -> assertTrue(writer.delete(accounts, 1));
                        }
                        Transaction reader = b.begin();
                        try {
                            long[] seen = new long[4];
                            if (scan) {
                                reader.scan(b.table("account").primaryIndex(), 1, 3, 10, row -> {
                                    seen[(int) row.getLong(ID)] = row.getMoney(BALANCE);
                                    return true;
                                });
                            } else {
                                for (long id = 1; id <= 3; id++) {
                                    TupleView row = reader.get(b.table("account"), id);
                                    seen[(int) id] = row == null ? 0 : row.getMoney(BALANCE);
                                }
                            }
                            assertEquals(100, seen[1], "read an uncommitted write: " + what);
                            assertEquals(100, seen[2], what);
                            assertEquals(0, seen[3], "saw an uncommitted insert: " + what);
                            reader.commit();
                        } catch (AbortException e) {
                            assertTrue(e.reason().isRetryable(), "a conflict, not " + e.reason() + ": " + what);
                        }
                        writer.abort();
                        assertEquals(100, balance(b, 1), what);
                        assertEquals(-1, balance(b, 3), what);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void writeSkewIsPrevented(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 2, 1); // constraint: balance(1) + balance(2) >= 1
            Transaction t1 = a.begin();
            Transaction t2 = b.begin();
            int committed = 0;
            long sum1 = sum(t1, a);
            long sum2 = sum(t2, b);
            committed += withdraw(t1, a, 1, sum1);
            committed += withdraw(t2, b, 2, sum2);
            assertTrue(committed <= 1, "both transactions committed: write skew");
            assertEquals(1, committed, "neither committed: the test saw no outcome to judge");
            long total = balance(a, 1) + balance(a, 2);
            assertTrue(total >= 1, "constraint broken: total=" + total);
        }
    }

    private static long sum(Transaction tx, DatabaseNode node) {
        try {
            return tx.get(node.table("account"), 1).getMoney(BALANCE) + tx.get(node.table("account"), 2).getMoney(BALANCE);
        } catch (AbortException e) {
            return -1;
        }
    }

    /** Sets the account to 0 if the sum allows it and commits; 1 if the transaction committed. */
    private static int withdraw(Transaction tx, DatabaseNode node, long id, long sum) {
        if (!tx.isActive()) {
            return 0;
        }
        try {
            if (sum >= 2) {
                tx.update(node.table("account"), id, row -> row.setMoney(BALANCE, 0));
            }
            return tx.commit().committed() ? 1 : 0;
        } catch (AbortException e) {
            return 0;
        }
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void noLostUpdate(AccessMode mode) throws Exception {
        int accounts = 4;
        int perThread = 150;
        try (Database db = open(2, mode, 64)) {
            load(db.node(0), accounts, 0);
            List<Thread> threads = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < 4; t++) {
                DatabaseNode node = db.node(t % 2);
                long seed = 100 + t;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        SplittableRandom random = new SplittableRandom(seed);
                        for (int i = 0; i < perThread; i++) {
                            long id = 1 + random.nextInt(accounts);
                            TxnResult<Object> r = node.run(tx -> {
                                tx.update(node.table("account"), id, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) + 1));
                                return null;
                            });
                            assertTrue(r.committed(), "increment gave up (seed=" + seed + "): " + r);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            long total = 0;
            for (int id = 1; id <= accounts; id++) {
                total += balance(db.node(1), id);
            }
            assertEquals(4L * perThread, total, "lost update");
        }
    }

    /**
     * Transfers between accounts from 2 compute nodes with a cache small enough to evict, while audit
     * transactions check the total: it never changes.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void bankTotalNeverChanges(AccessMode mode) throws Exception {
        runBank(mode, 2, 2, 300, 11L);
    }

    /**
     * {@link DatabaseNode#run} from thousands of short-lived virtual threads (an embedding server's request
     * threads): transfers keep the total, every one commits, and the per-thread bookkeeping a commit uses
     * ({@link CommitsInFlight}' slots) stays bounded by the threads alive at once, not by every thread that
     * ever ran. Planted bug caught: the slot registry without pruning (node 0 kept 1,001 slots after 2,000
     * threads). It also caught OCC crawling (over 120 s instead of 3) while waiters for a lease drain
     * yielded in a loop instead of parking: 200 runnable virtual threads starved the drainer's holders.
     */
    @Test
    @Timeout(120)
    void transfersFromThousandsOfShortLivedVirtualThreadsKeepTheTotal() throws Exception {
        int accounts = 200;
        long initial = 1_000;
        int waves = 10;
        int perWave = 200;
        long seed = 23;
        System.out.println("transfersFromThousandsOfShortLivedVirtualThreads: seed=" + seed);
        try (Database db = open(2, AccessMode.SELCC, 4096)) {
            load(db.node(0), accounts, initial);
            AtomicLong committed = new AtomicLong();
            SplittableRandom seeds = new SplittableRandom(seed);
            inVirtualWaves(waves, perWave, seed, (wave, t) -> {
                DatabaseNode node = db.node(t % 2);
                Table table = node.table("account");
                SplittableRandom random = seeds.split();
                return () -> {
                    long from = 1 + random.nextInt(accounts);
                    long to = 1 + (from + random.nextInt(accounts - 1)) % accounts;
                    long amount = 1 + random.nextInt(50);
                    TxnResult<Object> r = node.run(tx -> {
                        tx.update(table, from, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) - amount));
                        tx.update(table, to, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) + amount));
                        return null;
                    });
                    if (r.committed()) {
                        committed.incrementAndGet();
                    }
                };
            });
            assertEquals((long) waves * perWave, committed.get(), "every transfer committed (seed=" + seed + ")");
            long total = 0;
            for (int id = 1; id <= accounts; id++) {
                total += balance(db.node(1), id);
            }
            assertEquals(initial * accounts, total, "money created or destroyed (seed=" + seed + ")");
            for (int n = 0; n < 2; n++) {
                int slots = db.node(n).commitsInFlight().registeredSlots();
                assertTrue(slots <= 4 * perWave, "node " + n + " keeps " + slots + " slots after " + waves * perWave
                    + " threads");
            }
            // Each of 2,000 new threads inserts one row: a thread that ended leaves its open insert pages to the
            // next, so the heap grows by the rows' pages plus what the live threads hold open, not by a run of
            // pages per thread that ever inserted (planted bug caught: insert pages per thread not recycled,
            // 2,000 threads x 8 pages).
            long gclsBefore = db.cluster().gclsInUse();
            AtomicLong inserted = new AtomicLong();
            inVirtualWaves(waves, perWave, seed, (wave, t) -> {
                long id = 1_000_000L + (long) wave * perWave + t;
                DatabaseNode node = db.node(t % 2);
                Table table = node.table("account");
                return () -> {
                    if (node.run(tx -> {
                        insertAccount(tx, table, id, initial, 1);
                        return null;
                    }).committed()) {
                        inserted.incrementAndGet();
                    }
                };
            });
            assertEquals((long) waves * perWave, inserted.get(), "every insert committed");
            long grown = db.cluster().gclsInUse() - gclsBefore;
            long bound = 4L * perWave * 8 + 500; // live threads' open runs (8 pages each) plus the rows' pages and indexes
            assertTrue(grown <= bound, grown + " GCLs taken by " + waves * perWave + " one-row inserts (bound " + bound + ")");
        }
    }

    /** The body of thread {@code t} of wave {@code wave}, made on the test's thread before the thread starts. */
    private interface WaveTask {
        Runnable body(int wave, int t);
    }

    /** How long all waves of one {@link #inVirtualWaves} call may take (they take a few seconds). */
    private static final java.time.Duration WAVES_DEADLINE = java.time.Duration.ofSeconds(50);

    /**
     * Runs {@code waves} waves of {@code perWave} short-lived virtual threads, each wave joined before the next
     * starts; the first failure of any thread fails the test (with the seed). Waves that outlast
     * {@link #WAVES_DEADLINE} fail it with every thread's stack, virtual ones included, printed: a hang (seen
     * once in CI, with TO, not reproduced since) then says where the threads stood.
     */
    private static void inVirtualWaves(int waves, int perWave, long seed, WaveTask task) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long deadline = System.nanoTime() + WAVES_DEADLINE.toNanos();
        for (int wave = 0; wave < waves; wave++) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < perWave; t++) {
                Runnable body = task.body(wave, t);
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        body.run();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread thread : threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !thread.join(java.time.Duration.ofNanos(left))) {
                    String dump = threadDump();
                    System.out.println(dump);
                    throw new AssertionError("wave " + wave + " of " + waves + " still running after " + WAVES_DEADLINE
                        + " (seed=" + seed + "); thread dump printed above, " + dump.length() + " characters");
                }
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("seed=" + seed, failure.get());
        }
    }

    /** Every thread's stack, virtual threads included (the JDK's thread dump, plain text). */
    static String threadDump() {
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("selcc-thread-dump");
            java.nio.file.Path file = dir.resolve("threads.txt");
            ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                .dumpThreads(file.toString(), com.sun.management.HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            String text = java.nio.file.Files.readString(file);
            java.nio.file.Files.delete(file);
            java.nio.file.Files.delete(dir);
            return text;
        } catch (java.io.IOException | RuntimeException e) {
            return "(no thread dump: " + e + ")";
        }
    }

    protected void runBank(AccessMode mode, int nodes, int threadsPerNode, int transfersPerThread, long seed)
        throws Exception {
        int accounts = 20;
        long initial = 1_000;
        try (Database db = open(nodes, mode, 32)) {
            load(db.node(0), accounts, initial);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong audits = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                DatabaseNode node = db.node(n);
                Table table = node.table("account");
                for (int t = 0; t < threadsPerNode; t++) {
                    long threadSeed = seed * 1000 + n * 10 + t;
                    threads.add(Thread.ofPlatform().start(() -> {
                        try {
                            SplittableRandom random = new SplittableRandom(threadSeed);
                            for (int i = 0; i < transfersPerThread; i++) {
                                if (i % 10 == 0) {
                                    TxnResult<Long> sum = node.run(tx -> {
                                        long s = 0;
                                        for (int id = 1; id <= accounts; id++) {
                                            s += tx.get(table, id).getMoney(BALANCE);
                                        }
                                        return s;
                                    });
                                    if (sum.committed()) {
                                        assertEquals(initial * accounts, sum.value(), "audit saw a partial transfer (seed="
                                            + threadSeed + ")");
                                        audits.incrementAndGet();
                                    }
                                }
                                long from = 1 + random.nextInt(accounts);
                                long to = 1 + random.nextInt(accounts);
                                long amount = 1 + random.nextInt(50);
                                node.run(tx -> {
                                    tx.update(table, from, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) - amount));
                                    tx.update(table, to, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) + amount));
                                    return null;
                                });
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("seed=" + seed, failure.get());
            }
            long total = 0;
            for (int id = 1; id <= accounts; id++) {
                total += balance(db.node(nodes - 1), id);
            }
            assertEquals(initial * accounts, total, "money created or destroyed (seed=" + seed + ")");
            assertTrue(audits.get() > 0, "no audit committed");
        }
    }

    /**
     * The commit log gets every committed change, and only those, in an order that replays to the
     * database's state: two nodes of two threads transfer, insert and delete; replaying the log by
     * commit sequence number (dense from 1) from nothing gives exactly the rows the table holds. The
     * sequence is drawn at the commit point with the write latches held, so of two conflicting
     * transactions the first to commit has the lower number; the test checks that rows were changed
     * from both nodes (so the order between the nodes' records decides the replayed values). Planted bug this caught: logging an
     * update's before-image instead of its after-image (the replayed balances differed). Drawing the
     * sequence after the latches are released was not caught in three runs: the window is too small
     * for a random history to hit; the argument for the commit point is in docs/decisions.md.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Timeout(120)
    void theCommitLogReplaysToTheDatabasesState(AccessMode mode) throws Exception {
        RecordingCommitLog log = new RecordingCommitLog();
        int accounts = 4;
        long seed = System.nanoTime();
        System.out.println("theCommitLogReplaysToTheDatabasesState cc=" + cc() + " mode=" + mode + " seed=" + seed);
        try (Database db = builder().computeNodes(2).accessMode(mode).cacheFrames(64)
                .table(ACCOUNTS).index(BY_BRANCH).commitLog(log).build()) {
            load(db.node(0), accounts, 1_000);
            AtomicLong writersCommitted = new AtomicLong(1); // the load
            AtomicLong retried = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int n = 0; n < 2; n++) {
                DatabaseNode node = db.node(n);
                Table table = node.table("account");
                for (int t = 0; t < 2; t++) {
                    long threadSeed = seed + 10L * n + t;
                    long firstId = 1_000 + 1_000L * (2 * n + t);
                    threads.add(Thread.ofPlatform().start(() -> {
                        try {
                            SplittableRandom random = new SplittableRandom(threadSeed);
                            List<Long> mine = new ArrayList<>();
                            for (int i = 0; i < 150; i++) {
                                int op = random.nextInt(100);
                                TxnResult<?> result;
                                if (op < 10) {
                                    result = node.run(tx -> {
                                        long sum = 0;
                                        for (int id = 1; id <= accounts; id++) {
                                            sum += tx.get(table, id).getMoney(BALANCE);
                                        }
                                        return sum;
                                    });
                                    assertTrue(result.committed(), "audit: " + result);
                                    continue;
                                }
                                if (op < 75 || mine.isEmpty() && op >= 90) {
                                    long from = 1 + random.nextInt(accounts);
                                    long to = 1 + random.nextInt(accounts);
                                    long amount = 1 + random.nextInt(50);
                                    result = node.run(tx -> {
                                        tx.update(table, from, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) - amount));
                                        tx.update(table, to, row -> row.setMoney(BALANCE, row.getMoney(BALANCE) + amount));
                                        return null;
                                    });
                                } else if (op < 90) {
                                    long id = firstId + i;
                                    result = node.run(tx -> {
                                        insertAccount(tx, table, id, 5, 4);
                                        return null;
                                    });
                                    if (result.committed()) {
                                        mine.add(id);
                                    }
                                } else {
                                    long id = mine.remove(mine.size() - 1);
                                    result = node.run(tx -> tx.delete(table, id));
                                }
                                assertTrue(result.committed(), "seed=" + threadSeed + ": " + result);
                                writersCommitted.incrementAndGet();
                                retried.addAndGet(result.attempts() - 1);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("seed=" + seed, failure.get());
            }
            int accountTable = db.node(0).table("account").heap().tableId();
            Map<Long, byte[]> rows = new java.util.HashMap<>();
            long expected = 1;
            java.util.Set<Integer> nodesLogged = new java.util.HashSet<>();
            for (RecordingCommitLog.Appended appended : log.bySequence()) {
                assertEquals(expected++, appended.sequence(), "commit sequence numbers are dense");
                nodesLogged.add(appended.computeNode());
                for (RecordingCommitLog.Change change : appended.changes()) {
                    assertEquals(accountTable, change.tableId());
                    if (change.kind() == Redo.DELETE) {
                        assertNotNull(rows.remove(change.key()), "a delete of a row the log holds");
                    } else {
                        rows.put(change.key(), change.image());
                    }
                }
            }
            assertEquals(writersCommitted.get(), log.bySequence().size(), "one record per committed writer");
            assertEquals(writersCommitted.get(), log.awaited(), "each writer acknowledged after its record");
            assertTrue(log.awaitedReadOnly() > 0, "read-only transactions wait for what they read");
            assertEquals(java.util.Set.of(0, 1), nodesLogged, "both nodes logged");
            assertTrue(sameRowFromBothNodes(log.bySequence()), "no row was changed from both nodes");
            System.out.println("theCommitLogReplaysToTheDatabasesState retried attempts=" + retried.get());
            io.selcc.storage.TupleBuffer buffer = new io.selcc.storage.TupleBuffer(ACCOUNT);
            Map<Long, Long> replayed = new java.util.TreeMap<>();
            for (byte[] image : rows.values()) {
                buffer.copyRowFrom(image, 0);
                assertNull(replayed.put(buffer.view().getLong(ID), buffer.view().getMoney(BALANCE)), "one row per id");
            }
            Map<Long, Long> actual = new java.util.TreeMap<>();
            DatabaseNode reader = db.node(1);
            assertTrue(reader.run(tx -> tx.scan(reader.table("account").primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE,
                1_000_000, row -> actual.put(row.getLong(ID), row.getMoney(BALANCE)) == null)).committed());
            assertEquals(actual, replayed, "the log replayed (seed=" + seed + ")");
        }
    }

    /** Whether records of both nodes changed one row (so the order between the nodes' records matters). */
    private static boolean sameRowFromBothNodes(List<RecordingCommitLog.Appended> log) {
        Map<Long, Integer> changedBy = new java.util.HashMap<>();
        for (RecordingCommitLog.Appended appended : log) {
            for (RecordingCommitLog.Change change : appended.changes()) {
                Integer earlier = changedBy.putIfAbsent(change.key(), appended.computeNode());
                if (earlier != null && earlier != appended.computeNode()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A commit whose log append fails aborts with LOG_FAILED and leaves nothing: no inserted row, no
     * index entry, no update; the next commit is logged as usual. Planted bug this caught (OCC):
     * ignoring the commit point's answer (the row stayed although the transaction reported an abort).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void aCommitTheLogCannotTakeLeavesNothing(AccessMode mode) {
        RecordingCommitLog log = new RecordingCommitLog();
        try (Database db = builder().computeNodes(2).accessMode(mode).cacheFrames(64)
                .table(ACCOUNTS).index(BY_BRANCH).commitLog(log).build()) {
            DatabaseNode a = db.node(0);
            load(a, 3, 100);
            Table table = a.table("account");
            log.failNextAppend();
            Transaction tx = a.begin();
            insertAccount(tx, table, 50, 7, 2);
            assertTrue(tx.update(table, 1, row -> row.setMoney(BALANCE, 1)));
            CommitOutcome outcome = tx.commit();
            assertEquals(AbortReason.LOG_FAILED, outcome.reason(), "outcome " + outcome);
            assertFalse(AbortReason.LOG_FAILED.isRetryable());
            assertEquals(-1, balance(db.node(1), 50), "the insert is gone");
            assertFalse(idsInBranch(db.node(1), 2).contains(50L), "and its index entry");
            assertEquals(100, balance(db.node(1), 1), "the update is gone");
            assertEquals(1, log.bySequence().size(), "only the load was logged");
            assertTrue(a.run(t -> {
                insertAccount(t, table, 50, 7, 2);
                return null;
            }).committed());
            assertEquals(2, log.bySequence().size());
            assertEquals(7, balance(db.node(1), 50));
        }
    }

    /**
     * Phantom write skew: two transactions each count the rows of a range and insert one more if it
     * holds fewer than four; serially the range ends with four rows. Both committing means each missed
     * the other's insert. Fails without phantom protection (before issue 7 all three algorithms let
     * both commit).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void phantomWriteSkewIsPrevented(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 3, 1);
            Transaction t1 = a.begin();
            Transaction t2 = b.begin();
            long seen1 = countRange(t1, a);
            long seen2 = countRange(t2, b);
            int committed = insertIfFewer(t1, a, 6, seen1) + insertIfFewer(t2, b, 5, seen2);
            assertTrue(committed <= 1, "both committed: each missed the other's insert (phantom)");
            assertTrue(seen1 == 3 || seen2 == 3, "the race did not happen: seen1=" + seen1 + " seen2=" + seen2);
            TxnResult<Long> rows = a.run(tx -> countRange(tx, a));
            assertTrue(rows.committed());
            assertEquals(3 + committed, rows.value(), "rows in the range");
            assertTrue(rows.value() <= 4, "more than four rows: " + rows.value());
        }
    }

    private static long countRange(Transaction tx, DatabaseNode node) {
        try {
            long[] n = new long[1];
            tx.scan(node.index("account.pk"), 1, 10, 100, row -> {
                n[0]++;
                return true;
            });
            return n[0];
        } catch (AbortException e) {
            return -1;
        }
    }

    private static int insertIfFewer(Transaction tx, DatabaseNode node, long id, long seen) {
        if (!tx.isActive()) {
            return 0;
        }
        try {
            if (seen >= 0 && seen < 4) {
                insertAccount(tx, node.table("account"), id, 1, 0);
            }
            return tx.commit().committed() ? 1 : 0;
        } catch (AbortException e) {
            return 0;
        }
    }

    /**
     * Regression for the TO lost delete (issue 7): T1 reads row 1 and starts a scan; between two rows
     * of the scan T2 updates row 1 and deletes row 2 and commits, and T3 inserts a row that reuses
     * row 2's slot. T1 read row 1 before T2 wrote it, so T1 must come before T2 and must see row 2;
     * if it commits, it saw it. TO used to skip the freed slot as "no row" (the delete's timestamp was
     * not checked, and slot reuse reset it), commit, and so lose T2's delete for T1's writes. Row 2 is
     * loaded last, into the page's last slot, where an insert looks first once it is free (the reuse is
     * asserted where T3 commits).
     */
    @Test
    void aRowDeletedByALaterTransactionNeverReadsAsAbsent() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            assertTrue(node.run(tx -> {
                for (long id : new long[] {1, 3, 2}) {
                    insertAccount(tx, table, id, 100, (int) id % 3);
                }
                return null;
            }).committed());
            long ridOfRow2 = table.primaryIndex().tree().lookup(2).orElseThrow();
            boolean[] t3Committed = new boolean[1];
            RetryPolicy once = new RetryPolicy(1, 0, 0, () -> 0);
            Transaction t1 = node.begin();
            List<Long> seen = new ArrayList<>();
            boolean[] t2Committed = new boolean[1];
            boolean t1Committed;
            try {
                long before = t1.get(table, 1).getMoney(BALANCE);
                assertEquals(100, before);
                t1.scan(node.index("account.pk"), 1, 3, 10, row -> {
                    seen.add(row.getLong(ID));
                    if (seen.size() == 1) {
                        t2Committed[0] = node.run(once, tx -> {
                            tx.update(table, 1, r -> r.setMoney(BALANCE, 0));
                            return tx.delete(table, 2);
                        }).committed();
                        t3Committed[0] = node.run(once, tx -> {
                            insertAccount(tx, table, 10, 5, 1);
                            return null;
                        }).committed();
                    }
                    return true;
                });
                t1.update(table, 3, r -> r.setMoney(BALANCE, before + seen.size()));
                t1Committed = t1.commit().committed();
            } catch (AbortException e) {
                t1Committed = false;
            }
            if (t1Committed) {
                assertFalse(t2Committed[0], "T1 committed after reading row 1 before T2's committed update,"
                    + " so it follows T2 and precedes it: seen=" + seen);
                assertEquals(List.of(1L, 2L, 3L), seen);
            }
            assertTrue(t1Committed || t2Committed[0], "neither committed: the test proved nothing");
            if (t3Committed[0]) {
                assertEquals(ridOfRow2, table.primaryIndex().tree().lookup(10).orElseThrow(), "row 10 took row 2's slot");
            }
        }
    }

    /**
     * Moves rows between the ends of the key space while audits sum the table (issue 7): no audit
     * may see a row twice or miss one (phantoms), and no move may be lost (two committed deletes of
     * one row duplicate it). Under 2PL, OCC and TO before phantom protection, audits saw 399 rows;
     * under TO deletes were lost and the table grew.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Timeout(120)
    void movesAndAuditsAreSerializable(AccessMode mode) throws Exception {
        int rows = 200;
        MoveAndAudit.Outcome outcome = MoveAndAudit.run(MoveAndAudit.opener(this::builder, 3, mode, 64), 3, 1, rows, 150, 7L);
        System.out.println(cc() + " " + mode + " " + outcome);
        assertEquals(rows, outcome.finalRows(), "rows in the end: " + outcome);
        assertEquals(rows * MoveAndAudit.VALUE, outcome.finalTotal(), "total in the end: " + outcome);
        assertEquals(0, outcome.wrongAudits(), "audits that saw a wrong count or total: " + outcome);
        assertTrue(outcome.audits() > 0, "no audit committed: " + outcome);
        assertTrue(outcome.conflicts() > 0, "no conflict happened, the test proved nothing: " + outcome);
    }

    /**
     * Two transactions on two nodes insert the same new key: exactly one commits, the other aborts
     * with a retryable conflict (OCC finds the duplicate at commit: DUPLICATE_KEY), and its retry
     * sees the key taken. Seen failing when DUPLICATE_KEY was not retryable (the retry never ran).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void concurrentInsertsOfOneKeyCommitOnce(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 2, 100);
            Transaction t1 = a.begin();
            Transaction t2 = b.begin();
            List<AbortReason> aborts = new ArrayList<>();
            for (Transaction t : List.of(t1, t2)) {
                try {
                    DatabaseNode node = t == t1 ? a : b;
                    if (!t.insert(node.table("account"), row -> {
                        row.setLong(ID, 7);
                        row.setMoney(BALANCE, t == t1 ? 1 : 2);
                        row.setInt(BRANCH, 1);
                        row.setString(OWNER, "dup");
                    })) {
                        t.abort(); // saw the other's committed key: cannot happen before either commits
                        aborts.add(AbortReason.USER_ABORT);
                    }
                } catch (AbortException e) {
                    aborts.add(e.reason());
                }
            }
            int committed = commitActive(List.of(t1, t2), aborts);
            assertEquals(1, committed, "commits of one key; aborts=" + aborts);
            assertEquals(1, aborts.size(), "aborts=" + aborts);
            assertTrue(aborts.get(0).isRetryable(), "a conflict, retried: " + aborts);
            TxnResult<Boolean> retry = b.run(tx -> tx.insert(b.table("account"), row -> row.setLong(ID, 7)));
            assertTrue(retry.committed() && !retry.value(), "the retry sees the key taken: " + retry);
            assertEquals(List.of(7L), idsInBranch(a, 1).stream().filter(id -> id == 7).toList(), "one index entry");
        }
    }

    /**
     * A commit whose index additions run into a key another transaction committed meanwhile: the
     * additions go in as one run per index (one latch per leaf), so some of the run is in when the
     * duplicate stops it; those must come out again. t1 inserts 20, 21, 22 (branch 5); t2 on the other
     * node inserts 22 (branch 5) and commits; t1 commits. OCC meets the duplicate part way through
     * t1's run; TO refuses t1 at the run's first leaf (a younger transaction wrote it); 2PL stops t2 at
     * its insert (t1 holds the leaf). Either way exactly one commits, and nothing of the other is left
     * in either index. Planted bug this caught under OCC: not recording the run's additions for undo
     * (20 and 21 stayed in the index with no row: every read of key 20 aborted on a stale entry).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void aCommitWhoseIndexRunMeetsADuplicateTakesBackTheRestOfTheRun(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 2, 100);
            Transaction t1 = a.begin();
            for (long id = 20; id <= 22; id++) {
                insertAccount(t1, a.table("account"), id, 1, 5);
            }
            boolean t2Committed;
            Transaction t2 = b.begin();
            try {
                insertAccount(t2, b.table("account"), 22, 2, 5);
                t2Committed = t2.commit().committed();
            } catch (AbortException e) {
                t2Committed = false;
            }
            boolean t1Committed = t1.commit().committed();
            assertTrue(t1Committed != t2Committed, "exactly one commits: t1=" + t1Committed + " t2=" + t2Committed);
            List<Long> expected = t1Committed ? List.of(20L, 21L, 22L) : List.of(22L);
            assertEquals(expected, idsInBranch(b, 5).stream().sorted().toList(), "the secondary index");
            for (long id = 20; id <= 22; id++) {
                assertEquals(expected.contains(id) ? (t1Committed ? 1 : 2) : -1, balance(a, id), "account " + id);
            }
        }
    }

    /**
     * Slot reuse: t1 reads row 4; t2 deletes it and commits; t3 finds key 4 absent, inserts row 9 into
     * the freed slot (same record id, a new incarnation) and commits; t1 then reads row 9. Had t1 seen
     * both row 4 and row 9 and committed, the history would have a cycle (t1 -> t2 -> t3 -> t1). Row 4
     * is the page's last: an insert looks for a free slot from the page's used count on.
     * Under 2PL t1's latch stops t2; under OCC and TO the reuse happens and t1 must not commit.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void aReusedSlotIsANewRowToEveryAlgorithm(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 4, 100);
            Table table = b.table("account");
            long ridOfRow4 = table.primaryIndex().tree().lookup(4).orElseThrow();
            Transaction t1 = a.begin();
            boolean t1SawRow4;
            try {
                t1SawRow4 = t1.get(a.table("account"), 4) != null;
            } catch (AbortException e) {
                throw new AssertionError("a lone read aborted", e);
            }
            TxnResult<Boolean> t2 = b.run(ONCE, tx -> tx.delete(table, 4));
            boolean reused = false;
            boolean t1SawRow9 = false;
            if (t2.committed()) {
                TxnResult<Boolean> t3 = b.run(ONCE, tx -> {
                    assertNull(tx.get(table, 4), "t3 sees the delete");
                    insertAccount(tx, table, 9, 900, 0);
                    return true;
                });
                assertTrue(t3.committed(), "t3: " + t3);
                reused = table.primaryIndex().tree().lookup(9).orElseThrow() == ridOfRow4;
                assertTrue(reused, "the insert did not reuse the freed slot: the test proves nothing");
                try {
                    t1SawRow9 = t1.get(a.table("account"), 9) != null;
                } catch (AbortException e) {
                    t1SawRow9 = false;
                }
            } else {
                assertEquals("2pl", cc(), "only 2PL's read latch may stop the delete: " + t2);
            }
            boolean t1Committed = t1.isActive() && t1.commit().committed();
            assertFalse(t1Committed && t1SawRow4 && t1SawRow9 && t2.committed(),
                "t1 saw row 4 before its delete and row 9 after it, and committed");
        }
    }

    /**
     * {@link Transaction#prefetch} only loads: it takes no latch, reads nothing under the algorithm, counts no
     * hint as tried and no cache access, so another node updates a prefetched row and commits, and the
     * prefetching transaction, which read nothing, commits after it. Shown failing with the prefetch reading
     * each row through the algorithm ({@code readRow}): under 2PL the other node's update then met the
     * read latch (LOCK_CONFLICT), and the cache hits counted one more; under TO in SEL mode, which counts
     * no hits, the round trips counted more.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void aPrefetchReadsNothingUnderTheAlgorithm(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 4, 100);
            Table table = a.table("account");
            long[] keys = {1, 2, 3, 4, 99};
            assertTrue(a.run(tx -> {
                for (long k = 1; k <= 4; k++) {
                    assertNotNull(tx.get(table, k)); // the hints learn where the rows are
                }
                return null;
            }).committed());
            for (long k = 1; k <= 4; k++) {
                assertTrue(table.ridHints().get(k) != 0, "key " + k + " is hinted: the prefetch has rows to load");
                if (cc().equals("2pl") && mode == AccessMode.SELCC) { // its reads report their frames
                    assertTrue(table.ridHints().foundFrame() != io.selcc.cache.ComputeNode.NO_FRAME, "with its frame");
                }
            }
            long tries = table.ridHints().tries;
            Transaction t1 = a.begin();
            var counters = a.computeNode().counters().snapshot().nonZero(); // after begin: TO's takes a timestamp
            t1.prefetch(table, keys, keys.length);
            assertEquals(tries, table.ridHints().tries, "no hint counted as tried");
            assertEquals(counters, a.computeNode().counters().snapshot().nonZero(), "nothing counted: no access, no round trip");
            TxnResult<Boolean> t2 = b.run(ONCE, tx -> tx.update(b.table("account"), 2, row -> row.setMoney(BALANCE, 7)));
            assertTrue(t2.committed() && t2.value(), "another node updates a prefetched row: " + t2);
            assertTrue(t1.commit().committed(), "the prefetching transaction read nothing");
            assertThrows(IllegalStateException.class, () -> t1.prefetch(table, keys, 1), "an ended transaction");
        }
    }

    /**
     * {@link Transaction#insertAll} is {@link Transaction#insert} of each row in turn, stopping at the first
     * taken key: a key this transaction deleted is free, one it inserted or another committed is taken (its
     * writer is not called, the rows before it stay), keys out of order are probed one by one, and a row
     * whose key is not its entry aborts. Everything inserted is in the table and its secondary index after
     * the commit. Shown failing with the probe's found entries read as absent (the run inserted 25 over a
     * committed row, and the commit aborted on the duplicate).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void insertAllIsAnInsertOfEachRowInTurn(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            Table table = a.table("account");
            load(a, 2, 100);
            commit(a, tx -> insertAccount(tx, table, 25, 100, 1));
            List<Integer> written = new ArrayList<>();
            long[][] keysNow = new long[1][]; // the keys of the call under way (the writer is one lambda)
            BatchWriter writer = (i, row) -> {
                written.add(i);
                row.setLong(ID, keysNow[0][i]);
                row.setMoney(BALANCE, 7);
                row.setInt(BRANCH, 4);
                row.setString(OWNER, "batch");
            };
            TxnResult<List<Integer>> result = a.run(ONCE, tx -> {
                assertTrue(tx.delete(table, 2), "delete of account 2");
                insertAccount(tx, table, 10, 1, 4);
                List<Integer> counts = new ArrayList<>();
                for (long[] keys : List.of(new long[] {2, 3, 4}, new long[] {5, 10, 11}, new long[] {20, 25, 30},
                    new long[] {41, 40})) {
                    keysNow[0] = keys;
                    counts.add(tx.insertAll(table, keys, keys.length, writer));
                }
                return counts;
            });
            assertTrue(result.committed(), "committed: " + result);
            assertEquals(List.of(3, 1, 1, 2), result.value(), "rows inserted per call");
            assertEquals(List.of(0, 1, 2, 0, 0, 0, 1), written, "no writer call for a taken key or after it");
            for (long id : List.of(2L, 3L, 4L, 5L, 20L, 40L, 41L)) {
                assertEquals(7, balance(a, id), "account " + id);
            }
            assertEquals(100, balance(a, 25), "the committed row stays");
            for (long id : List.of(11L, 30L)) {
                assertEquals(-1, balance(a, id), "account " + id + " after the stop");
            }
            assertEquals(List.of(2L, 3L, 4L, 5L, 10L, 20L, 40L, 41L), idsInBranch(db.node(1), 4).stream().sorted().toList(),
                "the secondary index");

            Transaction bad = a.begin();
            assertThrows(IllegalArgumentException.class, () -> bad.insertAll(table, new long[] {50, 51}, 2,
                (i, row) -> row.setLong(ID, 60 + i)), "a row whose key is not its entry");
            assertFalse(bad.isActive(), "aborted");
            assertEquals(-1, balance(a, 50));
        }
    }

    /**
     * An {@link Transaction#insertAll} that stops at its first key (taken) takes no more protection than
     * that one insert would: the keys after it are not probed, so another transaction's insert into their
     * leaf, committed before or after the probe, does not abort it. t1 calls insertAll(1, 4000) while t2 on
     * the other node inserts 5000 into the leaf 4000 would fall in. Shown failing (a reviewer's case) with
     * the run probing every key: 2PL met t2's latch (LOCK_CONFLICT), OCC failed validation, TO found the
     * leaf written by a younger transaction (TIMESTAMP_TOO_OLD).
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void anInsertAllStoppedAtItsFirstKeyProbesNothingAfterIt(boolean otherCommitsFirst) {
        try (Database db = open(2, AccessMode.SELCC, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 600, 100); // several leaves: key 1 is in the first, 4000 and 5000 in the last
            Transaction t1 = a.begin();
            Transaction t2 = b.begin();
            insertAccount(t2, b.table("account"), 5_000, 2, 6);
            if (otherCommitsFirst) {
                assertTrue(t2.commit().committed(), "t2 first");
            }
            int inserted = t1.insertAll(a.table("account"), new long[] {1, 4_000}, 2, (i, row) -> row.setLong(ID, 4_000));
            assertEquals(0, inserted, "key 1 is taken");
            if (!otherCommitsFirst) {
                assertTrue(t2.commit().committed(), "t2 after t1's probe");
            }
            CommitOutcome outcome = t1.commit();
            assertTrue(outcome.committed(), "t1 probed key 1 only: " + outcome);
            assertEquals(2, balance(a, 5_000));
            assertEquals(-1, balance(a, 4_000));
        }
    }

    /**
     * Two transactions on two nodes, one inserting keys 30-32 with {@link Transaction#insertAll} and the
     * other key 31 alone: exactly one commits, as with two inserts, whichever way the algorithm stops the
     * other (no-wait 2PL at the second probe, OCC and TO at a commit), and the index holds one entry for 31.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void anInsertAllAndAnInsertOfOneOfItsKeysCommitOnce(AccessMode mode) {
        try (Database db = open(2, mode, 256)) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a, 2, 100);
            Transaction t1 = a.begin();
            Transaction t2 = b.begin();
            List<AbortReason> aborts = new ArrayList<>();
            boolean t1Inserted = false;
            boolean t2Inserted = false;
            try {
                t1Inserted = t1.insertAll(a.table("account"), new long[] {30, 31, 32}, 3, (i, row) -> {
                    row.setLong(ID, 30 + i);
                    row.setMoney(BALANCE, 1);
                    row.setInt(BRANCH, 6);
                }) == 3;
            } catch (AbortException e) {
                aborts.add(e.reason());
            }
            try {
                t2Inserted = t2.insert(b.table("account"), row -> {
                    row.setLong(ID, 31);
                    row.setMoney(BALANCE, 2);
                    row.setInt(BRANCH, 6);
                });
            } catch (AbortException e) {
                aborts.add(e.reason());
            }
            int committed = commitActive(List.of(t1, t2), aborts);
            assertTrue(t1Inserted || t2Inserted, "at least one got as far as its insert: aborts=" + aborts);
            assertEquals(1, committed, "one commit; aborts=" + aborts);
            assertEquals(1, aborts.size(), "aborts=" + aborts);
            assertTrue(aborts.get(0).isRetryable(), "a conflict: " + aborts);
            assertEquals(1, idsInBranch(a, 6).stream().filter(id -> id == 31).count(), "one index entry for 31");
        }
    }

    /**
     * Secondary-index maintenance at commit under concurrency: threads on several nodes insert,
     * delete and move rows between branches; afterwards every branch's index entries are exactly the
     * rows of that branch, each once. Seen failing when a refused commit left an aborted insert's
     * entry behind (the undo of index changes could itself be refused).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Timeout(120)
    void secondaryIndexesAgreeWithTheRowsAfterConcurrentChanges(AccessMode mode) throws Exception {
        long seed = System.nanoTime();
        System.out.println(cc() + " index maintenance seed=" + seed);
        int keys = 24;
        int perThread = 120;
        try (Database db = open(3, mode, 64)) {
            load(db.node(0), keys / 2, 100);
            AtomicLong conflicts = new AtomicLong();
            AtomicLong[] done = {new AtomicLong(), new AtomicLong(), new AtomicLong()}; // insert, delete, move
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            int[] finished = new int[3];
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(3);
            for (int n = 0; n < 3; n++) {
                DatabaseNode node = db.node(n);
                SplittableRandom random = new SplittableRandom(seed + n);
                int me = n;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        Table table = node.table("account");
                        start.countDown();
                        start.await();
                        int i = 0;
                        // At least a share each; longer (bounded) until some conflict happened, or the
                        // test would prove nothing.
                        for (; i < perThread || conflicts.get() == 0 && i < perThread * 50; i++) {
                            long key = 1 + random.nextInt(keys);
                            int newBranch = random.nextInt(3);
                            TxnResult<Integer> r = node.run(tx -> {
                                TupleView row = tx.get(table, key);
                                // A false return means the row appeared or vanished since the get: an
                                // optimistic read its commit would reject, so end the attempt here.
                                boolean changed;
                                int kind;
                                if (row == null) {
                                    changed = tx.insert(table, r2 -> {
                                        r2.setLong(ID, key);
                                        r2.setMoney(BALANCE, 100);
                                        r2.setInt(BRANCH, newBranch);
                                        r2.setString(OWNER, "owner-" + key);
                                    });
                                    kind = 0;
                                } else if (newBranch == 0) {
                                    changed = tx.delete(table, key);
                                    kind = 1;
                                } else {
                                    changed = tx.update(table, key, r2 -> r2.setInt(BRANCH, (r2.getInt(BRANCH) + newBranch) % 3));
                                    kind = 2;
                                }
                                if (!changed) {
                                    throw new AbortException(AbortReason.STALE_READ, "key " + key + " changed meanwhile");
                                }
                                return kind;
                            });
                            conflicts.addAndGet(r.attempts() - (r.committed() ? 1 : 0));
                            if (r.committed()) {
                                done[r.value()].incrementAndGet();
                            }
                        }
                        finished[me] = i;
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("seed=" + seed, failure.get());
            }
            DatabaseNode check = db.node(0);
            TxnResult<List<long[]>> rows = check.run(tx -> {
                List<long[]> all = new ArrayList<>();
                tx.scan(check.table("account").primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, 1000,
                    row -> all.add(new long[] {row.getLong(ID), row.getInt(BRANCH)}));
                return all;
            });
            assertTrue(rows.committed());
            for (int branch = 0; branch < 3; branch++) {
                int b = branch;
                List<Long> expected = rows.value().stream().filter(r -> r[1] == b).map(r -> r[0]).sorted().toList();
                List<Long> indexed = idsInBranch(check, branch).stream().sorted().toList();
                assertEquals(expected, indexed, "branch " + branch + " index vs rows, seed=" + seed);
            }
            for (int n = 0; n < 3; n++) {
                assertTrue(finished[n] >= perThread, "worker " + n + " did " + finished[n] + " of its " + perThread);
            }
            String summary = "inserts=" + done[0] + " deletes=" + done[1] + " moves=" + done[2] + " conflicts=" + conflicts;
            System.out.println(cc() + " " + mode + " " + summary);
            assertTrue(done[0].get() > 0 && done[1].get() > 0 && done[2].get() > 0, summary);
            assertTrue(conflicts.get() > 0, "no conflict happened: " + summary);
        }
    }

    /**
     * Random transactions (point reads, updates, inserts, deletes, range scans both ways, secondary
     * index scans) from several compute nodes; the conflict graph of every history, with the
     * dependencies its predicate reads create, must be acyclic ({@link RandomHistory}). Runs random
     * shapes for a few seconds ({@code -Dselcc.serializability.millis}); {@code
     * -Dselcc.serializability.seed=S} replays the one history a failure names.
     *
     * <p>Seen failing: on the code before phantom protection (rw edges of scans that missed an insert
     * form cycles, in every algorithm); with OCC validating only the reads on pages it writes (a
     * planted bug the bank test alone used to catch); with 2PL releasing a scanned leaf at once.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Timeout(300)
    void randomTransactionsAreSerializable(AccessMode mode) throws Exception {
        runRandomHistories(mode, Long.getLong("selcc.serializability.millis", 5_000), 4);
    }

    /**
     * The same for minutes: {@code bin/test -Pstress}. Half of the three minutes per algorithm and mode;
     * {@link #randomTransactionsOverManyLeavesAreSerializableForLong} has the other half.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Tag("stress")
    @Timeout(1_800)
    void randomTransactionsAreSerializableForLong(AccessMode mode) throws Exception {
        runRandomHistories(mode, Long.getLong("selcc.serializability.millis", 90_000), 20);
    }

    /**
     * The same over many leaves (issue 28): 60-120 keys in 512-byte GCLs, so both indexes span several
     * leaves and split while the history runs, and scans follow right links (forward) and descend again
     * for each leaf's low fence (backward); movers change a row's secondary key or delete and re-insert
     * its key in one transaction, and audits read every leaf of both indexes in both directions
     * ({@link RandomHistory.Shape#drawLeaves}). Besides serializability it asserts that this happened:
     * more than one leaf in each index after the load (every history), more leaves at the end than after
     * the load (splits during the history, in at least one), audits committed in both directions, and
     * moves of both kinds. Two histories per mode and algorithm (a fraction of a second each;
     * {@code -Dselcc.serializability.leafRuns=N} for more), more while one of these has not happened
     * yet, up to {@link #LEAF_HISTORIES_AT_MOST}; every history prints its seed and
     * {@code -Dselcc.serializability.seed=S} replays it; {@code -Pstress} runs them for minutes.
     *
     * <p>Seen failing, where the one-leaf histories above pass: with a planted bug in
     * {@code BLinkTree.scanBackward} that ends the scan at its first leaf instead of descending again
     * for the leaf's low fence (OCC: "transaction ... found no row for key 7, which existed and no
     * committed transaction deleted", in both access modes), and with one in {@code BLinkTree.scan} that
     * does not follow the right link (2PL: the same for keys 79 and 27).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Timeout(300)
    void randomTransactionsOverManyLeavesAreSerializable(AccessMode mode) throws Exception {
        runLeafHistories(mode, 0, Integer.getInteger("selcc.serializability.leafRuns", 2));
    }

    /** Leaf histories a test runs at most waiting for every situation it asserts to have happened. */
    static final int LEAF_HISTORIES_AT_MOST = 12;

    /** The same for minutes ({@code bin/test -Pstress}): the other half of the stress budget. */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Tag("stress")
    @Timeout(1_800)
    void randomTransactionsOverManyLeavesAreSerializableForLong(AccessMode mode) throws Exception {
        runLeafHistories(mode, Long.getLong("selcc.serializability.millis", 90_000), 20);
    }

    private void runRandomHistories(AccessMode mode, long budgetMillis, int minTries) throws Exception {
        Totals totals = runHistories(mode, budgetMillis, minTries, RandomHistory.Shape::draw, t -> true);
        // The histories must have exercised what they check.
        assertTrue(totals.aborts > 0, "no conflict: " + totals);
        assertTrue(totals.predicateReads > 0 && totals.inserts > 0 && totals.deletes > 0,
            "an operation kind never committed: " + totals);
    }

    private void runLeafHistories(AccessMode mode, long budgetMillis, int minTries) throws Exception {
        Totals totals = runHistories(mode, budgetMillis, minTries, RandomHistory.Shape::drawLeaves,
            Totals::sawEveryLeafSituation);
        assertTrue(totals.aborts > 0, "no conflict: " + totals);
        assertTrue(totals.predicateReads > 0 && totals.inserts > 0 && totals.deletes > 0,
            "an operation kind never committed: " + totals);
        assertTrue(totals.branchMoves > 0 && totals.reinserts > 0, "no move of some kind committed: " + totals);
        assertTrue(totals.auditsForward > 0 && totals.auditsBackward > 0,
            "no audit committed in some direction: " + totals);
        assertTrue(totals.splitRuns > 0, "no leaf split while a history ran: " + totals);
    }

    /** Sums over the histories of one test. */
    private static final class Totals {
        final String what;
        int tries;
        long committed;
        long aborts;
        long predicateReads;
        long inserts;
        long deletes;
        long auditsForward;
        long auditsBackward;
        long branchMoves;
        long reinserts;
        int splitRuns;

        Totals(String what) {
            this.what = what;
        }

        /** What {@link #runLeafHistories} asserts happened. */
        boolean sawEveryLeafSituation() {
            return aborts > 0 && predicateReads > 0 && inserts > 0 && deletes > 0 && branchMoves > 0 && reinserts > 0
                && auditsForward > 0 && auditsBackward > 0 && splitRuns > 0;
        }

        @Override
        public String toString() {
            return what + ": " + tries + " histories, " + committed + " committed, " + aborts + " conflict aborts, "
                + predicateReads + " predicate reads, " + inserts + " inserts, " + deletes + " deletes, "
                + branchMoves + " branch moves, " + reinserts + " re-inserts, " + auditsForward + "/" + auditsBackward
                + " audits forward/backward, " + splitRuns + " histories with splits while running";
        }
    }

    private Totals runHistories(AccessMode mode, long budgetMillis, int minTries,
                                java.util.function.BiFunction<Long, AccessMode, RandomHistory.Shape> draw,
                                java.util.function.Predicate<Totals> enough) throws Exception {
        Long replay = Long.getLong("selcc.serializability.seed");
        SplittableRandom seeds = new SplittableRandom(System.nanoTime());
        long deadline = System.nanoTime() + budgetMillis * 1_000_000;
        Totals totals = new Totals(cc() + " " + mode);
        do {
            RandomHistory.Shape shape = draw.apply(replay != null ? replay : seeds.nextLong(), mode);
            System.out.println(cc() + " random history " + shape);
            long started = System.nanoTime();
            RandomHistory.Outcome outcome = RandomHistory.runAndCheck(
                () -> builder().computeNodes(shape.nodes()).accessMode(mode).cacheFrames(shape.cacheFrames())
                    .gclSize(shape.gclSize()).table(ACCOUNTS).index(BY_BRANCH).build(), shape);
            System.out.println(cc() + " " + outcome + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            if (shape.movers()) {
                // The situation the shape is for: scans cross leaves from the start (30-60 rows in leaves of
                // 26 entries), and leaves split while the history runs (the inserts of even keys).
                assertTrue(outcome.primaryLeavesLoaded() > 1 && outcome.secondaryLeavesLoaded() > 1,
                    "an index fits one leaf after the load: " + outcome + " " + shape);
                if (outcome.splitDuringRun()) {
                    totals.splitRuns++;
                }
            }
            totals.tries++;
            totals.committed += outcome.committed();
            totals.aborts += outcome.aborts();
            totals.predicateReads += outcome.predicateReads();
            totals.inserts += outcome.inserts();
            totals.deletes += outcome.deletes();
            totals.auditsForward += outcome.auditsForward();
            totals.auditsBackward += outcome.auditsBackward();
            totals.branchMoves += outcome.branchMoves();
            totals.reinserts += outcome.reinserts();
        } while (replay == null && (totals.tries < minTries || System.nanoTime() < deadline
            || (!enough.test(totals) && totals.tries < LEAF_HISTORIES_AT_MOST)));
        System.out.println(totals);
        return totals;
    }

    /**
     * Record id hints are one table per compute node, shared by its threads: a key one thread found
     * through the index is hinted to the next thread that reads it, and another node keeps its own.
     * Shown failing with a table per thread (the second thread's read was not hinted).
     */
    @Test
    @Timeout(60)
    void recordIdHintsAreSharedByTheThreadsOfANode() throws Exception {
        try (Database db = open(2, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            load(node, 3, 100);
            assertEquals(0, table.ridHints().get(1), "nothing hinted before a read by key");
            java.util.concurrent.FutureTask<Long> otherThread = new java.util.concurrent.FutureTask<>(() -> balance(node, 1));
            Thread.ofPlatform().start(otherThread).join();
            assertEquals(100, otherThread.get(), "the other thread's read through the index");
            long before = table.ridHints().tries;
            assertEquals(100, balance(node, 1));
            assertEquals(before + 1, table.ridHints().tries, "the key the other thread found is hinted to this one");
            assertEquals(0, db.node(1).table("account").ridHints().get(1), "node 1 keeps hints of its own");
        }
    }

    /**
     * A record id hint keeps the cache frame of its row's page where the algorithm reports one (no-wait
     * 2PL does; the others leave {@code NO_FRAME}), and a frame hint gone stale (the page evicted and its
     * frame taken by other lines) costs a lookup, never an answer: reads and updates by key still find
     * the row, the stale frame is counted and the hint corrected. Shown failing with the engine passing
     * {@code NO_FRAME} instead of the hint's frame (no stale hint met: the hint was never used) and with
     * the cache's tag check removed for hinted hits (no stale hint counted; the row check then caught the
     * other line's bytes and the index answered, so the answers stayed right).
     */
    @Test
    void frameHintsNameTheRowsFrameAndAStaleOneCostsOnlyALookup() {
        try (Database db = open(1, AccessMode.SELCC, 64)) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            io.selcc.cache.ComputeNode cache = node.computeNode();
            load(node, 3, 100);
            assertEquals(100, balance(node, 1)); // through the index: the hint is stored
            assertEquals(100, balance(node, 1)); // through the hint
            long rid = table.ridHints().get(1);
            assertTrue(rid != 0, "key 1 is hinted");
            long page = table.heap().pageOf(rid);
            boolean storesFrames = cc().equals("2pl"); // its reads and updates report their frames
            boolean usesFrames = storesFrames && lockWait() == LockWaitPolicy.NO_WAIT; // wait-die latches by address
            int hinted = table.ridHints().foundFrame();
            assertEquals(storesFrames ? frameOf(cache, page) : io.selcc.cache.ComputeNode.NO_FRAME, hinted,
                "the hint's frame");

            // Four cache-fulls of other lines: the page is evicted (CLOCK sweeps past it more than twice)
            // and its frame taken by another line or left free, whose tag is not the page's.
            long evictionsBefore = cache.counters().snapshot().get(Counter.EVICTIONS);
            for (int i = 0; i < 4 * 64; i++) {
                long other = cache.allocate();
                io.selcc.cache.GclHandle h = cache.xLock(other);
                h.putLong(0, i);
                cache.unlock(h);
            }
            assertTrue(cache.counters().snapshot().get(Counter.EVICTIONS) - evictionsBefore >= 3 * 64, "lines left the cache");
            long missesBefore = cache.counters().snapshot().get(Counter.FRAME_HINT_MISSES);
            assertEquals(100, balance(node, 1), "key 1 after its page moved");
            long misses = cache.counters().snapshot().get(Counter.FRAME_HINT_MISSES) - missesBefore;
            assertTrue(node.run(tx -> tx.update(table, 1, r -> r.setMoney(BALANCE, 101))).committed());
            assertEquals(101, balance(node, 1));
            assertEquals(100, balance(node, 2), "key 2 untouched");
            if (usesFrames) {
                assertEquals(1, misses, "the stale frame hint was met once, then corrected");
            } else {
                assertEquals(0, misses, "no frame hint was passed to the cache");
            }
            if (storesFrames) {
                table.ridHints().get(1);
                assertEquals(frameOf(cache, page), table.ridHints().foundFrame(), "the hint follows the page");
            }
        }
    }

    /** The frame that caches {@code page} now (latched and released to find out). */
    private static int frameOf(io.selcc.cache.ComputeNode cache, long page) {
        io.selcc.cache.GclHandle h = cache.sLock(page);
        try {
            return h.frameIndex();
        } finally {
            cache.unlock(h);
        }
    }

    /**
     * Record id hints (Table.RidHints) answer repeated point reads without the index, and a stale hint
     * never answers wrongly: after key 1's row moved (deleted, its slot taken by key 2, key 1 inserted
     * anew), and after key 3 was deleted, reads and updates by key still find the right row or none.
     * Shown failing with the hint trusted without its key check (the read of key 1 returned key 2's
     * row). Hints grow for a table with many hot keys.
     */
    @Test
    void recordIdHintsSpeedUpPointReadsAndNeverAnswerWrongly() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            load(node, 3, 100);
            long before = table.ridHints().tries;
            assertEquals(100, balance(node, 1));
            assertEquals(100, balance(node, 1));
            assertTrue(table.ridHints().tries > before, "the second read used the hint");

            assertTrue(node.run(tx -> tx.delete(table, 1)).committed());
            assertTrue(node.run(tx -> {
                insertAccount(tx, table, 2_000, 7, 1); // takes the freed slot of key 1
                return null;
            }).committed());
            assertTrue(node.run(tx -> {
                insertAccount(tx, table, 1, 55, 1);
                return null;
            }).committed());
            assertTrue(node.run(tx -> tx.delete(table, 3)).committed());
            long hitsBefore = table.ridHints().tries;
            assertEquals(55, balance(node, 1), "key 1 moved: its hint is stale");
            assertEquals(-1, balance(node, 3), "key 3 is gone");
            assertTrue(table.ridHints().tries > hitsBefore, "the stale hints were tried");
            assertTrue(node.run(tx -> tx.update(table, 1, r -> r.setMoney(BALANCE, 56))).committed());
            assertEquals(56, balance(node, 1));
            assertEquals(7, balance(node, 2_000), "the row in key 1's old slot is untouched");

            int slots = table.ridHints().slots();
            assertTrue(node.run(tx -> {
                for (int i = 10_000; i < 14_000; i++) {
                    insertAccount(tx, table, i, 1, 2);
                }
                return null;
            }).committed());
            for (int round = 0; round < 2; round++) {
                node.run(tx -> {
                    for (int i = 10_000; i < 14_000; i++) {
                        assertEquals(1, tx.get(table, i).getMoney(BALANCE));
                    }
                    return null;
                });
            }
            assertTrue(table.ridHints().slots() > slots, "hints grew: slots=" + table.ridHints().slots());
        }
    }

    /**
     * A scan (primary or secondary index) leaves hints: a row it delivered is then read by key without the index,
     * and through a hint the update still finds the right row. Shown failing with the scan's
     * {@code remember} removed (no hint was tried), and with it kept for primary-index scans only.
     */
    @Test
    void aScanLeavesHintsForTheRowsItDelivered() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            load(node, 20, 100); // inserts only: no key was looked up, so no hint exists yet
            assertTrue(node.run(tx -> tx.scan(table.primaryIndex(), 1, 5, 100, row -> true) == 5).value());
            long before = table.ridHints().tries;
            assertTrue(node.run(tx -> tx.update(table, 5, row -> row.setMoney(BALANCE, 55))).value());
            assertEquals(before + 1, table.ridHints().tries, "the update used the scan's hint");
            assertEquals(55, balance(node, 5));
            assertEquals(100, balance(node, 6), "only key 5's row changed");
            // A secondary index scan too: account 10 (branch 1) is beyond the primary scan's range.
            assertTrue(node.run(tx -> tx.scan(node.index("account.by_branch"), 1, 1, 100, row -> true) > 0).value());
            long beforeSecondary = table.ridHints().tries;
            assertTrue(node.run(tx -> tx.update(table, 10, row -> row.setMoney(BALANCE, 77))).value());
            assertEquals(beforeSecondary + 1, table.ridHints().tries, "the update used the secondary scan's hint");
            assertEquals(77, balance(node, 10));
        }
    }

    /** Two SELCC nodes over an insert-only "ledger" table holding account 1 (100 cents), inserted by node 0. */
    private Database openLedgerWithOneRow() {
        TableDefinition ledger = TableDefinition.of("ledger", ACCOUNT, row -> row.getLong(ID)).withInsertOnly();
        Database db = builder().computeNodes(2).accessMode(AccessMode.SELCC).cacheFrames(256)
            .table(ledger).build();
        Table table = db.node(0).table("ledger");
        assertTrue(db.node(0).run(tx -> {
            insertAccount(tx, table, 1, 100, 0);
            return null;
        }).committed());
        return db;
    }

    /**
     * An insert-only table refuses updates and deletes: the statement throws, the transaction is
     * aborted and the row stays as it was. Every node reads the flag from the table's root, and a node
     * defined otherwise is refused. Shown failing with the refusal removed from update (it committed)
     * and with the definition check removed from DatabaseNode.open (nothing thrown).
     */
    @Test
    void anInsertOnlyTableRefusesUpdatesAndDeletes() {
        try (Database db = openLedgerWithOneRow()) {
            DatabaseNode creator = db.node(0);
            Table table = creator.table("ledger");
            assertTrue(db.node(1).table("ledger").heap().insertOnly(), "the other node read the flag from the root");

            Transaction update = creator.begin();
            UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                () -> update.update(table, 1, row -> row.setMoney(BALANCE, 1)));
            assertTrue(refused.getMessage().contains("insert-only") && refused.getMessage().contains("ledger"),
                refused.getMessage());
            assertFalse(update.isActive(), "the refused update aborted its transaction");
            Transaction delete = creator.begin();
            assertThrows(UnsupportedOperationException.class, () -> delete.delete(table, 1));
            assertFalse(delete.isActive(), "the refused delete aborted its transaction");
            TxnResult<Long> after = db.node(1).run(tx -> tx.get(db.node(1).table("ledger"), 1).getMoney(BALANCE));
            assertEquals(100L, after.value(), "the row is unchanged");

            Map<String, TableDefinition> otherwise = Map.of("ledger",
                TableDefinition.of("ledger", ACCOUNT, row -> row.getLong(ID)));
            IllegalStateException mismatch = assertThrows(IllegalStateException.class,
                () -> DatabaseNode.open(db.cluster().node(1), db.provider(), otherwise, List.of()));
            assertTrue(mismatch.getMessage().contains("insert-only") && mismatch.getMessage().contains("ledger"),
                mismatch.getMessage());
        }
    }

    /**
     * A read of an insert-only row leaves no latch on its page until commit (such a row never
     * changes; 2PL reads it under a short latch): another node can X-latch the page while the reader
     * is still open. Shown failing for 2PL with the short read removed (the page stays S-latched and
     * the other node's try gives up).
     */
    @Test
    void aReadOfAnInsertOnlyRowHoldsNoLatch() {
        try (Database db = openLedgerWithOneRow()) {
            DatabaseNode reader = db.node(0);
            Table table = reader.table("ledger");
            long[] rid = new long[1];
            table.heap().scan((r, row) -> rid[0] = r);
            Transaction tx = reader.begin();
            assertEquals(100, tx.get(table, 1).getMoney(BALANCE));
            io.selcc.cache.ComputeNode other = db.node(1).computeNode();
            io.selcc.cache.GclHandle page = other.tryXLock(table.heap().pageOf(rid[0]));
            assertNotNull(page, "the other node could not latch the page of a row the open transaction read");
            other.unlock(page);
            assertTrue(tx.commit().committed());
        }
    }

    /**
     * Exact cost of a single-row read transaction whose index nodes and heap page are cached on
     * this node: no round trip beyond what the algorithm itself needs at begin (TO: one FAA).
     */
    @Test
    void aWarmSingleRowReadCostsNoRoundTripBeyondTheAlgorithmsOwn() {
        try (Database db = open(1, AccessMode.SELCC, 256)) {
            DatabaseNode node = db.node(0);
            load(node, 3, 7);
            balance(node, 2); // warm the index path and the page
            Transaction tx = node.begin();
            assertEquals(7, tx.get(node.table("account"), 2).getMoney(BALANCE));
            assertTrue(tx.commit().committed());
            assertEquals(roundTripsAtBegin(), tx.counters().get(io.selcc.fabric.Counter.ROUND_TRIPS),
                "round trips of a warm single-row read: " + tx.counters());
        }
    }

    /**
     * A read of a cached row allocates nothing (issue 8): in steady state, a transaction of 2n point
     * reads ({@link Transaction#read}) allocates exactly as many bytes as one of n reads of other
     * cached rows, so the n extra reads allocated none. Begin and commit may allocate; per-row work may
     * not. Checked to fail on a planted per-read allocation (a fresh row buffer in
     * {@code Transaction.read}): 176 bytes per read, and before this test existed 2PL allocated 38, OCC 496 and TO 408.
     */
    @Test
    void aCachedRowReadAllocatesNothing() throws Exception {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        assumeTrue(bean instanceof com.sun.management.ThreadMXBean,
            "this JVM does not count allocated bytes per thread");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
        int n = 64;
        try (Database db = open(1, AccessMode.SELCC, 1024)) {
            DatabaseNode node = db.node(0);
            load(node, 2 * n, 5);
            Table table = node.table("account");
            long[] sum = new long[1];
            RowReader reader = row -> sum[0] += row.getMoney(BALANCE);
            IntToLongFunction allocatedByReads = reads -> {
                long before = threads.getCurrentThreadAllocatedBytes();
                TxnResult<Boolean> r = node.run(ONCE, tx -> {
                    for (int id = 1; id <= reads; id++) {
                        if (!tx.read(table, id, reader)) {
                            return false;
                        }
                    }
                    return true;
                });
                long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                assertTrue(r.committed() && r.value(), "every read found its row: " + r);
                return allocated;
            };
            long[] extra = new long[5];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[] result = new long[3];
            Thread worker = EngineThread.start("alloc-reads", () -> {
                try {
                    for (int warm = 0; warm < 300; warm++) { // caches, hints, workspaces and JIT settle
                        allocatedByReads.applyAsLong(2 * n);
                        allocatedByReads.applyAsLong(n);
                    }
                    long missesBefore = node.computeNode().counters().snapshot().get(Counter.CACHE_MISSES);
                    sum[0] = 0;
                    long min = Long.MAX_VALUE;
                    for (int i = 0; i < extra.length; i++) {
                        extra[i] = allocatedByReads.applyAsLong(2 * n) - allocatedByReads.applyAsLong(n);
                        if (extra[i] >= 0) {
                            // A negative pair is a one-off allocation in the shorter run (CI saw -5408 once):
                            // noise, not a per-read cost, which would make every pair positive.
                            min = Math.min(min, extra[i]);
                        }
                    }
                    result[0] = min;
                    result[1] = node.computeNode().counters().snapshot().get(Counter.CACHE_MISSES) - missesBefore;
                    result[2] = sum[0];
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            worker.join(60_000);
            assertFalse(worker.isAlive(), "the reading thread did not finish in 60 s");
            if (failure.get() != null) {
                throw new AssertionError("the reading thread failed", failure.get());
            }
            System.out.println("aCachedRowReadAllocatesNothing: cc=" + cc() + " bytes of n=" + n
                + " extra reads, per pair: " + Arrays.toString(extra));
            assertEquals(extra.length * 3L * n * 5, result[2], "every read delivered its row");
            assertEquals(0, result[1], "every measured read was a cache hit");
            assertEquals(0, result[0], "bytes allocated by " + n + " cached row reads (per pair: "
                + Arrays.toString(extra) + ")");
        }
    }

    /** Round trips the algorithm spends starting a transaction (TO: the timestamp FAA). */
    protected long roundTripsAtBegin() {
        return 0;
    }

    /**
     * Regression: an abort raised while a read holds a page latch must not roll back (free this
     * transaction's inserts) before releasing it; the insert may sit in the same page, and latches are
     * not reentrant. One thread interleaves two transactions so both use its open page.
     */
    @Test
    void anAbortDuringAReadReleasesItsLatchBeforeRollingBackInserts() {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
            try (Database db = open(1, AccessMode.SELCC, 256)) {
                DatabaseNode node = db.node(0);
                load(node, 3, 100);
                Table table = node.table("account");
                Transaction older = node.begin();
                older.get(table, 2);
                // A few attempts: under 2PL each waits its bounded while for the latch the older holds on
                // this same thread (1,000 of them took 50 s), and the outcome is the same after five.
                TxnResult<Boolean> younger = node.run(new RetryPolicy(5, 1_000, 1_000_000, () -> 0L),
                    tx -> tx.update(table, 2, row -> row.setMoney(BALANCE, 1)));
                try {
                    insertAccount(older, table, 9, 900, 0);
                    older.get(table, 2);
                    older.commit();
                } catch (AbortException e) {
                    assertTrue(e.reason().isRetryable(), "a conflict, not " + e.reason());
                }
                assertTrue(younger.committed() || !older.isActive(), "one of them must have given way");
                if (!older.isActive() && older.outcome() != null && !older.outcome().committed()) {
                    assertEquals(-1, balance(node, 9), "the aborted transaction's insert is gone");
                }
                try (Transaction last = node.begin()) { // aborted when closed: the database closes after it
                    insertAccount(last, table, 10, 1, 0); // the page is usable again (no latch left behind)
                }
            }
        });
    }

    @Test
    void aNodeOpenedLaterSeesTheSameTablesAndRows() {
        try (Database db = open(3, AccessMode.SELCC, 64)) {
            load(db.node(0), 5, 42);
            DatabaseNode late = db.node(2); // finds every table and index in the shared catalog
            assertEquals(42, balance(late, 5));
            assertEquals(List.of(3L), idsInBranch(late, 0));
            TxnResult<Boolean> r = late.run(tx -> tx.insert(late.table("account"), row -> row.setLong(ID, 6)));
            assertTrue(r.committed() && r.value());
            assertEquals(0, balance(db.node(1), 6));
        }
    }

    @Test
    void badInputNamesTheProblem() {
        try (Database db = open(1, AccessMode.SELCC, 64)) {
            DatabaseNode node = db.node(0);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> node.table("nope"));
            assertTrue(e.getMessage().contains("table=nope"), e.getMessage());
            Table table = node.table("account");
            e = assertThrows(IllegalArgumentException.class, () -> node.run(tx -> tx.insert(table, row -> {
                row.setLong(ID, 1);
                row.setString(OWNER, "x".repeat(17));
            })));
            assertTrue(e.getMessage().contains("owner"), e.getMessage());
            assertEquals(-1, balance(node, 1), "nothing changed");
        }
    }

    static final Schema TICKET = Schema.builder().addLong("id").addLong("seat").build();
    static final TableDefinition TICKETS = TableDefinition.of("ticket", TICKET, row -> row.getLong(0));
    static final IndexDefinition BY_SEAT = new IndexDefinition("ticket.by_seat", "ticket", true, row -> row.getLong(1));
    static final IndexDefinition BY_ROW = new IndexDefinition("ticket.by_row", "ticket", false, row -> row.getLong(1) / 10);

    /**
     * Deferred secondary indexes (recovery's way to load a fuzzy checkpoint): rows bulk-loaded and
     * changed by transactions meanwhile (a unique seat held by two rows for a while, a row deleted),
     * then built: both indexes hold exactly the rows' keys, and transactions keep them again afterwards.
     * A scan through a deferred index refuses; a seat still on two rows at the build is refused naming
     * the index and the seat; an index with entries cannot be deferred.
     *
     * <p>Shown to fail, each planted once: with the deferral not ended by the build, the first scan after
     * it was refused; with transactions keeping the secondary indexes while
     * deferred, the transaction giving seat 4 to a second row did not commit.
     */
    @Test
    void deferredSecondaryIndexesAreBuiltFromTheRows() {
        try (Database db = builder().computeNodes(1).table(TICKETS).index(BY_SEAT).index(BY_ROW).build()) {
            DatabaseNode node = db.node(0);
            Table ticket = node.table("ticket");
            DeferredIndexes deferred = node.deferSecondaryIndexes();
            try (BulkLoad load = node.bulkLoad()) {
                for (long id = 1; id <= 50; id++) {
                    long key = id;
                    load.insert(ticket, row -> { row.setLong(0, key); row.setLong(1, key); });
                }
            }
            commit(node, tx -> {
                for (long id = 51; id <= 100; id++) {
                    long key = id;
                    assertTrue(tx.insert(ticket, row -> { row.setLong(0, key); row.setLong(1, key); }));
                }
            });
            commit(node, tx -> assertTrue(tx.update(ticket, 3, row -> row.setLong(1, 4)))); // seat 4 twice now
            commit(node, tx -> assertTrue(tx.update(ticket, 4, row -> row.setLong(1, 300))));
            commit(node, tx -> assertTrue(tx.delete(ticket, 5)));
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> node.run(tx -> tx.scan(node.index(BY_SEAT.name()), 0, 10, 10, row -> true)));
            assertTrue(refused.getMessage().contains("ticket.by_seat"), refused.getMessage());

            assertEquals(2 * 99, deferred.build());
            assertEquals(List.of(), idsOn(node, BY_SEAT, 3));
            assertEquals(List.of(3L), idsOn(node, BY_SEAT, 4));
            assertEquals(List.of(4L), idsOn(node, BY_SEAT, 300));
            assertEquals(List.of(), idsOn(node, BY_SEAT, 5));
            assertEquals(List.of(1L, 2L, 3L, 6L, 7L, 8L, 9L), idsOn(node, BY_ROW, 0));
            assertEquals(99, node.index(BY_SEAT.name()).forEachEntry((k, v) -> true));
            assertEquals(99, node.index(BY_ROW.name()).forEachEntry((k, v) -> true));
            commit(node, tx -> assertTrue(tx.update(ticket, 4, row -> row.setLong(1, 301))));
            assertEquals(List.of(), idsOn(node, BY_SEAT, 300));
            assertEquals(List.of(4L), idsOn(node, BY_SEAT, 301));
            assertThrows(IllegalStateException.class, deferred::build, "built once");
        }
        try (Database db = builder().computeNodes(1).table(TICKETS).index(BY_SEAT).build()) {
            DatabaseNode node = db.node(0);
            Table ticket = node.table("ticket");
            DeferredIndexes deferred = node.deferSecondaryIndexes();
            commit(node, tx -> {
                assertTrue(tx.insert(ticket, row -> { row.setLong(0, 1); row.setLong(1, 7); }));
                assertTrue(tx.insert(ticket, row -> { row.setLong(0, 2); row.setLong(1, 7); }));
            });
            IllegalStateException twice = assertThrows(IllegalStateException.class, deferred::build);
            assertTrue(twice.getMessage().contains("ticket.by_seat") && twice.getMessage().contains("key 7"),
                twice.getMessage());
        }
        try (Database db = builder().computeNodes(1).table(TICKETS).index(BY_SEAT).build()) {
            DatabaseNode node = db.node(0);
            commit(node, tx -> assertTrue(tx.insert(node.table("ticket"), row -> { row.setLong(0, 1); row.setLong(1, 7); })));
            IllegalStateException full = assertThrows(IllegalStateException.class, node::deferSecondaryIndexes);
            assertTrue(full.getMessage().contains("ticket.by_seat"), full.getMessage());
        }
    }

    /** A ticket row: id and seat. */
    private static java.util.function.Consumer<TupleView> ticket(long id, long seat) {
        return row -> {
            row.setLong(0, id);
            row.setLong(1, seat);
        };
    }

    /**
     * A seat (a unique secondary key) another row holds fails at once, without a retry: an insert
     * returns false and inserts nothing, as for a taken primary key; an update aborts with
     * UNIQUE_KEY_TAKEN, which is not retryable. In one transaction a seat freed first (a row moved
     * off it, or deleted) can be taken, and a seat the transaction's own insert took cannot.
     *
     * <p>Planted bugs this caught, each once: with the write-time check ({@code Transaction.uniqueKeyTaken})
     * answering "free", the insert of the taken seat returned true and every attempt aborted at commit
     * with the retryable DUPLICATE_KEY, five attempts of five; with the check left out of {@code update}
     * only, the update onto seat 7 did the same (DUPLICATE_KEY x5 instead of UNIQUE_KEY_TAKEN once).
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void aTakenUniqueSecondaryKeyFailsAtOnce(AccessMode mode) {
        RetryPolicy five = new RetryPolicy(5, 0, 0, () -> 0L);
        try (Database db = builder().computeNodes(2).accessMode(mode).table(TICKETS).index(BY_SEAT).build()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            Table ta = a.table("ticket");
            Table tb = b.table("ticket");
            commit(a, tx -> {
                assertTrue(tx.insert(ta, ticket(1, 7)));
                assertTrue(tx.insert(ta, ticket(2, 8)));
            });

            TxnResult<Boolean> taken = b.run(five, tx -> tx.insert(tb, ticket(3, 7)));
            assertTrue(taken.committed(), "the transaction goes on after the refused insert: " + taken);
            assertEquals(false, taken.value(), "the insert says the seat is taken: " + taken);
            assertEquals(1, taken.attempts(), "not retried: " + taken);

            TxnResult<Boolean> moved = b.run(five, tx -> tx.update(tb, 2, row -> row.setLong(1, 7)));
            assertFalse(moved.committed(), "an update onto a taken seat: " + moved);
            assertEquals(AbortReason.UNIQUE_KEY_TAKEN, moved.outcome().reason(), moved.toString());
            assertFalse(moved.outcome().reason().isRetryable());
            assertEquals(1, moved.attempts(), "not retried: " + moved);
            assertEquals(List.of(1L), idsOn(b, BY_SEAT, 7));
            assertEquals(List.of(2L), idsOn(b, BY_SEAT, 8), "the aborted update left ticket 2 on its seat");
            assertNull(b.run(tx -> tx.get(tb, 3)).value(), "ticket 3 was not inserted");

            TxnResult<List<Boolean>> own = a.run(five, tx -> List.of(
                tx.update(ta, 1, row -> row.setLong(1, 9)), // frees seat 7
                tx.insert(ta, ticket(3, 7)),                // takes it
                tx.insert(ta, ticket(4, 7)),                // held by ticket 3, this transaction's own
                tx.delete(ta, 2),                           // frees seat 8
                tx.insert(ta, ticket(5, 8))));
            assertTrue(own.committed(), own.toString());
            assertEquals(List.of(true, true, false, true, true), own.value());
            assertEquals(1, own.attempts(), own.toString());
            assertEquals(List.of(3L), idsOn(b, BY_SEAT, 7));
            assertEquals(List.of(5L), idsOn(b, BY_SEAT, 8));
            assertEquals(List.of(1L), idsOn(b, BY_SEAT, 9));
            assertEquals(3, b.index(BY_SEAT.name()).forEachEntry((k, v) -> true), "one entry per ticket");
        }
    }

    /**
     * Two transactions on two nodes insert different tickets on one free seat: exactly one commits; the
     * other aborts with a retryable conflict (at its insert, or at commit), and its retry finds the seat
     * taken at once (the insert returns false). Planted bug this caught (the write-time check removed):
     * the retry's insert returned true again and the loser aborted with DUPLICATE_KEY until its retries
     * ran out.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void concurrentInsertsOfOneUniqueSecondaryKeyCommitOnce(AccessMode mode) {
        try (Database db = builder().computeNodes(2).accessMode(mode).table(TICKETS).index(BY_SEAT).build()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            Transaction t1 = a.begin();
            Transaction t2 = b.begin();
            List<AbortReason> aborts = new ArrayList<>();
            List<Boolean> inserted = new ArrayList<>();
            for (Transaction t : List.of(t1, t2)) {
                DatabaseNode node = t == t1 ? a : b;
                try {
                    inserted.add(t.insert(node.table("ticket"), ticket(t == t1 ? 1 : 2, 5)));
                } catch (AbortException e) {
                    aborts.add(e.reason());
                }
            }
            assertEquals(List.of(), inserted.stream().filter(i -> !i).toList(), "neither saw the other's uncommitted seat");
            int committed = commitActive(List.of(t1, t2), aborts);
            assertEquals(1, committed, "commits of one seat; aborts=" + aborts);
            assertEquals(1, aborts.size(), "aborts=" + aborts);
            assertTrue(aborts.get(0).isRetryable(), "a conflict, retried: " + aborts);
            long winner = idsOn(a, BY_SEAT, 5).getFirst();
            long loser = 3 - winner;
            DatabaseNode retrying = loser == 1 ? a : b;
            TxnResult<Boolean> retry = retrying.run(new RetryPolicy(5, 0, 0, () -> 0L),
                tx -> tx.insert(retrying.table("ticket"), ticket(loser, 5)));
            assertTrue(retry.committed() && !retry.value(), "the retry finds the seat taken: " + retry);
            assertEquals(1, retry.attempts(), retry.toString());
            assertEquals(1, a.index(BY_SEAT.name()).forEachEntry((k, v) -> true), "one entry");
        }
    }

    /** The contract's accounts database on {@code fabric} (two compute nodes), which the cluster closes as it ends. */
    private Database onFabric(io.selcc.fabric.Fabric fabric, AccessMode mode) {
        Database.Builder b = builder().computeNodes(2).accessMode(mode).cacheFrames(256).table(ACCOUNTS).index(BY_BRANCH);
        b.clusterSettings().fabric(fabric);
        return b.build();
    }

    /**
     * close() while a transaction is open (here on another thread, holding its update) refuses, naming
     * how many are open on which compute node, and closes nothing: the transaction still commits and a
     * second close succeeds; a transaction begun after that throws. A database opened afterwards on the
     * same memory finds no latch word busy (no reader bit, no writer tag), the committed change in
     * memory, and can change the row again (no write intent left behind).
     *
     * <p>Planted bug this caught (close without the refusal, as before): close returned with the update
     * open, every algorithm and access mode (the assertion on the refusal failed). A throwaway variant
     * that closed with the update open and never ended it showed what the refusal prevents: under 2PL
     * the second database found node 0's writer tag on the page's latch word and its update aborted
     * (LOCK_CONFLICT, for ever); under TO no latch word was busy but the row's write intent aborted the
     * update the same way; under OCC nothing was left.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    @Timeout(120)
    void closeRefusesWhileATransactionIsOpenAndLeavesNoLatchBehind(AccessMode mode) throws InterruptedException {
        io.selcc.fabric.LocalFabric memory = new io.selcc.fabric.LocalFabric(1, 64L << 20, 2,
            io.selcc.fabric.LatencyModel.OFF);
        io.selcc.fabric.ReusableFabric shared = new io.selcc.fabric.ReusableFabric(memory);
        try {
            Database first = onFabric(shared, mode);
            DatabaseNode n0 = first.node(0);
            load(n0, 4, 100);
            java.util.concurrent.CountDownLatch opened = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch finish = new java.util.concurrent.CountDownLatch(1);
            AtomicReference<CommitOutcome> outcome = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread worker = EngineThread.start("open-transaction", () -> {
                try {
                    Transaction tx = n0.begin();
                    if (!tx.update(n0.table("account"), 1, row -> row.setMoney(BALANCE, 7))) {
                        throw new AssertionError("account 1 is missing");
                    }
                    opened.countDown();
                    if (!finish.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new AssertionError("never told to finish");
                    }
                    outcome.set(tx.commit());
                } catch (Throwable e) {
                    failure.set(e);
                } finally {
                    opened.countDown();
                }
            });
            try {
                assertTrue(opened.await(60, java.util.concurrent.TimeUnit.SECONDS), "the transaction never opened");
                assertNull(failure.get(), () -> "the worker failed: " + failure.get());
                IllegalStateException refused = assertThrows(IllegalStateException.class, first::close,
                    "close with a transaction open");
                assertTrue(refused.getMessage().contains("1 running (node 0: 1)"), refused.getMessage());
                assertFalse(first.isClosed(), "nothing was closed");
            } finally {
                finish.countDown();
                worker.join(60_000);
            }
            assertFalse(worker.isAlive(), "the worker hung");
            if (failure.get() != null) {
                throw new AssertionError("the worker failed", failure.get());
            }
            assertTrue(outcome.get().committed(), "the transaction commits after the refused close: " + outcome.get());
            first.close();
            assertTrue(first.isClosed());
            IllegalStateException late = assertThrows(IllegalStateException.class, n0::begin);
            assertTrue(late.getMessage().contains("closed"), late.getMessage());
            first.close(); // a second close does nothing

            try (Database second = onFabric(shared, mode)) {
                assertEquals(List.of(), second.cluster().busyLatchWords(10), "a latch the first database kept");
                DatabaseNode n1 = second.node(1);
                assertEquals(7, balance(n1, 1), "the committed update reached memory");
                TxnResult<Boolean> again = n1.run(ONCE, tx -> tx.update(n1.table("account"), 1,
                    row -> row.setMoney(BALANCE, 8)));
                assertTrue(again.committed() && again.value(), "the row can be changed again: " + again);
            }
        } finally {
            memory.close();
        }
    }

    /** Commits each of {@code transactions} still active; adds each failed commit's reason to {@code aborts}; the commits. */
    private static int commitActive(List<Transaction> transactions, List<AbortReason> aborts) {
        int committed = 0;
        for (Transaction t : transactions) {
            if (t.isActive()) {
                CommitOutcome outcome = t.commit();
                if (outcome.committed()) {
                    committed++;
                } else {
                    aborts.add(outcome.reason());
                }
            }
        }
        return committed;
    }

    private static void commit(DatabaseNode node, java.util.function.Consumer<Transaction> body) {
        TxnResult<Object> result = node.run(tx -> {
            body.accept(tx);
            return null;
        });
        assertTrue(result.committed(), "did not commit: " + result);
    }

    private static List<Long> idsOn(DatabaseNode node, IndexDefinition index, long key) {
        TxnResult<List<Long>> result = node.run(tx -> {
            List<Long> ids = new ArrayList<>();
            tx.scan(node.index(index.name()), key, key, Integer.MAX_VALUE, row -> ids.add(row.getLong(0)));
            return ids;
        });
        assertTrue(result.committed(), "scan did not commit: " + result);
        return result.value().stream().sorted().toList();
    }
}
