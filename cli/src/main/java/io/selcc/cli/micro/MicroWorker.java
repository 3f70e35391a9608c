package io.selcc.cli.micro;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One front-end thread of one compute node: locks one GCL per operation, reads or increments its
 * first word, unlocks, and records the operation's latency. Counts are read by the driver while the
 * worker runs (progress lines), hence atomics; latencies go through a recorder for the same reason.
 */
final class MicroWorker implements Runnable {
    private static final int PERCENT = 100;
    /** Offset in the data region of the word every operation reads or increments. */
    private static final int VALUE_OFFSET = 0;
    /** Latency precision: three significant digits, 0.1% error, auto-resizing range. */
    static final int LATENCY_DIGITS = 3;

    private final ComputeNode node;
    private final AccessPattern pattern;
    private final int readPercent;
    private final SplittableRandom random;
    private final RunControl control;
    private final SingleWriterRecorder latencyNanos = new SingleWriterRecorder(LATENCY_DIGITS);
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    /** Stores every value read into a field of this (escaped) object, so no read can be optimised away. */
    private long sink;

    MicroWorker(ComputeNode node, AccessPattern pattern, int readPercent, SplittableRandom random, RunControl control) {
        this.node = node;
        this.pattern = pattern;
        this.readPercent = readPercent;
        this.random = random;
        this.control = control;
    }

    @Override
    public void run() {
        try {
            control.awaitStart();
            while (!control.stopRequested()) {
                long gcl = pattern.next();
                boolean read = random.nextInt(PERCENT) < readPercent;
                long begin = System.nanoTime();
                if (read) {
                    GclHandle h = node.sLock(gcl);
                    sink += h.getLong(VALUE_OFFSET);
                    node.unlock(h);
                } else {
                    GclHandle h = node.xLock(gcl);
                    h.putLong(VALUE_OFFSET, h.getLong(VALUE_OFFSET) + 1);
                    node.unlock(h);
                }
                latencyNanos.recordValue(System.nanoTime() - begin);
                // Single writer per counter: a release store is enough for the driver's reads and
                // avoids a locked add per operation.
                AtomicLong count = read ? reads : writes;
                count.lazySet(count.get() + 1);
            }
        } catch (Throwable t) {
            control.fail(new IllegalStateException("worker failed: thread=" + Thread.currentThread().getName()
                + " node=" + node.nodeId(), t));
        }
    }

    int nodeId() {
        return node.nodeId();
    }

    long reads() {
        return reads.get();
    }

    long writes() {
        return writes.get();
    }

    long ops() {
        return reads.get() + writes.get();
    }

    /** Latencies recorded since the previous call (the first call: since the start), in nanoseconds. */
    Histogram takeLatency() {
        return latencyNanos.getIntervalHistogram();
    }
}
