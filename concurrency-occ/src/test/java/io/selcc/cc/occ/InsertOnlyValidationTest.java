package io.selcc.cc.occ;

import io.selcc.cache.AccessMode;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OCC does not validate reads of insert-only rows (issue 8): such a committed row never changes, so
 * its validation could only pass, and each one cost a latch at commit (ten per TPC-C New-Order for its
 * items). Shown failing with the skip removed: the commit then latched once per row read, as for the
 * ordinary table.
 */
class InsertOnlyValidationTest {
    private static final Schema ITEM = Schema.builder().addLong("id").addLong("price").build();
    private static final int ROWS = 10;

    /** GCL accesses of the commit of a transaction that read {@link #ROWS} rows. */
    private static long commitAccesses(boolean insertOnly) {
        TableDefinition items = TableDefinition.of("item", ITEM, row -> row.getLong(0));
        try (Database db = Database.builder().cc("occ").computeNodes(1).accessMode(AccessMode.SELCC).cacheFrames(64)
                .table(insertOnly ? items.withInsertOnly() : items).build()) {
            DatabaseNode node = db.node(0);
            Table table = node.table("item");
            assertTrue(node.run(tx -> {
                for (long id = 1; id <= ROWS; id++) {
                    long key = id;
                    tx.insert(table, row -> {
                        row.setLong(0, key);
                        row.setLong(1, 100 * key);
                    });
                }
                return null;
            }).committed());
            Transaction tx = node.begin();
            for (long id = 1; id <= ROWS; id++) {
                assertEquals(100 * id, tx.get(table, id).getLong(1));
            }
            CounterSnapshot beforeCommit = tx.counters();
            assertEquals(CommitOutcome.COMMITTED, tx.commit());
            CounterSnapshot commit = tx.counters().minus(beforeCommit);
            return commit.get(Counter.CACHE_HITS) + commit.get(Counter.CACHE_MISSES) + commit.get(Counter.OPTIMISTIC_READS);
        }
    }

    @Test
    void readsOfInsertOnlyRowsAreNotValidated() {
        assertEquals(0, commitAccesses(true), "GCL accesses of a commit that read only insert-only rows");
    }

    /** The situation the skip is for: an ordinary table's reads are each re-latched at commit. */
    @Test
    void readsOfOrdinaryRowsAreValidated() {
        long accesses = commitAccesses(false);
        assertTrue(accesses >= ROWS, "validation latched each row's page: " + accesses);
    }
}
