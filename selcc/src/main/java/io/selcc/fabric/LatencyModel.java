package io.selcc.fabric;

import io.selcc.threads.Waits;

import java.util.function.LongSupplier;

/**
 * Makes remote cost visible on the in-JVM fabric: each round trip waits {@code rtt} plus the time its
 * payload takes at {@code gbps}.
 *
 * <p>How it waits ({@link Waits#untilDeadline}): a platform thread spins on the injected clock, because
 * parking for a few microseconds oversleeps by tens of microseconds on Linux; its figures are therefore
 * meaningful only while runnable platform threads do not exceed the cores (tools that use it print a
 * warning otherwise). A virtual thread yields its carrier between looks at the clock, so a terminal
 * waiting for its round trip lets the carrier run the other terminals meanwhile.
 */
public final class LatencyModel {
    public static final LatencyModel OFF = new LatencyModel(0, 0, System::nanoTime, null);

    private final long rttNanos;
    private final double gbps;
    private final LongSupplier clock;
    /** Tests: told as each round trip starts waiting (see {@link #tellingWaits}); null in production. */
    private final Runnable waitStarted;

    private LatencyModel(long rttNanos, double gbps, LongSupplier clock, Runnable waitStarted) {
        this.rttNanos = rttNanos;
        this.gbps = gbps;
        this.clock = clock;
        this.waitStarted = waitStarted;
    }

    /**
     * @param rttNanos round-trip time in nanoseconds, 0 = none
     * @param gbps bandwidth in gigabits per second, 0 = unlimited
     */
    public static LatencyModel of(long rttNanos, double gbps) {
        return of(rttNanos, gbps, System::nanoTime);
    }

    public static LatencyModel of(long rttNanos, double gbps, LongSupplier clock) {
        if (rttNanos < 0) {
            throw new IllegalArgumentException("round-trip time must be >= 0: rttNanos=" + rttNanos);
        }
        if (gbps < 0 || Double.isNaN(gbps)) {
            throw new IllegalArgumentException("bandwidth must be >= 0: gbps=" + gbps);
        }
        return new LatencyModel(rttNanos, gbps, clock, null);
    }

    /**
     * Tests: this model, running {@code waitStarted} on the waiting thread as each round trip starts its
     * wait (its deadline already read from the clock). With a clock the test moves only when enough
     * round trips wait at once, replies are held until then: a test counts the terminals that wait
     * together on one carrier this way.
     */
    public LatencyModel tellingWaits(Runnable waitStarted) {
        if (waitStarted == null) {
            throw new NullPointerException("waitStarted");
        }
        return new LatencyModel(rttNanos, gbps, clock, waitStarted);
    }

    public boolean isOff() {
        return rttNanos == 0 && gbps == 0 && waitStarted == null;
    }

    public long rttNanos() {
        return rttNanos;
    }

    public double gbps() {
        return gbps;
    }

    /** Nanoseconds one round trip carrying {@code payloadBytes} costs. */
    public long costNanos(long payloadBytes) {
        long transfer = gbps == 0 ? 0 : (long) (payloadBytes * 8 / gbps);
        return rttNanos + transfer;
    }

    /** Waits for one round trip carrying {@code payloadBytes}. */
    public void await(long payloadBytes) {
        if (isOff()) {
            return;
        }
        long deadline = clock.getAsLong() + costNanos(payloadBytes);
        if (waitStarted != null) {
            waitStarted.run();
        }
        Waits.untilDeadline(deadline, clock);
    }

    @Override
    public String toString() {
        return isOff() ? "off" : "rtt=" + rttNanos + "ns gbps=" + gbps;
    }
}
