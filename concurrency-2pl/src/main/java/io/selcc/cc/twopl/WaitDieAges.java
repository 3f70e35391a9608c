package io.selcc.cc.twopl;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Wait-die ages for one compute node, with no round trip: {@code [microseconds since 2020 | 4 bits of
 * sequence | 6 bits of node id]}, smaller = older. The node id makes ages unique across nodes; within a
 * node an age is above the last one handed out (a burst within one microsecond borrows from the next
 * ones). Nodes in one process share the clock; processes on one machine read the same wall clock, so
 * their ages interleave in real-time order up to the moment each read its base. Ages of nodes on
 * different machines would be as far apart as their clocks: only fairness suffers (a node whose clock
 * runs behind looks older), not the absence of deadlock, which needs only a fixed total order.
 *
 * <p>The alternative, one FAA on the global counter per transaction (TO's timestamps), is a round trip
 * to memory node 0 for every transaction and a word all nodes contend on; these cost a clock read and a
 * CAS on a node-local word.
 */
final class WaitDieAges {
    /** 2020-01-01T00:00:00Z in microseconds since the epoch: 2^52 microseconds from it last until 2162. */
    private static final long EPOCH_MICROS = 1_577_836_800_000_000L;
    private static final int SEQUENCE_BITS = 4;
    private static final int NODE_BITS = 6;

    private final int nodeId;
    /** Wall-clock microseconds (injected: tests pass a fixed or stepping clock). */
    private final LongSupplier micros;
    /** The last {@code [micros | sequence]} handed out. */
    private final AtomicLong last = new AtomicLong();

    WaitDieAges(int nodeId, LongSupplier micros) {
        if (nodeId < 0 || nodeId >= 1 << NODE_BITS) {
            throw new IllegalArgumentException("node id does not fit a wait-die age: nodeId=" + nodeId);
        }
        this.nodeId = nodeId;
        this.micros = micros;
    }

    /**
     * Wall-clock microseconds without allocating per read: the wall clock read once, then advanced by
     * the monotonic nano clock (a wall clock that steps back would otherwise hand out older ages).
     */
    static LongSupplier systemMicros() {
        java.time.Instant now = java.time.Instant.now();
        long baseMicros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
        long baseNanos = System.nanoTime();
        return () -> baseMicros + (System.nanoTime() - baseNanos) / 1_000;
    }

    long next() {
        long floor = (micros.getAsLong() - EPOCH_MICROS) << SEQUENCE_BITS;
        while (true) {
            long previous = last.get();
            long stamp = Math.max(previous + 1, floor);
            if (last.compareAndSet(previous, stamp)) {
                return stamp << NODE_BITS | nodeId;
            }
        }
    }
}
