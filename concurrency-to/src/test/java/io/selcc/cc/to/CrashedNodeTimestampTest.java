package io.selcc.cc.to;

import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.RecordingCommitLog;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TO when a compute node crashes (node 1 here; node 0 survives and repairs it). Four things a crash
 * can do to TO's stamps and marks, each shown failing on a planted bug:
 * <ul>
 *   <li>a write intent of a transaction of the crashed node, on a line a survivor holds, is nobody's:
 *       survivors' readers and writers go past it (planted: intents' owners not checked; the update
 *       met LOCK_CONFLICT on every one of its attempts), and a reader that raises the row's read
 *       timestamp clears it rather than make it look like its own node's (planted: not cleared; the
 *       second read met LOCK_CONFLICT on every attempt);</li>
 *   <li>a read timestamp the crashed cache raised for a committed reader comes back raised: an older
 *       writer aborts instead of writing under that read (planted: finishRestore not restamping read
 *       timestamps; the older writer committed);</li>
 *   <li>a survivor's intent that the crashed cache took with it makes the survivor's commit abort, not
 *       fail as a bug (planted: the commit's crash check removed; "TO write intent lost" was thrown);</li>
 *   <li>a survivor's uncommitted insert slot that the crashed cache took with it fails the commit
 *       (planted: the commit's insertsIntact check removed; the install threw on a free slot).</li>
 * </ul>
 */
@Timeout(60)
class CrashedNodeTimestampTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("v").build();
    private static final TableDefinition ROWS = TableDefinition.of("row", ROW, row -> row.getLong(0));

    private static Database open() {
        return Database.builder().cc("to").computeNodes(2).cacheFrames(256).table(ROWS)
            .commitLog(new RecordingCommitLog()).build();
    }

    /** Rows 1..5 with v = 0, committed on node 0: one heap page. */
    private static Table load(DatabaseNode node) {
        Table table = node.table("row");
        assertTrue(node.run(tx -> {
            for (long id = 1; id <= 5; id++) {
                long key = id;
                tx.insert(table, row -> {
                    row.setLong(0, key);
                    row.setLong(1, 0);
                });
            }
            return null;
        }).committed());
        return table;
    }

    private static long valueOf(DatabaseNode node, long id) {
        long[] v = {-1};
        assertTrue(node.run(tx -> tx.read(node.table("row"), id, row -> v[0] = row.getLong(1))).committed());
        return v[0];
    }

    @Test
    void anIntentOfACrashedNodesTransactionIsNobodys() {
        try (Database db = open()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            load(a);
            Transaction dies = b.begin();
            assertTrue(dies.update(b.table("row"), 1, row -> row.setLong(1, 99)), "node 1 marks row 1");
            // Node 0 reads row 2 of the same page: the line moves to node 0, with node 1's intent on row 1.
            assertEquals(0, valueOf(a, 2));
            db.crash(1);
            db.recoverCrashedNode(1);
            assertEquals(0, valueOf(a, 1), "a younger reader goes past the dead intent");
            assertEquals(0, valueOf(a, 1), "and does not make it its own node's");
            TxnResult<Boolean> update = a.run(new RetryPolicy(20, 0, 0, () -> 0L),
                tx -> tx.update(a.table("row"), 1, row -> row.setLong(1, 7)));
            assertTrue(update.committed(), "a younger writer on a live node goes past the dead intent: " + update);
            assertEquals(7, valueOf(a, 1));
        }
    }

    @Test
    void aReadTimestampTheCrashedCacheRaisedStaysRaised() {
        try (Database db = open()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            Table table = a.table("row");
            try (io.selcc.engine.BulkLoad bulk = a.bulkLoad()) { // not logged: the repair has no change of row 1
                for (long id = 1; id <= 5; id++) {
                    long key = id;
                    bulk.insert(table, row -> {
                        row.setLong(0, key);
                        row.setLong(1, 0);
                    });
                }
            }
            db.writeBackCaches(); // memory: the rows, read by nobody yet
            Transaction older = a.begin(); // its timestamp is drawn now
            assertEquals(0, valueOf(b, 1), "a younger reader on node 1 commits (it raised row 1's read timestamp)");
            db.crash(1);
            CrashRecovery.Report repair = db.recoverCrashedNode(1);
            assertTrue(repair.heapPages() >= 1 && repair.slotChanges() == 0,
                "node 1 held the page, with no logged change on it: " + repair);
            AbortException refused = assertThrows(AbortException.class,
                () -> older.update(table, 1, row -> row.setLong(1, 5)));
            assertEquals(AbortReason.TIMESTAMP_TOO_OLD, refused.reason(),
                "an older writer must not write under a younger committed read");
            assertEquals(0, valueOf(a, 1));
        }
    }

    @Test
    void aSurvivorsIntentTheCrashedCacheTookMakesItsCommitAbort() {
        try (Database db = open()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            Table table = load(a);
            Transaction writer = a.begin();
            assertTrue(writer.update(table, 1, row -> row.setLong(1, 11)));
            assertEquals(0, valueOf(b, 2), "node 1 reads row 2 (raising its read timestamp): the page moves to node 1");
            db.crash(1);
            db.recoverCrashedNode(1);
            CommitOutcome outcome = writer.commit();
            assertFalse(outcome.committed(), "the intent went with the crashed cache: " + outcome);
            assertEquals(AbortReason.TIMESTAMP_TOO_OLD, outcome.reason());
            assertEquals(0, valueOf(a, 1));
            assertTrue(a.run(tx -> tx.update(table, 1, row -> row.setLong(1, 12))).committed(), "the row is free again");
            assertEquals(12, valueOf(a, 1));
        }
    }

    @Test
    void anInsertTheCrashedCacheTookFailsItsCommit() {
        try (Database db = open()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            Table table = load(a);
            Transaction inserter = a.begin();
            assertTrue(inserter.insert(table, row -> {
                row.setLong(0, 100);
                row.setLong(1, 1);
            }), "an uncommitted insert, in place on the page");
            assertTrue(b.run(tx -> tx.update(b.table("row"), 1, row -> row.setLong(1, 7))).committed(),
                "node 1 updates row 1: the page moves to node 1 with the uncommitted slot");
            db.crash(1);
            db.recoverCrashedNode(1);
            CommitOutcome outcome = inserter.commit();
            assertFalse(outcome.committed(), "an insert the crashed cache took with it must not commit");
            assertEquals(AbortReason.TIMESTAMP_TOO_OLD, outcome.reason());
            assertEquals(7, valueOf(a, 1), "node 1's committed update, which only its cache held, is back");
            boolean[] found = {false};
            assertTrue(a.run(tx -> found[0] = tx.read(table, 100, row -> { })).committed());
            assertFalse(found[0], "the aborted insert is not there");
            long[] rows = {0};
            table.heap().scan((rid, row) -> rows[0]++);
            assertEquals(5, rows[0]);
        }
    }
}
