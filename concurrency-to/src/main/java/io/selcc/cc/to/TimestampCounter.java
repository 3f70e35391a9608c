package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.fabric.Counter;
import io.selcc.fabric.Fabric;

import java.util.concurrent.locks.LockSupport;

/**
 * TO's global counter word and the timestamps drawn from it, on one compute node. Both layouts live
 * here and nowhere else.
 *
 * <pre>
 * counter word (8 bytes on memory node 0, {@code CcEnvironment.timestampCounter}; FAA and CAS only)
 *   63  62        56 55                                        0
 *  +---+------------+------------------------------------------+
 *  | 0 | ahead      | counter                                  |
 *  |   | holder + 1 | (+1 per draw, +AHEAD_DISTANCE per ahead  |
 *  |   | (0: free)  |  attempt ended and per crash repair)     |
 *  +---+------------+------------------------------------------+
 *
 * timestamp
 *   63  62                                        7   6    5     0
 *  +---+------------------------------------------+-------+--------+
 *  | 0 | counter value                            | ahead | node   |
 *  +---+------------------------------------------+-------+--------+
 * </pre>
 *
 * The node that drew a timestamp is in its low bits, so timestamps are unique and a write intent (whose
 * owner's timestamp is the row's read timestamp) names its owner's node.
 *
 * <p><b>Ahead</b> (issue 28): an attempt that follows many failed ones may take the one <em>ahead
 * token</em> (the holder field) and then runs with the timestamp {@code counter + AHEAD_DISTANCE}
 * instead of {@code counter}: every transaction that draws while it runs is older than it. A younger
 * writer can then no longer overwrite, before this one reads them, the rows and leaves it is about to
 * read (what made a long scan among writers abort almost every time); an older writer that comes to what
 * it read aborts instead, as TO always had it. When the attempt ends (committed or not), one FAA clears
 * the token and adds {@code AHEAD_DISTANCE} to the counter, so every later transaction is younger again.
 * The ahead bit keeps its timestamp unique should the others draw that far meanwhile.
 */
final class TimestampCounter {
    /** Low bits of a timestamp that name the compute node that drew it. */
    static final int NODE_BITS = Integer.SIZE - Integer.numberOfLeadingZeros(Fabric.MAX_COMPUTE_NODES - 1);
    static final int NODE_MASK = (1 << NODE_BITS) - 1;
    /** The bit of a timestamp taken with the ahead token. */
    static final long AHEAD_BIT = 1L << NODE_BITS;
    private static final int COUNTER_SHIFT = NODE_BITS + 1;
    static final int HOLDER_SHIFT = 56;
    private static final long COUNTER_MASK = (1L << HOLDER_SHIFT) - 1;
    /**
     * How far ahead of its draw an ahead attempt's timestamp is: it stays younger than the next 262,144
     * draws of the whole cluster (seconds of transactions), and the counter's 56 bits last for 2^38 ahead
     * attempts.
     */
    static final long AHEAD_DISTANCE = 1L << 18;
    /**
     * Looks at the counter word an attempt waiting for the ahead token makes before it runs as a normal
     * attempt: pauses from 1 us doubling to {@link #TOKEN_PAUSE_MAX_NANOS}, so at least about 0.1 s.
     */
    private static final int TOKEN_WAIT_POLLS = 1_000;
    private static final long TOKEN_PAUSE_MAX_NANOS = 100_000;

    static {
        if (Fabric.MAX_COMPUTE_NODES + 1 > 1 << (Long.SIZE - 1 - HOLDER_SHIFT)) {
            throw new ExceptionInInitializerError("holder field too narrow: maxComputeNodes=" + Fabric.MAX_COMPUTE_NODES);
        }
    }

    private final ComputeNode node;
    private final long address;
    /**
     * The thread of this node whose attempt holds the token, or null: a thread that opened a second
     * transaction meanwhile would otherwise wait for itself.
     */
    private volatile Thread aheadHolder;

    TimestampCounter(ComputeNode node, long address) {
        this.node = node;
        this.address = address;
    }

    /** The timestamp of counter value {@code counter} drawn on compute node {@code node}. */
    static long timestamp(long counter, int node) {
        return counter << COUNTER_SHIFT | node;
    }

    /** The compute node that drew {@code timestamp}. */
    static int nodeOf(long timestamp) {
        return (int) (timestamp & NODE_MASK);
    }

