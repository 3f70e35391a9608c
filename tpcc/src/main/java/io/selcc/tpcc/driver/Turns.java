package io.selcc.tpcc.driver;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One compute node's turns to run a transaction: at most {@code limit} of its terminals run one at once,
 * the others wait in arrival order (a transaction monitor's server pool in front of the database). A
 * terminal holds its turn from its transaction's first attempt to its outcome, retries and their pauses
 * included, and its measured response time includes the wait for the turn. A terminal queued when the run
 * stops leaves without a transaction.
 *
 * <p>Why: a compute node's terminals share its cores, and transactions beyond the cores do not add work
 * done, only conflicts (two terminals of a warehouse on two cores, their retry pauses on time: about 0.09
 * aborts per commit under OCC and TO, against none when they take turns; docs/decisions.md). The turn is
 * taken outside the engine, so no transaction waits for a turn while holding anything.
 */
final class Turns {
    private final Semaphore turns;
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger mostRunning = new AtomicInteger();

    Turns(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("turns per compute node must be >= 1: " + limit);
        }
        this.turns = new Semaphore(limit, true); // fair: a queued terminal is not overtaken by the one just done
    }

    /**
     * Waits for a turn (parks; the terminal whose transaction ended hands it on) and takes it, unless the
     * run stopped: then it starts no new transaction. True with the turn taken. The wait is untimed (a timed
     * park of a virtual thread goes through the JDK's timer on every wait and cost a quarter to half of
     * the throughput); a run that stops {@link #open}s the turns, as a holder may never give its turn back (a
     * transaction in doubt after a failed decision).
     */
    boolean take(BooleanSupplier stopped) {
        turns.acquireUninterruptibly();
        if (stopped.getAsBoolean()) {
            turns.release();
            return false;
        }
        mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
        return true;
    }

    /**
     * Lets the terminals still queued through, to find the run stopped (called once it is): one more turn
     * is enough, as each of them gives it on at once.
     */
    void open() {
        turns.release();
    }

    void give() {
        running.decrementAndGet();
        turns.release();
    }

    /** The most transactions that ran at once (for tests: the limit held, and was reached). */
    int mostRunning() {
        return mostRunning.get();
    }
}
