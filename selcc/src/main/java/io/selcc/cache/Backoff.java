package io.selcc.cache;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/** Waits between latch retries: spin on the injected clock for short intervals, park for long ones, yield when there is none. */
final class Backoff {
    /** Longer waits park the thread instead of spinning on the clock. */
    static final long PARK_FROM_NANOS = 50_000;

    private Backoff() {
    }

    static void pause(long nanos, LongSupplier clock) {
        if (nanos <= 0) {
            Thread.yield();
            return;
        }
        if (nanos >= PARK_FROM_NANOS) {
            LockSupport.parkNanos(nanos); // a network round trip: spinning that long would starve the other threads
            return;
        }
        long deadline = clock.getAsLong() + nanos;
        while (clock.getAsLong() - deadline < 0) {
            Thread.onSpinWait();
        }
    }
}
