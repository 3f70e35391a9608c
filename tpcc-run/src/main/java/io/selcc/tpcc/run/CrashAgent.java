package io.selcc.tpcc.run;

import io.selcc.engine.Database;
import io.selcc.threads.EngineThread;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code tpcc run --crash-node N}: an agent that crashes compute node N once, a given time after it
 * starts ({@link Database#crash}); the survivors repair it themselves. Its owner starts it with the run
 * and closes it after.
 */
final class CrashAgent implements AutoCloseable {
    private final Database db;
    private final int node;
    private final long afterNanos;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile boolean crashed;
    private volatile RuntimeException failure;
    private Thread thread;

    CrashAgent(Database db, int node, long afterNanos) {
        this.db = db;
        this.node = node;
        this.afterNanos = afterNanos;
    }

    void start() {
        thread = EngineThread.start("tpcc-crash-node-" + node, true, this::run);
    }

    private void run() {
        try {
            if (!stop.await(afterNanos, TimeUnit.NANOSECONDS)) {
                db.crash(node);
                crashed = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    /** Whether the node was crashed. */
    boolean crashed() {
        return crashed;
    }

    /** Stops the agent (a crash not due yet does not happen); rethrows a failed crash. */
    @Override
    public void close() {
        stop.countDown();
        EngineThread.joinUninterruptibly(thread); // the agent ends at once once stopped
        if (failure != null) {
            throw failure;
        }
    }
}
