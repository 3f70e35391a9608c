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
 * {@link #ended}), so {@link Database#startLogging} can refuse to start under a running one, and the
 * gate {@link #closeForLoggingStart} holds back transactions that begin meanwhile. A slot's count is
 * written by its own thread only; the gate is one volatile read per begin.
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

    /** Set while {@link Database#startLogging} runs: a transaction that begins waits for it to end. */
    private volatile boolean loggingStarts;
    private final ReentrantLock gate = new ReentrantLock();
    /** Signalled when {@link #loggingStarts} is cleared. */
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
     * the start (its writes before it would be in no log).
     */
    Slot began() {
        Slot slot = mine.get();
        while (true) {
            // Counted before the gate is read, and the gate closed before the counts are read
            // (both volatile): a begin either sees the gate or is seen by startLogging's count.
            slot.running = slot.running + 1;
            if (!loggingStarts) {
                return slot;
            }
            slot.running = slot.running - 1;
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

    /** Logging starts: from now on a transaction that begins waits, until {@link #openAfterLoggingStart}. */
    void closeForLoggingStart() {
        loggingStarts = true;
    }

    void openAfterLoggingStart() {
        gate.lock();
        try {
            loggingStarts = false;
            gateOpened.signalAll();
        } finally {
            gate.unlock();
        }
    }

    private void awaitGateOpen() {
        gate.lock();
        try {
            while (loggingStarts) {
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
