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
    long readerWindowBaseNanos,
    int freeListLowWater,
    int allocationChunk) {

    /** Longest reader window: base x 2^10. */
    static final int READER_WINDOW_MAX_DOUBLINGS = 10;

    /**
     * How long readers stand aside for a writer starving at {@code priority} (5.3.2): the base window at
     * the starvation threshold, doubling with each further retry up to base x 1024. The paper grows it in
     * proportion; doubling converges even when threads outnumber cores and the writer's next attempt
     * may be a scheduler quantum away.
     */
    long readerWindowNanos(int priority) {
        int doublings = Math.min(READER_WINDOW_MAX_DOUBLINGS, Math.max(0, priority - starvationPriority));
        return readerWindowBaseNanos << doublings;
    }

    /**
     * Retry interval T = C x RTT / Nr (paper 5.1.2); 0 means "yield once". RTT is the fabric's own
     * estimate ({@link io.selcc.fabric.FabricEndpoint#roundTripNanos}), never the latency model's: on a
     * real fabric the model is off and the round trip is not zero.
     */
    long retryIntervalNanos(int retries, long roundTripNanos) {
        return backoffConstant * roundTripNanos / Math.max(1, retries);
    }
}
