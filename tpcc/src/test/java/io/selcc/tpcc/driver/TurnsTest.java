package io.selcc.tpcc.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Terminals queued for their node's only turn, whose holder never gives it back (a transaction in doubt),
 * leave once the run stops and opens the turns, without a transaction. Planted bugs seen failing:
 * {@code Turns.open} doing nothing (the queued terminals wait for ever: the timeout fails the test), and a
 * stopped terminal keeping the turn it got instead of passing it on (the second one waits for ever).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TurnsTest {
    @Test
    void queuedTerminalsLeaveWhenTheRunStopsThoughTheHolderNeverGivesItsTurnBack() throws Exception {
        Turns turns = new Turns(1);
        AtomicBoolean stopped = new AtomicBoolean();
        assertTrue(turns.take(stopped::get), "the first terminal takes the turn (and never gives it back)");
        int queuedCount = 3;
        Thread[] queued = new Thread[queuedCount];
        AtomicInteger tookAny = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < queuedCount; i++) {
            queued[i] = Thread.ofVirtual().start(() -> {
                try {
                    if (turns.take(stopped::get)) {
                        tookAny.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
        }
        for (Thread thread : queued) {
            while (thread.isAlive() && thread.getState() != Thread.State.WAITING) {
                Thread.onSpinWait(); // until it parks in the queue; the timeout ends a hang
            }
        }
        stopped.set(true);
        turns.open(); // one turn more: each queued terminal finds the run stopped and passes it on
        for (Thread thread : queued) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a queued terminal failed", failure.get());
        }
        assertEquals(0, tookAny.get(), "they left without a turn: the run had stopped");
        assertFalse(turns.take(stopped::get), "nor does any later terminal start a transaction");
        assertEquals(1, turns.mostRunning(), "only the first ever ran");
    }
}
