package io.selcc.fabric;

import io.selcc.threads.PerThread;
import io.selcc.threads.ThreadRegistry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters of one compute node. Each thread increments its own block (no contention, no atomic
 * instruction); a snapshot sums the blocks. Sums are exact once the counting threads are quiescent
 * (joined); read while they run they may lag by a few increments. A block whose thread ended is folded
 * into {@link #retired} (see {@link ThreadRegistry}), so many short-lived virtual threads do not grow the
 * list a snapshot sums.
 */
public final class NodeCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final int nodeId;
    /** Counts of threads that ended, folded in by {@link #blocks} under its monitor. */
    private final long[] retired = new long[Counter.count()];
    private final ThreadRegistry<long[]> blocks = new ThreadRegistry<>(this::retire, block -> false);
    private final PerThread<long[]> local = PerThread.withInitial(this::newBlock);
    private volatile long[] baseline = new long[Counter.count()];

    public NodeCounters(int nodeId) {
        this.nodeId = nodeId;
    }

    public int nodeId() {
        return nodeId;
    }

    private long[] newBlock() {
        return blocks.register(new long[Counter.count()]);
    }

    /** A dead thread's block: its counts join {@link #retired} (called under the registry's monitor). */
    private void retire(long[] block) {
        for (int i = 0; i < retired.length; i++) {
            retired[i] += (long) SLOT.getOpaque(block, i);
        }
    }

    /** Blocks held for threads (tests: bounded by the live threads, not by every thread that ever counted). */
    int liveBlocks() {
        return blocks.size();
    }

    public void increment(Counter counter) {
        add(counter, 1);
    }

    public void add(Counter counter, long delta) {
        add(local.get(), counter, delta);
    }

    /**
     * The calling thread's block of counts, for a hot path that keeps it with its other per-thread
     * state and counts through {@link #add(long[], Counter, long)} (one thread-local lookup fewer).
     */
    public long[] threadBlock() {
        return local.get();
    }

    /** Counts into a block {@link #threadBlock()} gave the calling thread. */
    public static void add(long[] block, Counter counter, long delta) {
        int i = counter.ordinal();
        // Opaque: a concurrent snapshot sees a recent value, never a torn one.
        SLOT.setOpaque(block, i, (long) SLOT.getOpaque(block, i) + delta);
    }

    /** Totals since the last {@link #reset()}. */
    public CounterSnapshot snapshot() {
        long[] sum = raw();
        long[] base = baseline;
        for (int i = 0; i < sum.length; i++) {
            sum[i] -= base[i];
        }
        return new CounterSnapshot(sum);
    }

    /**
     * What the calling thread has counted on this node, since the thread started (resets do not
     * apply). Exact at any time: a transaction's cost is the difference of two of these.
     */
    public CounterSnapshot threadSnapshot() {
        long[] block = local.get();
        long[] copy = new long[block.length];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = (long) SLOT.getOpaque(block, i);
        }
        return new CounterSnapshot(copy);
    }

    /**
     * Copies what {@link #threadSnapshot()} would hold into {@code into} (indexed by
     * {@link Counter#ordinal()}, one slot per counter at least): for a caller that measures
     * every transaction and should not allocate a snapshot per measurement.
     */
    public void threadCounts(long[] into) {
        long[] block = local.get();
        for (int i = 0; i < block.length; i++) {
            into[i] = (long) SLOT.getOpaque(block, i);
        }
    }

    /** Starts counting from zero; counting threads need not stop. */
    public void reset() {
        baseline = raw();
    }

    private long[] raw() {
        long[] sum = new long[Counter.count()];
        synchronized (blocks) { // no block is retired while the live ones and the retired sum are added up
            blocks.forEach(block -> {
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += (long) SLOT.getOpaque(block, i);
                }
            });
            for (int i = 0; i < sum.length; i++) {
                sum[i] += retired[i];
            }
        }
        return sum;
    }
}
