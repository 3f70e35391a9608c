package io.selcc.tpcc.run;

import org.HdrHistogram.Histogram;

/**
 * What a run's commit logs did over the whole run (warm-up included: a log's counters are not reset when
 * the measurement starts), summed over every compute node's log.
 *
 * @param mode                 {@code off}, {@code async} or {@code sync}
 * @param durabilityWaitMicros how long commits waited for their force (sync, one process); null otherwise
 */
public record LogFigures(String mode, long records, long forces, long bytes, Histogram durabilityWaitMicros) {
    /** These figures with another process's log's added (its waits are not: they stay in its process). */
    LogFigures plus(LogFigures other) {
        return new LogFigures(mode, records + other.records, forces + other.forces, bytes + other.bytes, null);
    }

    /** Commit records per force; 0 with no force. */
    public double recordsPerForce() {
        return forces == 0 ? 0 : records / (double) forces;
    }
}
