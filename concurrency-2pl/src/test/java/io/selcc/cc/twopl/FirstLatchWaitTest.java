package io.selcc.cc.twopl;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.engine.cc.AbortException;
import io.selcc.fabric.Counter;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No-wait 2PL waits a while (at least 50 ms) for a transaction's first latch (it holds none, so it cannot
 * close a waits-for cycle) and refuses every later one as before. A holder keeps the hot row X-latched
 * until the test lets it go (within a few milliseconds): a transaction whose first access is the hot row
 * parks behind it and commits at its first attempt; one that already holds a row aborts on the hot row at
 * once; and a holder that then wants the second one's row is not deadlocked (that one aborted and let
 * go). Planted bug caught: waiting for every latch, not only the first (with an unbounded wait, the
 * second transaction waited instead of aborting and the holder deadlocked with it: the timeout fired).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FirstLatchWaitTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("value").build();
    private static final TableDefinition ROWS = TableDefinition.of("row", ROW, r -> r.getLong(0)).withOnePerPage();
    private static final long HOT = 1;
    private static final long OTHER = 2;

    @Test
    void aTransactionHoldingNothingQueuesAndOneHoldingALatchAborts() throws Exception {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).cacheFrames(256).threadsPerNode(4)
            .table(ROWS).build()) {
            DatabaseNode node = db.node(0);
            Table table = node.table("row");
            assertTrue(node.run(tx -> {
                for (long id = HOT; id <= OTHER; id++) {
                    long key = id;
                    tx.insert(table, r -> {
                        r.setLong(0, key);
                        r.setLong(1, 0);
                    });
                }
                return null;
            }).committed());

            Transaction holder = node.begin();
            holder.update(table, HOT, r -> r.setLong(1, r.getLong(1) + 1)); // X on the hot row's page, kept

            // Holds nothing yet: its first latch is the hot row, so it parks behind the holder.
            AtomicReference<TxnResult<Object>> waited = new AtomicReference<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            Thread queued = Thread.ofVirtual().start(() -> {
                try {
                    started.countDown();
                    waited.set(node.run(tx -> {
                        tx.update(table, HOT, r -> r.setLong(1, r.getLong(1) + 10));
                        return null;
                    }));
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            started.await();
            while (queued.getState() != Thread.State.WAITING && queued.getState() != Thread.State.TIMED_WAITING
                && queued.isAlive()) {
                Thread.onSpinWait(); // until it parks on the latch (a state, not a time)
            }
            long waits = db.cluster().totalCounters().get(Counter.FIRST_LATCH_WAITS);
            assertTrue(waits >= 1, "the queued transaction waited for its first latch: " + waits);

            // Holds the other row first: the hot row is then refused at once (no-wait), and it lets go.
            Transaction second = node.begin();
            second.update(table, OTHER, r -> r.setLong(1, r.getLong(1) + 100));
            AbortException refused = assertThrows(AbortException.class,
                () -> second.update(table, HOT, r -> r.setLong(1, 0)));
            assertEquals(io.selcc.engine.cc.AbortReason.LOCK_CONFLICT, refused.reason());
            assertTrue(!second.isActive(), "the refused transaction rolled back and released the other row");

            // The holder now takes the other row (free again) and commits; the queued one follows.
            holder.update(table, OTHER, r -> r.setLong(1, r.getLong(1) + 1000));
            assertTrue(holder.commit().committed());
            queued.join();
            if (failure.get() != null) {
                throw new AssertionError("the queued transaction failed", failure.get());
            }
            assertTrue(waited.get().committed(), waited.get().toString());
            assertEquals(1, waited.get().attempts(), "it waited instead of aborting: " + waited.get());
            TxnResult<long[]> values = node.run(tx -> new long[] {tx.get(table, HOT).getLong(1), tx.get(table, OTHER).getLong(1)});
            assertEquals(11, values.value()[0], "both updates of the hot row");
            assertEquals(1000, values.value()[1], "the refused transaction's update was rolled back");
        }
    }

    /**
     * A branch of a distributed transaction refuses even its first busy latch: its other branches hold
     * latches on other nodes while it would wait, and two such transactions could wait for each other
     * across nodes. Planted bug caught: the branch flag ignored (the branch then waited for the latch:
     * with an unbounded wait the test's timeout fired; with the bounded one the wait is counted).
     */
    @Test
    void aDistributedBranchRefusesEvenItsFirstLatch() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).cacheFrames(256).table(ROWS).build()) {
            DatabaseNode node = db.node(0);
            Table table = node.table("row");
            assertTrue(node.run(tx -> tx.insert(table, r -> {
                r.setLong(0, HOT);
                r.setLong(1, 0);
            })).committed());
            Transaction holder = node.begin();
            holder.update(table, HOT, r -> r.setLong(1, 1));
            Transaction branch = node.begin().asDistributedBranch();
            long waitsBefore = db.cluster().totalCounters().get(Counter.FIRST_LATCH_WAITS);
            AbortException refused = assertThrows(AbortException.class,
                () -> branch.update(table, HOT, r -> r.setLong(1, 2)));
            assertEquals(io.selcc.engine.cc.AbortReason.LOCK_CONFLICT, refused.reason());
            assertEquals(waitsBefore, db.cluster().totalCounters().get(Counter.FIRST_LATCH_WAITS),
                "the branch refused its first latch without waiting");
            assertTrue(holder.commit().committed());
        }
    }
}
