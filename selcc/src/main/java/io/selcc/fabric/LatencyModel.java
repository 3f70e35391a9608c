package io.selcc.fabric;

import java.util.function.LongSupplier;

/**
 * Makes remote cost visible on the in-JVM fabric: each round trip waits {@code rtt} plus the time its
 * payload takes at {@code gbps}.
 *
 * <p>How it waits: it spins on the injected clock (with {@link Thread#onSpinWait()}), because parking
 * for a few microseconds oversleeps by tens of microseconds on Linux. Its figures are therefore
 * meaningful only while runnable threads do not exceed the cores: with more threads than cores, a
 * spinning thread holds a core another thread needs and measured throughput becomes CPU-bound.
 * Tools that use it print a warning in that case.
 */
public final class LatencyModel {
    public static final LatencyModel OFF = new LatencyModel(0, 0, System::nanoTime);

    private final long rttNanos;
    private final double gbps;
    private final LongSupplier clock;

    private LatencyModel(long rttNanos, double gbps, LongSupplier clock) {
        this.rttNanos = rttNanos;
        this.gbps = gbps;
        this.clock = clock;
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
        return new LatencyModel(rttNanos, gbps, clock);
    }

    public boolean isOff() {
        return rttNanos == 0 && gbps == 0;
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
        while (clock.getAsLong() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    @Override
    public String toString() {
        return isOff() ? "off" : "rtt=" + rttNanos + "ns gbps=" + gbps;
    }
}
