package io.selcc.cc.twopl;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wait-die 2PL through the engine: bank transfers between a few accounts (one per page, so the page
 * latches are row locks), each locking its two rows in a random order, from several compute nodes x
 * threads (platform or virtual), retried by {@link DatabaseNode#run} with one age per transfer. A
 * deadlock would hang until the timeout; the money must add up, every transfer must commit, and both
 * waits and dies must have happened (counted, not timed). The rule itself ("a younger transaction
 * never waits for an older one") is checked at the latch in selcc's WaitDieTest.
 */
class WaitDieBankTest {
    private static final int ID = 0;
    private static final int BALANCE = 1;
    private static final Schema ACCOUNT = Schema.builder().addLong("id").addLong("balance").build();
    private static final TableDefinition ACCOUNTS =
        TableDefinition.of("account", ACCOUNT, row -> row.getLong(ID)).withOnePerPage();
    private static final int ROWS = 5;
    private static final long OPENING = 1_000;

    @ParameterizedTest(name = "virtualThreads={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void transfersCommitWithoutDeadlock(boolean virtualThreads) throws Exception {
        run(3, 3, 150, virtualThreads, 41L + (virtualThreads ? 1 : 0));
    }

    @Tag("stress")
    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void manyTerminalsPerNode() throws Exception {
        run(3, 10, 3_000, true, 43L);
    }

    private static void run(int nodes, int threads, int transfersPerThread, boolean virtualThreads, long seed)
        throws Exception {
        System.out.println("WaitDieBankTest seed=" + seed + " nodes=" + nodes + " threads=" + threads + " virtual="
            + virtualThreads);
        try (Database db = Database.builder().cc("2pl").lockWait(LockWaitPolicy.WAIT_DIE).computeNodes(nodes)
            .cacheFrames(256).threadsPerNode(threads).table(ACCOUNTS).build()) {
            assertEquals(LockWaitPolicy.WAIT_DIE, db.lockWait());
            DatabaseNode loader = db.node(0);
            Table loaded = loader.table("account");
            assertTrue(loader.run(tx -> {
                for (long id = 1; id <= ROWS; id++) {
                    long key = id;
                    tx.insert(loaded, row -> {
                        row.setLong(ID, key);
                        row.setLong(BALANCE, OPENING);
                    });
                }
                return null;
            }).committed());
            RetryPolicy retry = new RetryPolicy(100_000, 1_000, 1_000_000, new SplittableRandom(seed)::nextLong);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                DatabaseNode node = db.node(n);
                Table table = node.table("account");
                for (int t = 0; t < threads; t++) {
                    SplittableRandom random = new SplittableRandom(seed * 1_000 + n * 31L + t);
                    Runnable work = () -> {
                        try {
                            for (int i = 0; i < transfersPerThread && failure.get() == null; i++) {
                                long from = 1 + random.nextInt(ROWS);
                                long to = 1 + (from + random.nextInt(ROWS - 1)) % ROWS; // another row, random order
                                long amount = 1 + random.nextInt(20);
                                TxnResult<Object> result = node.run(retry, tx -> {
                                    tx.update(table, from, row -> row.setLong(BALANCE, row.getLong(BALANCE) - amount));
                                    Thread.yield(); // work between the two rows: others run into the held one
                                    tx.update(table, to, row -> row.setLong(BALANCE, row.getLong(BALANCE) + amount));
                                    return null;
                                });
                                assertTrue(result.committed(), "transfer " + from + "->" + to + ": " + result);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    };
                    String name = "bank-" + n + "-" + t;
                    workers.add(virtualThreads ? Thread.ofVirtual().name(name).start(work)
                        : Thread.ofPlatform().name(name).start(work));
                }
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("worker failed (seed=" + seed + ")", failure.get());
            }
            TxnResult<Long> total = db.node(nodes - 1).run(tx -> {
                long sum = 0;
                for (long id = 1; id <= ROWS; id++) {
                    sum += tx.get(db.node(nodes - 1).table("account"), id).getLong(BALANCE);
                }
                return sum;
            });
            assertEquals(OPENING * ROWS, total.value(), "money created or lost (seed=" + seed + ")");
            CounterSnapshot counters = db.cluster().totalCounters();
            System.out.println("WaitDieBankTest seed=" + seed + " waits=" + counters.get(Counter.WAIT_DIE_WAITS) + " dies="
                + counters.get(Counter.WAIT_DIE_DIES) + " timeouts=" + counters.get(Counter.WAIT_DIE_TIMEOUTS));
            assertTrue(counters.get(Counter.WAIT_DIE_WAITS) > 0, "no transaction waited (seed=" + seed + ")");
            assertTrue(counters.get(Counter.WAIT_DIE_DIES) > 0, "no transaction died (seed=" + seed + ")");
        }
    }
}
