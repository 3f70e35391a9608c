package io.selcc.wal;

import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The time a log's Chronicle Queue picks its cycle file by: the wall clock, never earlier than any time
 * it returned before nor than the start of the newest cycle file in the directory. Chronicle writes an
 * append into the cycle of the current time (its milliseconds: {@code RollCycle.current}); with the wall
 * clock stepped back it would append to an earlier cycle file, out of the order a reader goes through
 * the files (ClockStepBackTest saw the reader stop before those records and call the log complete:
 * acknowledged commits silently missing from a recovery). With this time an append after a step back
 * goes on in the newest cycle, which rolls again once the wall clock has caught up.
 *
 * <p>Thread-safe: Chronicle reads the time on the appending thread and on its own.
 */
final class MonotonicCycleTime implements TimeProvider {
    private static final System.Logger LOG = System.getLogger(MonotonicCycleTime.class.getName());

    private final TimeProvider wall;
    private final String what;
    /** The latest time returned (or the floor a directory set), in milliseconds. */
    private final AtomicLong floorMillis = new AtomicLong(Long.MIN_VALUE);
    /** Whether a step back was logged (once per queue: a clock that stepped back may do so again). */
    private volatile boolean stepBackLogged;

    private MonotonicCycleTime(TimeProvider wall, String what) {
        this.wall = wall;
        this.what = what;
    }

    /**
     * Builds {@code builder}'s queue with its time provider (the wall clock, or what a test set) made
     * monotonic, starting no earlier than the newest cycle file already in the directory.
     */
    static SingleChronicleQueue build(SingleChronicleQueueBuilder builder, String what) {
        MonotonicCycleTime time = new MonotonicCycleTime(builder.timeProvider(), what);
        SingleChronicleQueue queue = builder.timeProvider(time).build();
        try {
            int newest = queue.lastCycle();
            if (newest >= 0) {
                // The default cycle calculator's cycle c spans [epoch + c * length, epoch + (c + 1) * length).
                time.floorMillis.accumulateAndGet(queue.epoch() + (long) newest * queue.rollCycle().lengthInMillis(), Math::max);
            }
        } catch (RuntimeException | Error e) {
            queue.close();
            throw e;
        }
        return queue;
    }

    @Override
    public long currentTimeMillis() {
        long now = wall.currentTimeMillis();
        while (true) {
            long floor = floorMillis.get();
            if (now >= floor) {
                if (now == floor || floorMillis.compareAndSet(floor, now)) {
                    return now;
                }
            } else {
                if (!stepBackLogged) {
                    stepBackLogged = true;
                    LOG.log(System.Logger.Level.WARNING, "the wall clock is behind the log's latest cycle time by "
                        + (floor - now) + " ms: appends stay in the newest cycle file until it catches up: " + what);
                }
                return floor;
            }
        }
    }

    @Override
    public long currentTimeMicros() {
        return Math.max(wall.currentTimeMicros(), currentTimeMillis() * 1_000);
    }

    @Override
    public long currentTimeNanos() {
        return Math.max(wall.currentTimeNanos(), currentTimeMillis() * 1_000_000);
    }
}
