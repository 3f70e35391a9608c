package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.TxnResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node that opens (and starts logging) while another node's commit waits for its force must
 * not move the durable watermark past that commit: the group's durability starts where the database's
 * logging started, the same for every node. Planted bug this caught (found by a reviewer): every node
 * passing the counter at its own opening as settled (the watermark jumped to 1 with nothing forced, a
 * reader on the new node was acknowledged with it, and the later force failed the log).
 */
class LoggingStartTest {
    @Test
    @Timeout(60)
    void aNodeOpenedLaterDoesNotSettleAnotherNodesPendingCommit(@TempDir Path dir) throws Exception {
        Wal wal = Wal.open(dir, Wal.Mode.SYNC);
        wal.holdFlushersForTest();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Database db = Database.builder().cc("2pl").computeNodes(2).table(CheckpointFixtures.ITEMS)
                .commitLog(wal).build()) {
            DatabaseNode first = db.node(0);
            Future<TxnResult<Object>> commit = pool.submit(() -> first.run(tx -> {
                tx.insert(first.table("item"), row -> {
                    row.setLong(CheckpointFixtures.I_ID, 1);
                    row.setMoney(CheckpointFixtures.I_PRICE, 100);
                });
                return null;
            }));
            while (wal.waiters() < 1) {
                Thread.onSpinWait(); // the commit drew 1 and waits for its force (flushers held)
            }
            db.node(1); // opens and starts logging now
            assertEquals(0, wal.durable(), "nothing was forced, so nothing is durable");
            assertFalse(commit.isDone(), "the commit is still waiting for its force");
            for (int node = 0; node < 2; node++) {
                wal.logForTest(node).startFlusher();
            }
            assertTrue(commit.get().committed());
            assertEquals(1, wal.durable());
        } finally {
            pool.shutdownNow();
        }
    }
}
