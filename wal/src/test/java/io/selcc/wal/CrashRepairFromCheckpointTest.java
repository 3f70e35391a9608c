package io.selcc.wal;

import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static io.selcc.wal.CheckpointFixtures.BY_DISTRICT;
import static io.selcc.wal.CheckpointFixtures.CUSTOMERS;
import static io.selcc.wal.CheckpointFixtures.C_BALANCE;
import static io.selcc.wal.CheckpointFixtures.ITEMS;
import static io.selcc.wal.CheckpointFixtures.commit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A crashed compute node repaired from a checkpoint taken during the run: what the crashed cache alone
 * held from before the checkpoint comes back from the checkpoint's rows, what it held from after, from
 * the logs after the checkpoint's replay start.
 *
 * <p>The case that needs the checkpoint's rows: node 1 inserts 600 customers (written back to memory),
 * deletes the first 300 (whole heap pages emptied, the secondary index's leaves changed; the deletes
 * are numbered before the checkpoint's replay start and stay in node 1's cache only), then a checkpoint
 * is taken on node 0 (its scan reads the remaining rows, never the emptied pages or the secondary
 * leaves), then node 1 commits after it (updates, inserts), then crashes with every one of those lines.
 * Memory still shows the 300 deleted customers, and no log record after the replay start names them.
 *
 * <p>Shown to fail on planted bugs: with the checkpoint's rows not put on the lost heap pages (the
 * changes after it put on memory's copy alone), the deleted customers came back (600 visible tuples in
 * the heap instead of 320); with the leaves rebuilt from memory's rows instead of the checkpoint's, the secondary index held
 * 600 entries for 320 rows.
 */
