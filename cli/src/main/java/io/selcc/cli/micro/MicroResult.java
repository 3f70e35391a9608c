package io.selcc.cli.micro;

import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import org.HdrHistogram.Histogram;

import java.util.List;

/**
 * What one measured run produced.
 *
 * @param measuredNanos time from the end of warm-up to the stop signal
 * @param counters protocol counters summed over compute nodes, reset at the start of the measured run
 * @param latencyNanos one value per operation
 */
record MicroResult(long measuredNanos, List<NodeResult> nodes, CounterSnapshot counters, Histogram latencyNanos,
                   int sharedGcls, int privateGclsPerNode) {
    private static final double NANOS_PER_SECOND = 1e9;
    private static final double NANOS_PER_MICRO = 1e3;
    private static final double MEDIAN = 50;
    private static final double P99 = 99;

    /** Operations of one compute node. */
    record NodeResult(int node, long reads, long writes) {
        long ops() {
            return reads + writes;
        }
    }

    long ops() {
        return nodes.stream().mapToLong(NodeResult::ops).sum();
    }

    double seconds() {
        return measuredNanos / NANOS_PER_SECOND;
    }

    double opsPerSec() {
        return perSecond(ops());
    }

    double perSecond(long count) {
        return measuredNanos == 0 ? 0 : count / seconds();
    }

    double roundTripsPerOp() {
        return perOp(counters.get(Counter.ROUND_TRIPS));
    }

    double invalidationsPerOp() {
        return perOp(counters.invalidationsSent());
    }

    /** Hits over lookups; 0 when nothing was looked up. SEL counts every access as a miss. */
    double cacheHitRatio() {
        long hits = counters.get(Counter.CACHE_HITS);
        long lookups = hits + counters.get(Counter.CACHE_MISSES);
        return lookups == 0 ? 0 : (double) hits / lookups;
    }

    double p50Micros() {
        return latencyNanos.getValueAtPercentile(MEDIAN) / NANOS_PER_MICRO;
    }

    double p99Micros() {
        return latencyNanos.getValueAtPercentile(P99) / NANOS_PER_MICRO;
    }

    private double perOp(long count) {
        long ops = ops();
        return ops == 0 ? 0 : (double) count / ops;
    }
}
