package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.selcc.wal.CheckpointFixtures.I_ID;
import static io.selcc.wal.CheckpointFixtures.I_PRICE;
import static io.selcc.wal.CheckpointFixtures.ITEMS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * A checkpoint over an {@link Mode#ASYNC} log: its commits force nothing, but a checkpoint is published
 * only once every node's log is forced through the checkpoint's covered number (so a crash of the
 * machine cannot lose a transaction the checkpoint holds), and not at all when that force fails. A
 * waiter for the log blocks uninterruptibly, so the tests run under a timeout in a separate thread.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class AsyncCheckpointTest {
    private static final int NODES = 2;
    /** Commits per compute node before the checkpoint. */
    private static final int COMMITS = 20;

    /**
     * Two nodes commit into their ASYNC logs: nothing is forced. A checkpoint covers every commit;
     * when it returns, each log was forced (counted) through the last number it appended, the highest
     * of which is the checkpoint's covered number. Commits after it are unforced again.
     *
     * <p>Shown to fail: with {@link Checkpoint#write} waiting for the watermark as before (ASYNC's wait
     * returns at once), the checkpoint was published with 0 forces.
     */
    @Test
    void theLogsAreForcedThroughTheCheckpointBeforeItIsPublished(@TempDir Path dir) {
        Path data = dir.resolve("data");
        CapturingLogs logs = new CapturingLogs(Wal.open(dir.resolve("wal"), Mode.ASYNC));
        try (Database db = Database.builder().cc("2pl").computeNodes(NODES).table(ITEMS).commitLog(logs).build()) {
            long key = 0;
            for (int i = 0; i < COMMITS; i++) {
                for (int n = 0; n < NODES; n++) {
                    insert(db.node(n), ++key);
                }
            }
            assertEquals(NODES * COMMITS, logs.wal.counters().appends());
            assertEquals(0, logs.wal.counters().forces(), "ASYNC commits force nothing");

            Checkpoint.Summary summary = Checkpoint.write(db, data, logs.wal, Map.of());

            assertEquals(NODES * COMMITS, summary.coveredThrough());
            assertEquals(NODES * COMMITS, summary.rows());
            long highestForced = 0;
            for (int n = 0; n < NODES; n++) {
                ChronicleCommitLog log = logs.opened[n];
                assertTrue(logs.wal.counters(n).forces() >= 1, "node " + n + "'s log was forced: " + logs.wal.counters(n));
                assertEquals(log.lastAppended(), log.forcedThroughForTest(), "node " + n + "'s log forced through its last append");
                highestForced = Math.max(highestForced, log.forcedThroughForTest());
            }
            assertEquals(summary.coveredThrough(), highestForced, "the forces covered the checkpoint's covered number");

            long forces = logs.wal.counters().forces();
            insert(db.node(0), ++key);
            insert(db.node(1), ++key);
            assertEquals(forces, logs.wal.counters().forces(), "commits after the checkpoint are unforced again");
        }
    }

    /**
     * A force that fails (node 1's flusher channel closed underneath, after a first checkpoint opened
     * it) abandons the next checkpoint: it names the log, and the first checkpoint stays the only file.
     *
     * <p>Shown to fail: with {@link Checkpoint#write} waiting for the watermark as before, the second
     * checkpoint was published (no force was tried).
     */
    @Test
    void aFailedForceAbandonsTheCheckpoint(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        Path logDirectory = dir.resolve("wal");
        CapturingLogs logs = new CapturingLogs(Wal.open(logDirectory, Mode.ASYNC));
        Database db = Database.builder().cc("2pl").computeNodes(NODES).table(ITEMS).commitLog(logs).build();
        try {
            insert(db.node(0), 1);
            insert(db.node(1), 2);
            Checkpoint.Summary first = Checkpoint.write(db, data, logs.wal, Map.of());
            logs.opened[1].breakForcesForTest();
            insert(db.node(0), 3);
            insert(db.node(1), 4);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Checkpoint.write(db, data, logs.wal, Map.of()));
            assertTrue(e.getMessage().contains("coveredThrough=4")
                && e.getMessage().contains(Wal.nodeDirectory(logDirectory, 1).toString()), e.getMessage());
            assertEquals(List.of(first.path().getFileName().toString()), CheckpointTest.list(data),
                "the first checkpoint stays, nothing else");
        } finally {
            try {
                db.close();
            } catch (RuntimeException e) {
                System.out.println("closing a database with a failed log: " + e);
            }
        }
    }

    private static void insert(DatabaseNode node, long key) {
        Table item = node.table("item");
        CheckpointFixtures.commit(node, tx -> assertTrue(tx.insert(item, row -> {
            row.setLong(I_ID, key);
            row.setMoney(I_PRICE, key);
        })));
    }
}
