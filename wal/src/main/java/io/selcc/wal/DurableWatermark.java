package io.selcc.wal;

import io.selcc.engine.CommitLog;

import java.nio.file.Path;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A log group's durable watermark W ({@link Wal}): the largest s such that every commit sequence number
 * 1..s has been forced in some log (in {@link Wal.Mode#ASYNC}, appended), and what commits wait for.
 * Sequence numbers are global and dense, but each lands in one node's log and the logs force
 * independently, so numbers are published out of order ({@link #published}); W advances over the
 * longest run of published numbers above it and wakes the waiters it passes ({@link #await}).
 *
 * <p>A number that was drawn but whose record was lost ({@link #lost}) is a gap W can never pass: from
 * then on, waiting for it or any later number throws {@link CommitLog.NotDurableException}; earlier ones
 * still become durable. With the watermark shared across processes ({@link SharedWatermark}) W is set
 * from the other processes' words instead ({@link #sharedAdvanced}), and a number another process lost
 * stops waiters the same way. Once {@link #close}d, waiting above W throws.
 *
 * <p>Thread-safe: one lock; waiters park on its condition. {@link #durable} is read without it.
 */
final class DurableWatermark {
    /** The initial span in sequence numbers (a power of two; grows when more are in flight). */
    private static final int INITIAL_SPAN = 1024;

    /** The log directory, for messages. */
    private final Path directory;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when W advances, a sequence number is lost, or the group closes. */
    private final Condition changed = lock.newCondition();
    /** W; written under {@link #lock}, read without it on the fast path. */
    private volatile long durable;
    /**
     * Ring bitmap, guarded by {@link #lock}: bit {@code s & (span - 1)} is set when sequence number s,
     * in (W, W + span], has been forced; span is {@code 64 * forcedAbove.length}.
     */
    private long[] forcedAbove = new long[INITIAL_SPAN / Long.SIZE];
    /** A batch of one for {@link #published(long)}; guarded by {@link #lock}. */
    private final long[] one = new long[1];
    /** The lowest sequence number that can never become durable; MAX_VALUE while none is. */
    private volatile long lostFrom = Long.MAX_VALUE;
    /** Why {@link #lostFrom} was lost, naming the log; guarded by {@link #lock}. */
    private String lostBecause;
    /** Sharing: the lowest number another process's node lost (its durability word says so); MAX_VALUE while none. */
    private volatile long lostElsewhereFrom = Long.MAX_VALUE;
    /** Why {@link #lostElsewhereFrom} was lost; guarded by {@link #lock}. */
    private String lostElsewhereBecause;
    /** Every log is closed: nothing more will be forced. */
    private volatile boolean closed;

    DurableWatermark(Path directory) {
        this.directory = directory;
    }

    /** W (every sequence number up to it is forced; in ASYNC mode, appended). */
    long durable() {
        return durable;
    }

    /**
     * A log opens after {@code settledThrough} (a recovered database: numbers up to it will never be
     * forced here): W moves there if it is below. Only before any number above W was published can W
     * move without losing one.
     *
     * @throws IllegalStateException if W is below {@code settledThrough} and a number above W was published
     */
    void startAfter(long settledThrough) {
        lock.lock();
        try {
            if (settledThrough > durable) {
                for (long word : forcedAbove) {
                    if (word != 0) {
                        throw new IllegalStateException("wal in use: cannot start after sequence " + settledThrough
                            + ", durable=" + durable + " directory=" + directory);
                    }
                }
                durable = settledThrough;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@code sequences[0, count)} are forced (SYNC) or appended (ASYNC): W advances over the longest run
     * of published numbers above it and wakes the waiters it passes.
     *
     * @throws IllegalStateException if a number was published before or is at or below W (a bug)
     */
    void published(long[] sequences, int count) {
        lock.lock();
        try {
            long w = durable;
            for (int i = 0; i < count; i++) {
                markForced(w, sequences[i]);
            }
            advance(w);
        } finally {
            lock.unlock();
        }
    }

    /** {@link #published(long[], int)} of one number (ASYNC: each append publishes its own), allocating nothing. */
    void published(long sequence) {
        lock.lock(); // reentrant: the batch's lock is this one
        try {
            one[0] = sequence;
            published(one, 1);
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@code sequence} has been published, whether or not W has reached it yet. */
    boolean forced(long sequence) {
        return underLock(() -> {
            long w = durable;
            return sequence <= w || sequence - w <= span() && (forcedAbove[slot(sequence)] & bit(sequence)) != 0;
        });
    }

    /** The lowest number this group's logs lost, MAX_VALUE while none. */
    long lostFrom() {
        return lostFrom;
    }

    /** Sequence number {@code sequence} will never be forced ({@code because} names the log and why). */
    void lost(long sequence, String because) {
        changeAndWake(() -> {
            if (sequence < lostFrom) {
                lostFrom = sequence;
                lostBecause = because;
            }
        });
    }

    /**
     * Sharing: the words read say every counting node made its numbers up to {@code minimum} durable, and
     * the lowest number a node lost is {@code lostFrom} ({@code because}), MAX_VALUE if none. W only
     * rises: a node that starts counting later draws only numbers above it.
     */
    void sharedAdvanced(long minimum, long lostFrom, String because) {
        lock.lock();
        try {
            if (lostFrom < lostElsewhereFrom) {
                lostElsewhereFrom = lostFrom;
                lostElsewhereBecause = because;
                changed.signalAll();
            }
            if (minimum > durable) {
                durable = minimum;
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Sharing: the words can no longer be exchanged ({@code because}): nothing above W is confirmed. */
    void sharedBroken(String because) {
        lost(durable + 1, because);
    }

    /**
     * Why the group can no longer make every commit durable (the failed log, the sequence number lost
     * and the cause, one line), or null while it can.
     */
    String failure() {
        return underLock(() -> lostBecause != null ? lostBecause : lostElsewhereBecause);
    }

    /** Whether W has reached {@code sequence} (no lock: the fast path before {@link #await}). */
    boolean reached(long sequence) {
        return durable >= sequence;
    }

    /**
     * Waits until W reaches {@code sequence}, parking on the lock's condition.
     *
     * @throws CommitLog.NotDurableException if a number up to {@code sequence} was lost (here or in another
     *                                       process), or the group closed first
     */
    void await(long sequence) {
        lock.lock();
        try {
            while (durable < sequence) {
                if (sequence >= lostFrom) {
                    throw new CommitLog.NotDurableException("wal failed: sequence=" + sequence + " durable=" + durable
                        + " lostFrom=" + lostFrom + " because: " + lostBecause);
                }
                if (sequence >= lostElsewhereFrom) {
                    throw new CommitLog.NotDurableException("wal failed in another process: sequence=" + sequence
                        + " durable=" + durable + " lostFrom=" + lostElsewhereFrom + " because: " + lostElsewhereBecause);
                }
                if (closed) {
                    throw new CommitLog.NotDurableException("wal closed: sequence=" + sequence + " durable=" + durable
                        + " directory=" + directory);
                }
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every log is closed: waiters above W stop waiting (and throw), and so do later ones. */
    void close() {
        changeAndWake(() -> closed = true);
    }

    /** Threads blocked in {@link #await}: a sharing flusher exchanges the words sooner while one is; tests see a waiter parked. */
    int waiters() {
        lock.lock(); // no lambda: a sharing flusher asks at every poll
        try {
            return lock.getWaitQueueLength(changed);
        } finally {
            lock.unlock();
        }
    }

    /** Reads {@code read} under the lock: the cold paths (failures, reports, tests), a lambda per call. */
    private <T> T underLock(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    /** Makes {@code change} under the lock and wakes every waiter to look again (cold paths: a loss, the close). */
    private void changeAndWake(Runnable change) {
        lock.lock();
        try {
            change.run();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Sets {@code s}'s bit above W {@code w} (growing the bitmap if need be); under {@link #lock}. */
    private void markForced(long w, long s) {
        if (s <= w) {
            throw new IllegalStateException("sequence published twice or below the watermark: sequence=" + s + " durable=" + w);
        }
        if (s - w > span()) {
            grow(w, s - w);
        }
        forcedAbove[slot(s)] |= bit(s);
    }

    /** Moves W from {@code w} over the longest run of forced numbers; under {@link #lock}. */
    private void advance(long w) {
        long next = w + 1;
        while ((forcedAbove[slot(next)] & bit(next)) != 0) {
            forcedAbove[slot(next)] &= ~bit(next);
            next++;
        }
        if (next - 1 != w) {
            durable = next - 1;
            changed.signalAll();
        }
    }

    private long span() {
        return (long) forcedAbove.length * Long.SIZE;
    }

    private int slot(long sequence) {
        return (int) ((sequence & (span() - 1)) >>> 6);
    }

    private static long bit(long sequence) {
        return 1L << (sequence & 63);
    }

    /** Widens the bitmap so sequence numbers up to {@code w + distance} fit, keeping every bit in (w, w + span]. */
    private void grow(long w, long distance) {
        long[] old = forcedAbove;
        long oldSpan = span();
        long newSpan = Long.highestOneBit(distance - 1) << 1;
        forcedAbove = new long[Math.toIntExact(newSpan / Long.SIZE)];
        for (long s = w + 1; s <= w + oldSpan; s++) {
            if ((old[(int) ((s & (oldSpan - 1)) >>> 6)] & bit(s)) != 0) {
                forcedAbove[slot(s)] |= bit(s);
            }
        }
    }
}
