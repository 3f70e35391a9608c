package io.selcc.cc.twopl;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.Counter;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 2PL reads a committed row of an insert-only table without a latch when its page is cached readable
 * (copied, then validated against the frame's version), and falls back to a short S latch otherwise.
 * Two readers on one node read random rows of a table larger than the cache while a third thread
 * inserts more rows (X latches on the table's last page, evictions of every kind of page): every read
 * must return its row's own value. Asserts that the situation happened: reads went both ways
 * (optimistic reads counted, and some failed or missed so the latch path ran) and frames were evicted.
 * Shown failing with the copy into the caller's buffer left out of the latch-free path (the reader
 * never finds its row and its wait times out). The validation itself is shown necessary by
 * {@code OptimisticRaceTest} in the cache module: an insert-only row never changes, so only a frame
 * reused between lookup and copy could tear it here.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class InsertOnlyReadTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("value").build();
    private static final TableDefinition LEDGER = TableDefinition.of("ledger", ROW, r -> r.getLong(0))
        .withInsertOnly().withOnePerPage();
    private static final int ROWS = 400;
    private static final int READS_PER_READER = 20_000;

    @Test
    void readsWithoutALatchReturnTheRowsOwnValues() throws Exception {
        long seed = 20261127L;
        System.out.println("InsertOnlyReadTest seed=" + seed);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try (Database db = Database.builder().cc("2pl").computeNodes(1).cacheFrames(128).threadsPerNode(4)
                 .table(LEDGER).build()) {
            DatabaseNode node = db.node(0);
            Table table = node.table("ledger");
            for (long id = 1; id <= ROWS; id++) {
                insert(node, table, id);
            }
            long optimisticBefore = node.computeNode().counters().snapshot().get(Counter.OPTIMISTIC_READS);
            List<Future<Long>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                SplittableRandom random = new SplittableRandom(seed + r);
                readers.add(pool.submit(() -> {
                    long reads = 0;
                    for (int i = 0; i < READS_PER_READER; i++) {
                        long id = 1 + random.nextInt(ROWS);
                        TxnResult<Long> read = node.run(tx -> tx.get(table, id).getLong(1));
                        if (read.committed()) {
                            assertEquals(value(id), read.value(), "row " + id);
                            reads++;
                        }
                    }
                    return reads;
                }));
            }
            Future<Long> inserter = pool.submit(() -> {
                long inserted = 0;
                for (long id = ROWS + 1; id <= ROWS + 2_000; id++) {
                    insert(node, table, id);
                    inserted++;
                }
                return inserted;
            });
            long reads = 0;
            for (Future<Long> reader : readers) {
                reads += reader.get(60, TimeUnit.SECONDS);
            }
            assertEquals(2_000L, inserter.get(60, TimeUnit.SECONDS));
            long optimistic = node.computeNode().counters().snapshot().get(Counter.OPTIMISTIC_READS) - optimisticBefore;
            long failed = node.computeNode().counters().snapshot().get(Counter.OPTIMISTIC_FAILURES);
            long evictions = node.computeNode().counters().snapshot().get(Counter.EVICTIONS);
            System.out.println("InsertOnlyReadTest reads=" + reads + " optimistic=" + optimistic + " failed=" + failed
                + " evictions=" + evictions);
            assertTrue(reads > READS_PER_READER, "the readers' reads committed: " + reads);
            assertTrue(optimistic > 0, "rows were read without a latch");
            assertTrue(evictions > ROWS, "frames were evicted and reused: " + evictions);
        } finally {
            pool.shutdownNow(); // a failed reader fails the test now, not after the others' work
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "workers ended");
        }
    }

    private static long value(long id) {
        return id * 7 + 3;
    }

    private static void insert(DatabaseNode node, Table table, long id) {
        assertTrue(node.run(tx -> {
            tx.insert(table, r -> {
                r.setLong(0, id);
                r.setLong(1, value(id));
            });
            return null;
        }).committed(), "insert of row " + id);
    }
}
