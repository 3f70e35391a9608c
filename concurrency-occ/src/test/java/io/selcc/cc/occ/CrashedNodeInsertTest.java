package io.selcc.cc.occ;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.RecordingCommitLog;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OCC inserts in place before its commit, on a page it does not hold: the page can move to another
 * node, which then crashes with the uncommitted slot in its cache. The repair restores the page from
 * the logs without that slot; the inserting transaction must then fail its commit (and leave the slot
 * alone), not publish a slot that is no longer its own.
 * Seen failing without the commit's check (WriteSet.insertsIntact): the install threw "cannot publish
 * a free slot".
 */
class CrashedNodeInsertTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("v").build();
    private static final TableDefinition ROWS = TableDefinition.of("row", ROW, row -> row.getLong(0));

    @Test
    @Timeout(60)
    void anInsertTheCrashedCacheTookFailsItsCommitAndTheRestStands() {
        RecordingCommitLog log = new RecordingCommitLog();
        try (Database db = Database.builder().cc("occ").computeNodes(2).cacheFrames(256).table(ROWS).commitLog(log)
                .build()) {
            DatabaseNode a = db.node(0);
            DatabaseNode b = db.node(1);
            Table table = a.table("row");
            for (long id = 1; id <= 5; id++) { // committed rows on node a's open page
                long key = id;
                assertTrue(a.run(tx -> tx.insert(table, row -> {
                    row.setLong(0, key);
                    row.setLong(1, 0);
                })).committed());
            }
            Transaction t = a.begin();
            assertTrue(t.insert(table, row -> {
                row.setLong(0, 100);
                row.setLong(1, 1);
            }), "uncommitted insert, in place on the same page");
            // Node b updates a row of that page: the page moves to b, with t's uncommitted slot in it.
            assertTrue(b.run(tx -> tx.update(b.table("row"), 1, row -> row.setLong(1, 7))).committed());
            db.crash(1);

            CommitOutcome outcome = t.commit(); // waits for the page until the repair releases it
            assertFalse(outcome.committed(), "an insert the crashed cache took with it must not commit");
            assertEquals(AbortReason.VALIDATION_FAILED, outcome.reason());

            List<CrashRecovery.Report> repairs = db.awaitCrashRepairs();
            assertEquals(1, repairs.size());
            assertTrue(repairs.get(0).heapPages() >= 1 && repairs.get(0).slotChanges() >= 5,
                "the page came back from the log: " + repairs.get(0));
            long[] v = new long[1];
            assertTrue(a.run(tx -> tx.read(table, 1, row -> v[0] = row.getLong(1))).committed());
            assertEquals(7, v[0], "node b's committed update, which only its cache held, is back");
            boolean[] found = new boolean[1];
            a.run(tx -> found[0] = tx.read(table, 100, row -> { }));
            assertFalse(found[0], "the aborted insert is not there");
            assertTrue(a.run(tx -> tx.insert(table, row -> {
                row.setLong(0, 100);
                row.setLong(1, 2);
            })).committed(), "the key can be inserted again");
            long[] rows = new long[1];
            table.heap().scan((rid, row) -> rows[0]++);
            assertEquals(6, rows[0]);
        }
    }
}