    static boolean isAhead(long timestamp) {
        return (timestamp & AHEAD_BIT) != 0;
    }

    /** A normal attempt's timestamp: one FAA. */
    long draw() {
        return timestamp(checked(node.faa(address, 1) + 1) & COUNTER_MASK, node.nodeId());
    }

    /**
     * An attempt's timestamp taken with the ahead token: waits while another attempt holds it (a holder
     * whose node crashed holds nothing), and after {@link #TOKEN_WAIT_POLLS} looks at the word, or at once
     * if this thread holds it, draws a normal timestamp instead. The caller ends an ahead attempt with
     * {@link #releaseAhead}. One FAA and one CAS when the token is free.
     *
     * <p>Waiting, rather than running a normal attempt while the token is busy, is what gives every
     * starving transaction its turn: without it the writers of LongScansAmongMoversTest kept retrying
     * against an ahead scan that read everything, slowing it to tens of milliseconds, and one gave up
     * after 30 attempts (with an earlier form of the token, two scanners passed it to each other and a
     * writer failed 1,000 attempts).
     */
    long drawAhead() {
        if (aheadHolder == Thread.currentThread()) {
            return draw();
        }
        long word = checked(node.faa(address, 1) + 1);
        long mine = (long) (node.nodeId() + 1) << HOLDER_SHIFT;
        for (int looks = 1; looks <= TOKEN_WAIT_POLLS; looks++) {
            int holder = (int) (word >>> HOLDER_SHIFT);
            if (holder == 0 || node.peerCrashed(holder - 1)) {
                long witnessed = node.cas(address, word, (word & COUNTER_MASK) | mine);
                if (witnessed == word) {
                    aheadHolder = Thread.currentThread();
                    node.counters().increment(Counter.TO_AHEAD_ATTEMPTS);
                    // From the word swapped, not from this attempt's draw: an ahead attempt may have taken and
                    // ended meanwhile, and this one must be younger than it. Unique: the next CAS to take the
                    // token sees a counter moved on by at least AHEAD_DISTANCE.
                    return timestamp((word & COUNTER_MASK) + AHEAD_DISTANCE, node.nodeId()) | AHEAD_BIT;
                }
                word = witnessed; // a draw came in between: try again with what it left
                continue;
            }
            LockSupport.parkNanos(Math.min(TOKEN_PAUSE_MAX_NANOS, 1_000L << Math.min(looks, 20)));
            word = node.faa(address, 0);
        }
        return draw(); // waited long (a holder stuck, or many ahead of it): a fresh, normal attempt
    }

    /**
     * Ends an ahead attempt of this node: frees the token and moves the counter past the attempt's
     * timestamp, in one FAA, before the attempt's outcome is reported (a transaction that begins after
     * that is younger).
     */
    void releaseAhead() {
        aheadHolder = null;
        long mine = (long) (node.nodeId() + 1) << HOLDER_SHIFT;
        long word = node.faa(address, 0);
        while (word >>> HOLDER_SHIFT == node.nodeId() + 1) {
            // A compare-and-swap, not a blind subtraction: a survivor that took this node for crashed may
            // have taken the token over meanwhile (in one process a crash marks the node before it is
            // fenced), and subtracting this node's id from its holder field would name somebody else.
            long witnessed = node.cas(address, word, checked(word - mine + AHEAD_DISTANCE));
            if (witnessed == word) {
                return;
            }
            word = witnessed;
        }
        node.faa(address, AHEAD_DISTANCE); // taken over: only the counter moves past this attempt's timestamp
    }

    /** {@code word} if its counter has room left, else a fatal failure (the counter would run into the holder field). */
    private static long checked(long word) {
        if ((word & COUNTER_MASK) > COUNTER_MASK - 4 * AHEAD_DISTANCE) {
            throw new IllegalStateException("TO's timestamp counter is exhausted (2^56 draws): counter word 0x"
                + Long.toHexString(word));
        }
        return word;
    }

    /**
     * For a crash repair: moves the counter past every timestamp drawn so far, ahead ones included (a
     * crashed holder never ends its attempt), and returns a timestamp above all of them that no
     * transaction will draw.
     */
    long passEveryTimestamp() {
        long counter = (node.faa(address, AHEAD_DISTANCE) & COUNTER_MASK) + AHEAD_DISTANCE;
        return timestamp(counter, NODE_MASK) | AHEAD_BIT;
    }
}
