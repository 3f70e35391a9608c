package io.selcc.engine;

import java.util.function.LongSupplier;

/**
 * How {@link DatabaseNode#run} retries conflict aborts: at most {@code maxAttempts} attempts, waiting a
 * random time below {@code baseBackoffNanos x 2^attempt} (capped at {@code maxBackoffNanos}) between them.
 *
 * @param random source of randomness for the jitter (injected so runs can be replayed)
 */
public record RetryPolicy(int maxAttempts, long baseBackoffNanos, long maxBackoffNanos, LongSupplier random) {
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1: maxAttempts=" + maxAttempts);
        }
        if (baseBackoffNanos < 0 || maxBackoffNanos < baseBackoffNanos) {
            throw new IllegalArgumentException("backoff must satisfy 0 <= base <= max: base=" + baseBackoffNanos
                + " max=" + maxBackoffNanos);
        }
    }

    /** Built once: {@link DatabaseNode#run(java.util.function.Function)} uses it for every transaction. */
    private static final RetryPolicy DEFAULTS =
        new RetryPolicy(1000, 1_000, 1_000_000, () -> java.util.concurrent.ThreadLocalRandom.current().nextLong());

    /**
     * 1000 attempts, 1 us doubling up to 1 ms, jitter from {@link java.util.concurrent.ThreadLocalRandom}
     * (not replayable; pass a policy with a seeded source where runs must repeat).
     */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** The pause before attempt {@code attempt + 1}, after {@code attempt} failed: jittered, doubling, capped. */
    public long backoffNanos(int attempt) {
        return backoffNanos(attempt, 0);
    }

    /**
     * {@link #backoffNanos(int)} on a fabric whose round trip takes {@code roundTripNanos}: the base is at
     * least one round trip (capped by the maximum), since a conflicting holder is most likely waiting for one,
     * and retrying sooner meets it again (over TCP, 1 us doubling retried a Payment about 80 times per commit).
     */
    public long backoffNanos(int attempt, long roundTripNanos) {
        long base = Math.min(maxBackoffNanos, Math.max(baseBackoffNanos, roundTripNanos));
        long ceiling = Math.min(maxBackoffNanos, base << Math.min(attempt, 20));
        return ceiling == 0 ? 0 : Math.floorMod(random.getAsLong(), ceiling);
    }
}
