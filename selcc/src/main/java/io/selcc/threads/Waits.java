package io.selcc.threads;

import java.util.function.LongSupplier;

/**
 * The engine's short waits that do not park: a modelled round trip of a few microseconds, a latch
 * backoff, a fencer waiting for a verb in flight. Parking for a few microseconds oversleeps by tens
 * of microseconds on Linux, so a platform thread spins; a virtual thread must not, because it would
 * hold its carrier, and the thread it waits for (or every other terminal) may need that very carrier.
 * A virtual thread therefore yields between looks: alone on its carrier it is back at once (the
 * precision stays), otherwise the carrier runs the other virtual threads meanwhile.
 *
 * <p>Waits that can last (a lock, a reply, a durable commit) park instead, through
 * {@link java.util.concurrent.locks.LockSupport}, {@link java.util.concurrent.locks.Condition} or
 * {@code synchronized}, all of which unmount a virtual thread on JDK 25.
 */
public final class Waits {
    private Waits() {
    }

    /** Returns once {@code clock} reaches {@code deadlineNanos} (compared as {@link System#nanoTime} values). */
    public static void untilDeadline(long deadlineNanos, LongSupplier clock) {
        if (Thread.currentThread().isVirtual()) {
            while (clock.getAsLong() - deadlineNanos < 0) {
                Thread.yield();
            }
        } else {
            while (clock.getAsLong() - deadlineNanos < 0) {
                Thread.onSpinWait();
            }
        }
    }

    /**
     * Like {@link #untilDeadline}, but a platform thread yields its core between looks instead of spinning:
     * for a wait that exists to let another thread (a starving writer) run on a loaded machine.
     */
    public static void untilDeadlineGivingWay(long deadlineNanos, LongSupplier clock) {
        while (clock.getAsLong() - deadlineNanos < 0) {
            Thread.yield(); // a virtual thread gives its carrier, a platform one its core
        }
    }

    /**
     * One turn of a short wait for another thread's progress (a verb it is finishing, a drain): a virtual
     * thread yields its carrier, which the awaited thread may need; a platform thread spins. Only for
     * waits bounded by the other thread's short step; anything longer must park.
     */
    public static void briefly() {
        if (Thread.currentThread().isVirtual()) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
    }
}
