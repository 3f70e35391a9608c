package io.selcc.tpcc.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A terminal queued for its node's only turn, whose holder never gives it back (a transaction in doubt),
 * leaves once the run stops and opens the turns, without a transaction. Planted bug seen failing:
 * {@code Turns.open} doing nothing (the queued terminal waits for ever: the timeout fails the test).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TurnsTest {
    @Test
    void aQueuedTerminalLeavesWhenTheRunStopsThoughTheHolderNeverGivesItsTurnBack() throws Exception {
        Turns turns = new Turns(1);
        AtomicBoolean stopped = new AtomicBoolean();
        assertTrue(turns.take(stopped::get), "the first terminal takes the turn (and never gives it back)");
        AtomicReference<Boolean> took = new AtomicReference<>();
        Thread queued = Thread.ofVirtual().start(() -> took.set(turns.take(stopped::get)));
        while (queued.getState() != Thread.State.WAITING) {
            Thread.onSpinWait(); // until it parks in the queue; the timeout ends a hang
        }
        stopped.set(true);
        turns.open();
        queued.join();
        assertFalse(took.get(), "it left without a turn: the run had stopped");
        assertFalse(turns.take(stopped::get), "nor does any later terminal start a transaction");
        assertEquals(1, turns.mostRunning(), "only the first ever ran");
    }
}
