package io.selcc.cache;

import io.selcc.threads.Waits;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Waits between latch retries: short intervals on the injected clock ({@link Waits#untilDeadline}: a
 * platform thread spins, a virtual one yields its carrier), long ones park, none yields.
 */
final class Backoff {
    /** Longer waits park the thread instead of spinning on the clock. */
    static final long PARK_FROM_NANOS = 50_000;

    private Backoff() {
    }

    static void pause(long nanos, LongSupplier clock) {
        if (nanos <= 0) {
            Thread.yield(); // a virtual thread gives its carrier to the others, a platform one its core
            return;
        }
        if (nanos >= PARK_FROM_NANOS) {
            LockSupport.parkNanos(nanos); // a network round trip: spinning that long would starve the other threads
            return;
        }
        Waits.untilDeadline(clock.getAsLong() + nanos, clock);
    }
}
