package io.selcc.tpcc.driver;

import io.selcc.engine.cc.AbortReason;
import org.HdrHistogram.Histogram;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one terminal (or, merged, the run) measured for one transaction type. Only the owning
 * terminal writes it until the run ends.
 */
public final class TypeStats {
    static final int LATENCY_DIGITS = 3;

    long committed;
    /** New-Order rollbacks (1% invalid item): completed, included in {@link #committed}. */
    long rolledBack;
    /** Transactions that gave up (retries exhausted or a non-retryable abort). */
    long failed;
    final Map<AbortReason, Long> aborts = new EnumMap<>(AbortReason.class);
    final Histogram latencyMicros = new Histogram(LATENCY_DIGITS);
    long roundTrips;
    long messages;
    /** GCL latches (cache hits and misses) and optimistic reads: the lines a transaction touched. */
    long gclAccesses;
    long bytesRead;
    /** Heap bytes the terminal thread allocated for these transactions (see TpccDriver). */
    long allocatedBytes;
    /** Delivery only: districts with no new order. */
    long skippedDistricts;

    void merge(TypeStats other) {
        committed += other.committed;
        rolledBack += other.rolledBack;
        failed += other.failed;
        other.aborts.forEach((reason, n) -> aborts.merge(reason, n, Long::sum));
        latencyMicros.add(other.latencyMicros);
        roundTrips += other.roundTrips;
        messages += other.messages;
        gclAccesses += other.gclAccesses;
        bytesRead += other.bytesRead;
        allocatedBytes += other.allocatedBytes;
        skippedDistricts += other.skippedDistricts;
    }

    public long committed() {
        return committed;
    }

    public long rolledBack() {
        return rolledBack;
    }

    public long failed() {
        return failed;
    }

    /** Conflict aborts (each retried attempt counts once), by reason. */
    public Map<AbortReason, Long> aborts() {
        return aborts;
    }

    public long aborted() {
        return aborts.values().stream().mapToLong(Long::longValue).sum();
    }

    public Histogram latencyMicros() {
        return latencyMicros;
    }

    /** Transactions that ended (committed, rolled back or failed): the denominator of per-transaction costs. */
    public long ended() {
        return committed + failed;
    }

    public double roundTripsPerTxn() {
        return ended() == 0 ? 0 : (double) roundTrips / ended();
    }

    public double allocatedBytesPerTxn() {
        return ended() == 0 ? 0 : (double) allocatedBytes / ended();
    }

    public double messagesPerTxn() {
        return ended() == 0 ? 0 : (double) messages / ended();
    }

    /**
     * GCL accesses per transaction: latches taken (cache hits and misses) plus optimistic reads. An
     * exact, machine-independent measure of the work a transaction does in the cache (each access
     * touches a frame and its data), where the host's noise hides a change in time.
     */
    public double gclAccessesPerTxn() {
        return ended() == 0 ? 0 : (double) gclAccesses / ended();
    }

    public long skippedDistricts() {
        return skippedDistricts;
    }

    public double percentileMicros(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getValueAtPercentile(percentile);
    }
}
