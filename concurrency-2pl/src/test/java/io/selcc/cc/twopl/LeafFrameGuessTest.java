package io.selcc.cc.twopl;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.fabric.Counter;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No-wait 2PL latches an index leaf with the tree's guess at its cache frame: an insert's leaf, found
 * from the thread's leaf hint without reading an inner node, goes to the cache with the frame it was in.
 * Once the tree's lines are evicted and their frames taken by other lines, that guess is stale: the
 * cache counts it and looks the leaf up, and the insert and every key stay right. Fails with the guard
 * dropping the guess (the stale guess is never met, as nothing else of the insert guesses).
 */
class LeafFrameGuessTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("value").build();
    private static final TableDefinition ACCOUNTS = TableDefinition.of("accounts", ROW, r -> r.getLong(0));
    private static final int FRAMES = 64;
    /** Small lines (a few dozen entries per leaf): 100 keys make a tree whose root is no longer a leaf. */
    private static final int GCL = 512;
    private static final int KEYS = 100;

    @Test
    void anInsertsLeafLatchTakesTheTreesGuessAndAStaleOneCostsOnlyALookup() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).gclSize(GCL).cacheFrames(FRAMES).table(ACCOUNTS).build()) {
            DatabaseNode node = db.node(0);
            Table accounts = node.table("accounts");
            ComputeNode cache = node.computeNode();
            for (long id = 1; id <= KEYS; id++) {
                insert(node, accounts, id); // from the second on, the rightmost leaf from the hint, with its guessed frame
            }

            long evictionsBefore = cache.counters().snapshot().get(Counter.EVICTIONS);
            for (int i = 0; i < 4 * FRAMES; i++) {
                GclHandle h = cache.xLock(cache.allocate());
                h.putLong(0, -i);
                cache.unlock(h);
            }
            assertTrue(cache.counters().snapshot().get(Counter.EVICTIONS) - evictionsBefore >= 3 * FRAMES,
                "lines left the cache");
            long staleBefore = cache.counters().snapshot().get(Counter.FRAME_HINT_MISSES);
            insert(node, accounts, KEYS + 1); // the leaf from the hint, not by a descent: only the leaf's guess is met
            assertTrue(cache.counters().snapshot().get(Counter.FRAME_HINT_MISSES) > staleBefore,
                "the leaf's stale guess was met");
            for (long id = 1; id <= KEYS + 1; id++) {
                long key = id;
                long[] value = new long[1];
                assertTrue(node.run(tx -> tx.read(accounts, key, row -> value[0] = row.getLong(1))).committed());
                assertEquals(10 * id, value[0], "key " + id);
            }
        }
    }

    private static void insert(DatabaseNode node, Table table, long id) {
        assertTrue(node.run(tx -> {
            tx.insert(table, r -> {
                r.setLong(0, id);
                r.setLong(1, 10 * id);
            });
            return null;
        }).committed());
    }
}
