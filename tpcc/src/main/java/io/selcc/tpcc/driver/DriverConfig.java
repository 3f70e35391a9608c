package io.selcc.tpcc.driver;

import io.selcc.engine.RetryPolicy;
import io.selcc.tpcc.TpccRandom;

/**
 * How a run goes.
 *
 * @param warehouses warehouses loaded (terminals' home warehouses cycle over them)
 * @param terminalsPerNode terminal threads per compute node
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
 */
public record DriverConfig(int warehouses, int terminalsPerNode, long durationNanos, long warmupNanos, long seed,
                           Mix mix, boolean waitTimes, TpccRandom.Constants constants, RetryPolicy retry,
                           int crossPartitionPercent) {
    /** A run with the spec's remote New-Order lines. */
    public DriverConfig(int warehouses, int terminalsPerNode, long durationNanos, long warmupNanos, long seed,
                        Mix mix, boolean waitTimes, TpccRandom.Constants constants, RetryPolicy retry) {
        this(warehouses, terminalsPerNode, durationNanos, warmupNanos, seed, mix, waitTimes, constants, retry, -1);
    }

    public DriverConfig {
        if (crossPartitionPercent < -1 || crossPartitionPercent > 100) {
            throw new IllegalArgumentException("cross-partition share must be 0..100 (or -1): " + crossPartitionPercent);
        }
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses must be >= 1: warehouses=" + warehouses);
        }
        if (terminalsPerNode < 1) {
            throw new IllegalArgumentException("terminals per node must be >= 1: terminalsPerNode=" + terminalsPerNode);
        }
        if (durationNanos <= 0) {
            throw new IllegalArgumentException("duration must be > 0: durationNanos=" + durationNanos);
        }
        if (warmupNanos < 0) {
            throw new IllegalArgumentException("warm-up must be >= 0: warmupNanos=" + warmupNanos);
        }
    }
}
