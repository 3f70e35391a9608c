package io.selcc.engine;

import io.selcc.threads.PerThread;
import io.selcc.threads.ThreadRegistry;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * One compute node's commits between drawing a commit sequence number and the end of their install
 * (latches released): a checkpoint that starts scanning must replay every transaction that had not
 * finished installing, so it starts its replay below the lowest of them ({@link Database#checkpointStart}).
 * One slot per thread (a thread commits one transaction at a time); a slot is set before the number is
 * drawn, so a scan of the slots never misses a commit that drew a number before the scan.
 *
 * <p>The same slots count each thread's transactions that began and have not ended ({@link #began},
 * {@link #ended}), so {@link Database#startLogging} and {@link Database#close} can refuse under an open
 * one, and the gate ({@link #holdBegins}) holds back transactions that begin meanwhile; once the
 * database closed ({@link #shut}) a begin throws. A slot's count is written by its own thread only; the
 * gate is one volatile read per begin.
 */
final class CommitsInFlight {
    /** A slot's value while its thread draws: the number is not known yet. */
    static final long DRAWING = -1;
    /** A slot's value when its thread has no commit in flight. */
    static final long NONE = 0;

    /** A thread's slot leaves once the thread ended with nothing in flight (many short-lived virtual threads). */
    private final ThreadRegistry<Slot> slots = new ThreadRegistry<>(slot -> { },
        slot -> slot.running != 0 || slot.sequence != NONE);
    private final PerThread<Slot> mine = PerThread.withInitial(this::register);

    /** {@link #state}: transactions begin. */
    private static final int OPEN = 0;
    /** {@link #state}: logging starts, or the database is about to close: a transaction that begins waits. */
    private static final int HELD = 1;
    /** {@link #state}: the database closed: a transaction that begins throws. */
    private static final int SHUT = 2;
    /** The gate: {@link #OPEN}, {@link #HELD} or {@link #SHUT}. */
    private volatile int state = OPEN;
    private final ReentrantLock gate = new ReentrantLock();
    /** Signalled when {@link #state} leaves {@link #HELD}. */
    private final Condition gateOpened = gate.newCondition();

    /** One thread's state on this node. */
    static final class Slot {
        volatile long sequence = NONE;
        /** Transactions of the thread that began and have not ended (two may be open at once). */
        volatile int running;
    }

    private Slot register() {
        return slots.register(new Slot());
    }

    /** Slots registered and not retired (tests: bounded by the threads alive, not by every thread that ran). */
    int registeredSlots() {
        return slots.size();
    }

    /** Draws a number through {@code draw} with the calling thread's slot marking the commit in flight. */
    long draw(LongSupplier draw) {
        Slot slot = mine.get();
        slot.sequence = DRAWING;
        long sequence;
        try {
            sequence = draw.getAsLong();
        } catch (RuntimeException | Error e) {
            slot.sequence = NONE;
            throw e;
        }
        slot.sequence = sequence;
        return sequence;
    }

    /** The calling thread's commit is installed (or failed): it no longer holds a replay start back. */
    void done() {
        Slot slot = mine.get();
        if (slot.sequence != NONE) {
            slot.sequence = NONE;
        }
    }

    /**
     * A transaction begins on the calling thread: counts it in the thread's slot (returned, for
     * {@link #ended}). While logging starts it waits until that is over: a transaction must not straddle
     * the start (its writes before it would be in no log). The same while the database decides whether
     * it may close.
     *
     * @throws IllegalStateException if the database is closed
     */
    Slot began() {
        Slot slot = mine.get();
        while (true) {
            // Counted before the gate is read, and the gate closed before the counts are read
            // (both volatile): a begin either sees the gate or is seen by startLogging's (or close's) count.
            slot.running = slot.running + 1;
            int now = state;
            if (now == OPEN) {
                return slot;
            }
            slot.running = slot.running - 1;
            if (now == SHUT) {
                throw new IllegalStateException("the database is closed");
            }
            awaitGateOpen();
        }
    }

    /** The transaction {@link #began} counted in {@code slot} ended (on the thread that began it). */
    void ended(Slot slot) {
        slot.running = slot.running - 1;
    }

    /** Transactions that began on this node and have not ended, over every thread. */
    int running() {
        int[] running = {0};
        slots.forEach(slot -> running[0] += slot.running);
        return running[0];
    }

    /**
     * Logging starts, or the database considers closing: from now on a transaction that begins waits,
     * until {@link #openBegins} (or {@link #shut}, which makes it throw).
     */
    void holdBegins() {
        gate.lock();
        try {
            if (state == OPEN) {
                state = HELD;
            }
        } finally {
            gate.unlock();
        }
    }

    void openBegins() {
        leaveHeld(OPEN);
    }

    /** The database closed: every transaction that begins from now on (or waits at the gate) throws. */
    void shut() {
        leaveHeld(SHUT);
    }

    /** Leaves {@link #HELD} (a shut gate stays shut) and wakes the begins that wait. */
    private void leaveHeld(int next) {
        gate.lock();
        try {
            if (state != SHUT) {
                state = next;
            }
            gateOpened.signalAll();
        } finally {
            gate.unlock();
        }
    }

    private void awaitGateOpen() {
        gate.lock();
        try {
            while (state == HELD) {
                gateOpened.awaitUninterruptibly();
            }
        } finally {
            gate.unlock();
        }
    }

    /**
     * The lowest sequence number in flight, {@link Long#MAX_VALUE} if none, or {@link #DRAWING} while a
     * thread is drawing (the caller retries: a draw is one fetch-and-add).
     */
    long lowest() {
        long[] lowest = {Long.MAX_VALUE};
        boolean[] drawing = {false};
        slots.forEach(slot -> {
            long s = slot.sequence;
            if (s == DRAWING) {
                drawing[0] = true;
            } else if (s != NONE) {
                lowest[0] = Math.min(lowest[0], s);
            }
        });
        return drawing[0] ? DRAWING : lowest[0];
    }
}
