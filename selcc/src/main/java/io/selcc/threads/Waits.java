package io.selcc.threads;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The engine's short waits, which do not park for their length: a modelled round trip of a few microseconds, a
 * latch backoff, a fencer waiting for a verb in flight. Parking for a few microseconds oversleeps by tens
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
    /**
     * Yields in a row after which a waiting virtual thread parks for a moment instead. {@link Thread#yield}
     * puts a virtual thread back in its carrier's local queue whenever that queue is not empty, and the
     * carrier runs its local queue before the scheduler's external queue (where every started thread, and
     * every thread woken from outside the carrier, is queued): two waiters can pass the carrier between them
     * and keep those threads from running until their deadlines pass. A parked waiter leaves the local queue,
     * so its partner's next yield finds it empty and goes to the external queue, behind the others. On one
     * carrier with a clock that moves only once every thread waits (a test's), the two waited for ever
     * (ParkingWaitsTest: about one run in forty hung).
     */
    private static final int YIELDS_BEFORE_A_PARK = 64;

    private Waits() {
    }

    /** Returns once {@code clock} reaches {@code deadlineNanos} (compared as {@link System#nanoTime} values). */
    public static void untilDeadline(long deadlineNanos, LongSupplier clock) {
        if (Thread.currentThread().isVirtual()) {
            for (int yields = 1; clock.getAsLong() - deadlineNanos < 0; yields++) {
                yieldOrPark(yields);
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
        boolean virtual = Thread.currentThread().isVirtual();
        for (int yields = 1; clock.getAsLong() - deadlineNanos < 0; yields++) {
            if (virtual) {
                yieldOrPark(yields);
            } else {
                Thread.yield(); // a platform thread gives its core
            }
        }
    }

    /**
     * A virtual thread's turn in a wait: yields its carrier, and every {@link #YIELDS_BEFORE_A_PARK}th time
     * parks, unless interrupted (an interrupted thread's park returns at once, without leaving the carrier).
     */
    private static void yieldOrPark(int yields) {
        if (yields % YIELDS_BEFORE_A_PARK == 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(1);
        } else {
            Thread.yield();
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
