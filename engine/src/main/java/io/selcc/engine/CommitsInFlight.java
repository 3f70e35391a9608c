package io.selcc.engine;

import io.selcc.threads.PerThread;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * One compute node's commits between drawing a commit sequence number and the end of their install
 * (latches released): a checkpoint that starts scanning must replay every transaction that had not
 * finished installing, so it starts its replay below the lowest of them ({@link Database#checkpointStart}).
 * One slot per thread (a thread commits one transaction at a time); a slot is set before the number is
 * drawn, so a scan of the slots never misses a commit that drew a number before the scan.
 */
final class CommitsInFlight {
    /** A slot's value while its thread draws: the number is not known yet. */
    static final long DRAWING = -1;
    /** A slot's value when its thread has no commit in flight. */
    static final long NONE = 0;

    private final List<Slot> slots = new CopyOnWriteArrayList<>();
    private final PerThread<Slot> mine = PerThread.withInitial(this::register);

    private static final class Slot {
        volatile long sequence = NONE;
    }

    private Slot register() {
        Slot slot = new Slot();
        slots.add(slot);
        return slot;
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
     * The lowest sequence number in flight, {@link Long#MAX_VALUE} if none, or {@link #DRAWING} while a
     * thread is drawing (the caller retries: a draw is one fetch-and-add).
     */
    long lowest() {
        long lowest = Long.MAX_VALUE;
        for (Slot slot : slots) {
            long s = slot.sequence;
            if (s == DRAWING) {
                return DRAWING;
            }
            if (s != NONE) {
                lowest = Math.min(lowest, s);
            }
        }
        return lowest;
    }
}
