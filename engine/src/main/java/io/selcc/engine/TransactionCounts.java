package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How the transactions of one compute node ended: commits, and aborts by reason (each attempt that
 * {@link DatabaseNode#run} retried counts once). Exact counts, for tests to assert on; the counters of
 * the node's cache and fabric (round trips, messages) are {@code computeNode().counters()}.
 */
public final class TransactionCounts {
    private final LongAdder committed = new LongAdder();
    private final LongAdder[] aborted = new LongAdder[AbortReason.values().length];

    TransactionCounts() {
        for (int i = 0; i < aborted.length; i++) {
            aborted[i] = new LongAdder();
        }
    }

    /** A transaction ended with {@code outcome}. */
    void ended(CommitOutcome outcome) {
        if (outcome.committed()) {
            committed.increment();
        } else {
            aborted[outcome.reason().ordinal()].increment();
        }
    }

    /** The counts now. */
    public Snapshot snapshot() {
        Map<AbortReason, Long> aborts = new EnumMap<>(AbortReason.class);
        for (AbortReason reason : AbortReason.values()) {
            long n = aborted[reason.ordinal()].sum();
            if (n != 0) {
                aborts.put(reason, n);
            }
        }
        return new Snapshot(committed.sum(), aborts);
    }

    /**
     * Counts at one moment, or the difference of two.
     *
     * @param committed transactions that committed
     * @param aborted   aborts by reason (reasons with none left out)
     */
    public record Snapshot(long committed, Map<AbortReason, Long> aborted) {
        public static final Snapshot ZERO = new Snapshot(0, Map.of());

        public Snapshot {
            aborted = Map.copyOf(aborted);
        }

        /** Aborts of every reason. */
        public long abortedTotal() {
            return aborted.values().stream().mapToLong(Long::longValue).sum();
        }

        public long aborted(AbortReason reason) {
            return aborted.getOrDefault(reason, 0L);
        }

        public Snapshot plus(Snapshot other) {
            Map<AbortReason, Long> sum = new EnumMap<>(AbortReason.class);
            sum.putAll(aborted);
            other.aborted.forEach((reason, n) -> sum.merge(reason, n, Long::sum));
            return new Snapshot(committed + other.committed, sum);
        }

        public Snapshot minus(Snapshot earlier) {
            Map<AbortReason, Long> difference = new EnumMap<>(AbortReason.class);
            difference.putAll(aborted);
            earlier.aborted.forEach((reason, n) -> difference.merge(reason, -n, Long::sum));
            difference.values().removeIf(n -> n == 0);
            return new Snapshot(committed - earlier.committed, difference);
        }
    }
}
