package io.selcc.fabric;

import java.util.LinkedHashMap;
import java.util.Map;

/** An immutable set of counter values (of one node, or summed over several). */
public final class CounterSnapshot {
    private final long[] values;

    CounterSnapshot(long[] values) {
        this.values = values;
    }

    public static CounterSnapshot zero() {
        return new CounterSnapshot(new long[Counter.count()]);
    }

    /** A snapshot with these values (the others zero): what {@link #nonZero} of another gave, carried elsewhere. */
    public static CounterSnapshot of(Map<Counter, Long> values) {
        long[] v = new long[Counter.count()];
        values.forEach((counter, value) -> v[counter.ordinal()] = value);
        return new CounterSnapshot(v);
    }

    public long get(Counter counter) {
        return values[counter.ordinal()];
    }

    public CounterSnapshot plus(CounterSnapshot other) {
        long[] sum = values.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += other.values[i];
        }
        return new CounterSnapshot(sum);
    }

    public CounterSnapshot minus(CounterSnapshot other) {
        long[] diff = values.clone();
        for (int i = 0; i < diff.length; i++) {
            diff[i] -= other.values[i];
        }
        return new CounterSnapshot(diff);
    }

    public long invalidationsSent() {
        return get(Counter.INVALIDATIONS_SENT_WRITER_VS_MODIFIED)
            + get(Counter.INVALIDATIONS_SENT_READER_VS_MODIFIED)
            + get(Counter.INVALIDATIONS_SENT_WRITER_VS_SHARED);
    }

    /** Non-zero counters, in declaration order. */
    public Map<Counter, Long> nonZero() {
        Map<Counter, Long> map = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            if (values[i] != 0) {
                map.put(Counter.at(i), values[i]);
            }
        }
        return map;
    }

    @Override
    public String toString() {
        return nonZero().toString();
    }
}
