package io.selcc.wal;

import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.fabric.Counter;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.SplittableRandom;

import static io.selcc.wal.CheckpointFixtures.BY_DISTRICT;
import static io.selcc.wal.CheckpointFixtures.CUSTOMERS;
import static io.selcc.wal.CheckpointFixtures.C_BALANCE;
import static io.selcc.wal.CheckpointFixtures.ITEMS;
import static io.selcc.wal.CheckpointFixtures.commit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a crash repair reads of memory does not grow a round trip per line with the database: a node that
 * held one heap page and two index leaves of a table of 3,000 rows (500 pages) is repaired in a few dozen
 * round trips, the lost leaves rebuilt right. The repair walked the table's page chain and every index's
 * leaves one line per round trip (over TCP 5-20 s for a TPC-C warehouse, with every survivor waiting;
 * issue 28). Shown failing on the code before (1,230 round trips; 58 now) and with
 * {@code ComputeNode.snapshots} planted to read one line per round trip (1,225).
 */
@Timeout(120)
class CrashRepairReadsTest {
    private static final int CUSTOMERS_LOADED = 3_000;

    @Test
    void aRepairReadsMemoryManyLinesPerRoundTrip(@TempDir Path dir) {
        try (Wal wal = Wal.open(dir.resolve("wal"), Mode.ASYNC);
             Database db = Database.builder().cc("2pl").computeNodes(2).cacheFrames(4096).table(CUSTOMERS).table(ITEMS)
                 .index(BY_DISTRICT).commitLog(wal).build()) {
            DatabaseNode survivor = db.node(0);
            DatabaseNode crashing = db.node(1);
            SplittableRandom random = new SplittableRandom(28);
            Table customers = survivor.table("customer");
            for (int from = 1; from <= CUSTOMERS_LOADED; from += 500) {
                int first = from;
                commit(survivor, tx -> {
                    for (long id = first; id < first + 500; id++) {
                        long key = id;
                        long seed = random.nextLong();
                        assertTrue(tx.insert(customers, row -> CheckpointFixtures.customerRow(row, key, seed)));
                    }
                });
            }
            db.writeBackCaches();
            Table mine = crashing.table("customer");
            commit(crashing, tx -> {
                long seed = random.nextLong();
                assertTrue(tx.insert(mine, row -> CheckpointFixtures.customerRow(row, CUSTOMERS_LOADED + 1, seed)));
                assertTrue(tx.update(mine, 17, row -> row.setMoney(C_BALANCE, -17)));
            });

            db.crash(1);
            long before = survivor.computeNode().counters().snapshot().get(Counter.ROUND_TRIPS);
            CrashRecovery.Report repair = db.recoverCrashedNode(1);
            long roundTrips = survivor.computeNode().counters().snapshot().get(Counter.ROUND_TRIPS) - before;
            System.out.println("CrashRepairReadsTest: " + roundTrips + " round trips; " + repair.describe());
            assertTrue(repair.heapPages() >= 1 && repair.leaves() >= 2,
                "node 1 held its insert's page and leaves of both indexes: " + repair.describe());
            // The scan of latch words (512 per round trip), a batch of the lost lines, the four trees level by
            // level, a sweep of memory (512 lines per round trip, pages of the customer table read again), and
            // a few round trips per lost line to adopt and release it.
            assertTrue(roundTrips <= 100, "round trips of the repair: " + roundTrips + " for " + repair.describe());

            long[] heapRows = {0};
            survivor.table("customer").heap().scan((rid, row) -> heapRows[0]++);
            assertEquals(CUSTOMERS_LOADED + 1, heapRows[0], "visible tuples in the heap");
            long[] entries = {0};
            survivor.index(BY_DISTRICT.name()).forEachEntry((district, rid) -> {
                entries[0]++;
                return true;
            });
            assertEquals(CUSTOMERS_LOADED + 1, entries[0], "the rebuilt secondary leaves hold every row once");
            assertEquals(-17, survivor.run(tx -> tx.get(survivor.table("customer"), 17).getMoney(C_BALANCE)).value(),
                "node 1's committed update came back from the log");
            assertTrue(survivor.run(tx -> tx.get(survivor.table("customer"), CUSTOMERS_LOADED + 1) != null).value(),
                "node 1's committed insert came back, found through the rebuilt primary leaf");
        }
    }
}
