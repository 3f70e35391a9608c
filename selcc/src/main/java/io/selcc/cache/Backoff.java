package io.selcc.cache;

import java.util.function.LongSupplier;

/** Waits between latch retries: spin on the injected clock for short intervals, yield when there is none. */
final class Backoff {
    private Backoff() {
    }

    static void pause(long nanos, LongSupplier clock) {
        if (nanos <= 0) {
            Thread.yield();
            return;
        }
        long deadline = clock.getAsLong() + nanos;
        while (clock.getAsLong() - deadline < 0) {
            Thread.onSpinWait();
        }
    }
}
