package io.selcc.cc.to;

import io.selcc.cache.AccessMode;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Index;
import io.selcc.engine.IndexDefinition;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.Counter;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 28, long readers starve under TO. Three compute nodes (SELCC); two scanners (nodes 0 and 1) each
 * read all {@value #ROWS} rows of a table through its secondary index, {@value #SCANS_PER_SCANNER} times,
 * while three writers (one per node) move single rows between index keys: a stream that goes on until
 * the scanners are done, and at least {@value #MOVES_PER_WRITER} moves each. Every transaction runs with
 * at most {@value #ATTEMPTS} attempts. Asserted: every scan and every move committed within them, every
 * committed scan saw every row once, and transactions went ahead (the conflicts happened). It prints the
 * scans' and moves' commits and attempts.
 *
 * <p>Before the ahead token, a scan needed 25 to 100 attempts and each scanner committed 0 to 15 scans
 * while the writers made 9,000 commits: younger writers moved rows the scan had not read yet. Shown
 * failing (3 runs of 3 each): with the token off (AHEAD_FROM_ATTEMPT = Integer.MAX_VALUE), "a scan gave
 * up after 30 attempts" (nearly all of them TIMESTAMP_TOO_OLD) among 6,000 to 10,000 moves; with the
 * token but a normal attempt instead of waiting while it is busy, "a move gave up" after 30 attempts,
 * all TIMESTAMP_TOO_OLD (writers retrying against an ahead scan slowed it to tens of milliseconds).
 */
@Timeout(120)
class LongScansAmongMoversTest {
    static final int ROWS = 300;
    static final int BUCKETS = 30;
    static final int SCANS_PER_SCANNER = 10;
    static final int MOVES_PER_WRITER = 300;
    static final int ATTEMPTS = 30;

    private static final int ID = 0;
    private static final int BUCKET = 1;
    private static final int VALUE = 2;
    private static final Schema ROW = Schema.builder().addLong("id").addInt("bucket").addLong("value").build();
    private static final TableDefinition TABLE = TableDefinition.of("row", ROW, row -> row.getLong(ID));
    private static final IndexDefinition BY_BUCKET = new IndexDefinition("row.by_bucket", "row", false,
        row -> row.getInt(BUCKET));

    @Test
    void everyScanCommitsWithinItsAttemptsWhileWritersMoveRows() throws Exception {
        run(SCANS_PER_SCANNER, MOVES_PER_WRITER);
    }

    /** The same for longer: {@code bin/test -Pstress}. */
    @Test
    @Tag("stress")
    @Timeout(900)
    void everyScanCommitsWithinItsAttemptsWhileWritersMoveRowsForLong() throws Exception {
        run(50 * SCANS_PER_SCANNER, 30 * MOVES_PER_WRITER);
    }

    private static void run(int scansPerScanner, int movesPerWriter) throws Exception {
        long seed = Long.getLong("selcc.seed", System.nanoTime());
        System.out.println("LongScansAmongMoversTest seed=" + seed);
        try (Database db = Database.builder().cc("to").computeNodes(3).accessMode(AccessMode.SELCC).cacheFrames(256)
                .table(TABLE).index(BY_BUCKET).build()) {
            load(db.node(0));
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger scannersRunning = new AtomicInteger(2);
            AtomicLong moves = new AtomicLong();
            AtomicLong movesWhileScanning = new AtomicLong();
            AtomicLong moveAttempts = new AtomicLong();
            AtomicLong mostMoveAttempts = new AtomicLong();
            long[] scanAttempts = new long[2];
            int[] mostScanAttempts = new int[2];
            CountDownLatch start = new CountDownLatch(5);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                DatabaseNode node = db.node(w);
                SplittableRandom random = new SplittableRandom(seed + w);
                RetryPolicy bounded = new RetryPolicy(ATTEMPTS, 1_000, 1_000_000, random::nextLong);
                threads.add(Thread.ofPlatform().name("writer-" + w).start(() -> {
                    try {
                        start.countDown();
                        start.await();
                        Table table = node.table("row");
                        for (int i = 0; i < movesPerWriter || scannersRunning.get() > 0; i++) {
                            long id = random.nextLong(ROWS);
                            int step = 1 + random.nextInt(BUCKETS - 1);
                            TxnResult<Boolean> r = node.run(bounded, tx -> tx.update(table, id,
                                row -> row.setInt(BUCKET, (row.getInt(BUCKET) + step) % BUCKETS)));
                            assertTrue(r.committed() && r.value(), "a move gave up: " + r);
                            moves.incrementAndGet();
                            if (scannersRunning.get() > 0) {
                                movesWhileScanning.incrementAndGet();
                            }
                            moveAttempts.addAndGet(r.attempts());
                            mostMoveAttempts.accumulateAndGet(r.attempts(), Math::max);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (int s = 0; s < 2; s++) {
                DatabaseNode node = db.node(s);
                int me = s;
                SplittableRandom random = new SplittableRandom(seed + 10 + s);
                RetryPolicy bounded = new RetryPolicy(ATTEMPTS, 1_000, 1_000_000, random::nextLong);
                threads.add(Thread.ofPlatform().name("scanner-" + s).start(() -> {
                    try {
                        start.countDown();
                        start.await();
                        Index index = node.index("row.by_bucket");
                        for (int i = 0; i < scansPerScanner; i++) {
                            TxnResult<long[]> r = node.run(bounded, tx -> {
                                long[] seen = new long[2];
                                tx.readRange(index, 0, BUCKETS - 1, Integer.MAX_VALUE, row -> {
                                    seen[0]++;
                                    seen[1] += row.getLong(VALUE);
                                    return true;
                                });
                                return seen;
                            });
                            scanAttempts[me] += r.attempts();
                            mostScanAttempts[me] = Math.max(mostScanAttempts[me], r.attempts());
                            assertTrue(r.committed(), "a scan gave up after " + ATTEMPTS + " attempts (scans committed"
                                + " before it " + i + "): " + r);
                            assertEquals(ROWS, r.value()[0], "rows seen by a committed scan");
                            assertEquals(ROWS * (ROWS - 1L) / 2, r.value()[1], "sum of values seen by a committed scan");
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        scannersRunning.decrementAndGet();
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            long ahead = db.cluster().totalCounters().get(Counter.TO_AHEAD_ATTEMPTS);
            String counts = "scans=" + scansPerScanner + " each in " + scanAttempts[0] + "," + scanAttempts[1]
                + " attempts (most " + mostScanAttempts[0] + "," + mostScanAttempts[1] + "); moves while they ran="
                + movesWhileScanning + ", in all " + moves + " in " + moveAttempts + " attempts (most "
                + mostMoveAttempts + "); ahead attempts=" + ahead + " seed=" + seed;
            System.out.println("LongScansAmongMoversTest " + counts);
            if (failure.get() != null) {
                throw new AssertionError(counts, failure.get());
            }
            assertTrue(ahead > 0, "no transaction went ahead, so none kept failing: " + counts);
        }
    }

    /** Rows 0..ROWS-1, value = id, dealt over the buckets. */
    private static void load(DatabaseNode node) {
        Table table = node.table("row");
        assertTrue(node.run(tx -> {
            for (long id = 0; id < ROWS; id++) {
                long key = id;
                tx.insert(table, row -> {
                    row.setLong(ID, key);
                    row.setInt(BUCKET, (int) (key % BUCKETS));
                    row.setLong(VALUE, key);
                });
            }
            return null;
        }).committed());
    }
}