@Timeout(120)
class CrashRepairFromCheckpointTest {
    @Test
    void rowsTheCrashedCacheAloneHeldBeforeTheCheckpointComeBackFromIt(@TempDir Path dir) {
        try (Wal wal = Wal.open(dir.resolve("wal"), Mode.ASYNC);
             Database db = Database.builder().cc("2pl").computeNodes(2).table(CUSTOMERS).table(ITEMS).index(BY_DISTRICT)
                 .commitLog(wal).build()) {
            DatabaseNode survivor = db.node(0);
            DatabaseNode crashing = db.node(1);
            Table customer = crashing.table("customer");
            commit(crashing, tx -> {
                for (long id = 1; id <= 600; id++) {
                    long key = id;
                    assertTrue(tx.insert(customer, row -> CheckpointFixtures.customerRow(row, key, key)));
                }
            });
            db.writeBackCaches(); // memory shows all 600: the deletes below are in node 1's cache only
            commit(crashing, tx -> {
                for (long id = 1; id <= 300; id++) {
                    assertTrue(tx.delete(customer, id));
                }
            });
            Checkpoint.Summary checkpoint = Checkpoint.write(db, dir.resolve("data"), wal, Map.of());
            assertEquals(300, checkpoint.rows());
            assertTrue(checkpoint.replayFrom() >= 2, "the deletes are at or below the replay start: " + checkpoint);
            commit(crashing, tx -> {
                for (long id = 301; id <= 310; id++) {
                    long key = id;
                    assertTrue(tx.update(customer, key, row -> row.setMoney(C_BALANCE, -key)));
                }
                for (long id = 601; id <= 620; id++) {
                    long key = id;
                    assertTrue(tx.insert(customer, row -> CheckpointFixtures.customerRow(row, key, key)));
                }
            });

            db.crash(1);
            CrashRecovery.Report repair = db.recoverCrashedNode(1);
            System.out.println("CrashRepairFromCheckpointTest: " + repair.describe());
            assertTrue(repair.base().contains(checkpoint.path().getFileName().toString()), repair.base());
            assertEquals(300, repair.baseRowsRead());
            assertTrue(repair.heapPages() > 0 && repair.leaves() > 0, "node 1 held heap pages and leaves: " + repair);

            Table table = survivor.table("customer");
            TreeMap<Long, String> rows = CheckpointFixtures.rows(survivor, table);
            assertEquals(320, rows.size(), "301..620: the deleted customers stay deleted");
            assertEquals(301L, rows.firstKey());
            assertEquals(620L, rows.lastKey());
            long[] heapRows = {0};
            table.heap().scan((rid, row) -> heapRows[0]++);
            assertEquals(320, heapRows[0], "visible tuples in the heap");
            for (long id = 301; id <= 310; id++) {
                assertTrue(rows.get(id).contains(" balance=" + (-id) + " "), "the update after the checkpoint: " + rows.get(id));
            }
            int[] byDistrict = new int[10];
            int[] entries = {0};
            survivor.index(BY_DISTRICT.name()).forEachEntry((district, rid) -> {
                entries[0]++;
                byDistrict[(int) district]++;
                return true;
            });
            assertEquals(320, entries[0], "the secondary index holds one entry per row");
            int[] expected = new int[10];
            for (long id = 301; id <= 620; id++) {
                expected[(int) (id % 10)]++;
            }
            assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(byDistrict));
            assertFalse(rows.containsKey(1L));
            commit(survivor, tx -> assertTrue(tx.insert(table, row -> CheckpointFixtures.customerRow(row, 1, 1)),
                "a deleted key can be inserted again"));
        }
    }

    /**
     * Rows bulk-loaded after the base checkpoint began are in neither it nor the log: a crash is refused
     * until a checkpoint taken after the load is published, and then every loaded row survives the repair.
     *
     * <p>Shown failing (a review found it) before bulk loads were counted: the crash was allowed and the
     * repair left 195 of 200 rows visible, the others' index entries pointing at empty slots.
     */
    @Test
    void rowsBulkLoadedAfterTheBaseCheckpointNeedANewOneBeforeACrash(@TempDir Path dir) {
        try (Wal wal = Wal.open(dir.resolve("wal"), Mode.ASYNC);
             Database db = Database.builder().cc("2pl").computeNodes(2).table(CUSTOMERS).table(ITEMS).index(BY_DISTRICT)
                 .commitLog(wal).build()) {
            DatabaseNode survivor = db.node(0);
            DatabaseNode crashing = db.node(1);
            Table customer = crashing.table("customer");
            commit(crashing, tx -> {
                for (long id = 1; id <= 10; id++) {
                    long key = id;
                    assertTrue(tx.insert(customer, row -> CheckpointFixtures.customerRow(row, key, key)));
                }
            });
            Checkpoint.write(db, dir.resolve("data"), wal, Map.of());
            try (io.selcc.engine.BulkLoad bulk = crashing.bulkLoad()) {
                for (long id = 11; id <= 200; id++) {
                    long key = id;
                    bulk.insert(customer, row -> CheckpointFixtures.customerRow(row, key, key));
                }
            }
            db.writeBackCaches();
            commit(crashing, tx -> assertTrue(tx.update(customer, 150, row -> row.setMoney(C_BALANCE, -150))));
            String refusal = db.crashRefusal(1);
            assertTrue(refusal != null && refusal.contains("bulk-loaded"), "refused: " + refusal);

            Checkpoint.write(db, dir.resolve("data"), wal, Map.of());
            assertEquals(null, db.crashRefusal(1), "a checkpoint after the load is a base again");
            commit(crashing, tx -> assertTrue(tx.update(customer, 160, row -> row.setMoney(C_BALANCE, -160))));
            db.crash(1);
            CrashRecovery.Report repair = db.recoverCrashedNode(1);
            System.out.println("CrashRepairFromCheckpointTest: " + repair.describe());
            TreeMap<Long, String> rows = CheckpointFixtures.rows(survivor, survivor.table("customer"));
            assertEquals(200, rows.size());
            long[] heapRows = {0};
            survivor.table("customer").heap().scan((rid, row) -> heapRows[0]++);
            assertEquals(200, heapRows[0], "visible tuples in the heap");
            assertTrue(rows.get(150L).contains(" balance=-150 ") && rows.get(160L).contains(" balance=-160 "));
        }
    }
}
