package io.selcc.tpcc.driver;

import io.selcc.engine.RetryPolicy;
import io.selcc.tpcc.TpccRandom;

/**
 * How a run goes.
 *
 * @param warehouses warehouses loaded (terminals' home warehouses cycle over them)
 * @param terminalsPerWarehouse terminals per warehouse (the spec has 10), placed on compute nodes by {@code placement}
 * @param placement which compute node runs each warehouse's terminals
 * @param terminalThreads whether each terminal is a virtual thread (parks while it waits) or a platform thread
 * @param durationNanos measured interval
 * @param warmupNanos run before the measured interval; nothing it does is counted
 * @param seed seed of every terminal's random stream
 * @param mix transaction mix weights
 * @param waitTimes whether terminals wait the spec's keying and think times (off: back to back)
 * @param constants NURand constants (the run's C values; C_LAST's load value is the loader's)
 * @param retry how conflict aborts are retried
 * @param crossPartitionPercent the share of New-Orders with a line supplied by another compute node's
 *                              warehouse ({@link io.selcc.tpcc.txn.InputGenerator#crossPartition}), or -1
 *                              for the spec's 1% remote lines
 * @param activePerNode at most this many of a compute node's terminals run a transaction at once, the others
 *                      queue for a turn (a transaction monitor's server pool); {@link #UNLIMITED}: every
 *                      terminal runs its own
 */
public record DriverConfig(int warehouses, int terminalsPerWarehouse, TerminalPlacement.Placement placement,
                           TerminalThreads terminalThreads, long durationNanos, long warmupNanos, long seed,
                           Mix mix, boolean waitTimes, TpccRandom.Constants constants, RetryPolicy retry,
                           int crossPartitionPercent, int activePerNode) {
    /** {@link #crossPartitionPercent} of a run with the spec's 1% remote New-Order lines instead of a share. */
    public static final int SPEC_REMOTE_LINES = -1;
    /** {@link #activePerNode} of a run whose terminals do not queue: each runs its transactions when it likes. */
    public static final int UNLIMITED = 0;

    /** What runs a terminal. */
    public enum TerminalThreads {
        /** A virtual thread: a terminal waiting on a round trip, a latch or the disk gives its carrier to another. */
        VIRTUAL,
        /** A platform thread per terminal (the model before issue 27; for comparisons). */
        PLATFORM;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Virtual terminals at their home nodes, with the spec's remote New-Order lines. */
    public DriverConfig(int warehouses, int terminalsPerWarehouse, long durationNanos, long warmupNanos, long seed,
                        Mix mix, boolean waitTimes, TpccRandom.Constants constants, RetryPolicy retry) {
        this(warehouses, terminalsPerWarehouse, TerminalPlacement.Placement.HOME, TerminalThreads.VIRTUAL, durationNanos,
            warmupNanos, seed, mix, waitTimes, constants, retry, SPEC_REMOTE_LINES, UNLIMITED);
    }

    /** Where the terminals of this run sit on {@code computeNodes} compute nodes. */
    public TerminalPlacement terminals(int computeNodes) {
        return TerminalPlacement.of(warehouses, terminalsPerWarehouse, computeNodes, placement);
    }

    public DriverConfig {
        if (crossPartitionPercent < SPEC_REMOTE_LINES || crossPartitionPercent > 100) {
            throw new IllegalArgumentException("cross-partition share must be 0..100 (or -1): " + crossPartitionPercent);
        }
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses must be >= 1: warehouses=" + warehouses);
        }
        if (terminalsPerWarehouse < 1) {
            throw new IllegalArgumentException("terminals per warehouse must be >= 1: terminalsPerWarehouse="
                + terminalsPerWarehouse);
        }
        if (placement == null || terminalThreads == null) {
            throw new IllegalArgumentException("placement and terminal threads are required: placement=" + placement
                + " terminalThreads=" + terminalThreads);
        }
        if (durationNanos <= 0) {
            throw new IllegalArgumentException("duration must be > 0: durationNanos=" + durationNanos);
        }
        if (activePerNode < 0) {
            throw new IllegalArgumentException("active transactions per node must be >= 0 (0: unlimited): "
                + activePerNode);
        }
        if (warmupNanos < 0) {
            throw new IllegalArgumentException("warm-up must be >= 0: warmupNanos=" + warmupNanos);
        }
    }
}
