package io.selcc.tpcc.run;

import io.selcc.engine.Database;
import io.selcc.threads.EngineThread;
import io.selcc.wal.Checkpoint;
import io.selcc.wal.Wal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An agent that writes a checkpoint of a kept database every interval while the terminals run
 * ({@code tpcc run --checkpoint-every}): recovery then replays only the log after the newest one, and
 * each checkpoint removes the log files it covers. The checkpoints are fuzzy ({@link Checkpoint#write});
 * its owner starts it after recovery and stops it before the run's last checkpoint.
 */
final class Checkpointer implements AutoCloseable {
    private final Database db;
    private final Path dir;
    private final Wal wal;
    private final Map<String, String> properties;
    private final long intervalNanos;
    private final PrintStream out;
    /** Called once if a checkpoint fails (the run stops: its data directory cannot take what it writes). */
    private final Runnable onFailure;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile Throwable failure;
    private volatile int written;
    private volatile int abandoned;
    private Thread thread;

    Checkpointer(Database db, Path dir, Wal wal, Map<String, String> properties, long intervalNanos, PrintStream out,
                 Runnable onFailure) {
        this.db = db;
        this.dir = dir;
        this.wal = wal;
        this.properties = properties;
        this.intervalNanos = intervalNanos;
        this.out = out;
        this.onFailure = onFailure;
    }

    void start() {
        thread = EngineThread.start("tpcc-checkpointer", true, this::run);
    }

    /** The duty cycle: wait an interval (or the stop), write a checkpoint. */
    private void run() {
        try {
            while (!stop.await(intervalNanos, TimeUnit.NANOSECONDS)) {
                Checkpoint.Summary s;
                try {
                    s = Checkpoint.write(db, dir, wal, properties);
                } catch (io.selcc.fabric.NodeFailedException e) {
                    // The node the scan read through crashed (--crash-node): nothing was published; the
                    // next checkpoint reads through a live node.
                    abandoned++;
                    out.printf(Locale.ROOT, "checkpoint abandoned: compute node %d crashed under its scan%n", e.node());
                    continue;
                }
                written++;
                // The driver's progress stream: one printf is one line, never cut by a progress line.
                out.printf(Locale.ROOT, "checkpoint %s written during the run: %,d rows, replay from sequence %,d,"
                    + " in %.1f s, %d log files removed%n", s.path().getFileName(), s.rows(), s.replayFrom(),
                    s.millis() / 1000.0, s.logFilesRemoved());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            failure = e;
            onFailure.run();
        }
    }

    /** Checkpoints abandoned because the node their scan read through crashed. */
    int abandoned() {
        return abandoned;
    }

    /** Checkpoints written so far. */
    int written() {
        return written;
    }

    /**
     * Stops the agent, waiting for a checkpoint in progress to finish.
     *
     * @throws RunFailedException if a checkpoint failed (a full or unwritable data directory; the
     *                                 directory keeps the previous checkpoint and the log)
     */
    @Override
    public void close() {
        stop.countDown();
        EngineThread.joinUninterruptibly(thread);
        if (failure != null) {
            throw new RunFailedException("a checkpoint during the run failed, the run stopped: "
                + RunFailedException.withRootCause(failure) + "; " + dir + " keeps the previous checkpoint and the log",
                failure);
        }
    }
}
