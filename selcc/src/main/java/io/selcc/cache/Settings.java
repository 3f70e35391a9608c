package io.selcc.cache;

import io.selcc.fabric.LatencyModel;

import java.util.function.LongSupplier;

/** Validated configuration shared by all compute nodes of a cluster (built by {@link SelccCluster.Builder}). */
record Settings(
    AccessMode accessMode,
    int gclSize,
    int cacheFrames,
    int shards,
    LatencyModel latency,
    LongSupplier clock,
    int tryLockRetries,
    int upgradeAttempts,
    long pendingWaitNanos,
    long backoffConstant,
    boolean fairness,
    int lease,
    int threadsPerNode,
    int starvationPriority,
    long spinWindowNanosPerPriority,
    int freeListLowWater,
    int allocationChunk) {

    /** Retry interval T = C x RTT / Nr (paper 5.1.2); 0 means "yield once". */
    long retryIntervalNanos(int retries) {
        return backoffConstant * latency.rttNanos() / Math.max(1, retries);
    }
}
