package io.selcc.wal;

import io.selcc.engine.CommitLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The contract of {@link DurableWatermark}, the rule every acknowledged commit rests on: a wait for
 * sequence number s returns only once every number 1..s is published (one commit may have read from any
 * earlier one), never past a lost number, and a close or a loss wakes the waiters it fails. Waiters run
 * on their own threads; a test sees that one parked through {@link DurableWatermark#waiters} (no sleeps),
 * and its exception comes back through its future. ({@code WatermarkTest} checks the bitmap against a
 * model through {@link Wal}.)
 *
 * <p>Planted bugs this was shown to catch:
 * <ul>
 *   <li>{@code await} looping while its own number is unpublished instead of while W is below it (a
 *       commit acknowledged once its own record is forced, though an earlier one is not):
 *       {@link #aWaiterReturnsOnlyOnceEveryNumberUpToItsOwnIsPublished} fails (the waiter for 5 returned
 *       when W reached 1, with 2 and 4 unpublished), and so does
 *       {@link #aLostNumberFailsTheWaitersAtAndAboveIt} (a wait for 5 returned beyond the lost 3);</li>
 *   <li>{@code lost} not signalling the waiters: {@link #aLostNumberFailsTheWaitersAtAndAboveIt} hits
 *       its timeout (the parked waiter at 4 is never woken to throw);</li>
 *   <li>{@code advance} waking one waiter ({@code signal}) instead of all: {@link #everyWaiterReachedByWReturns}
 *       hits its timeout (a review found the other tests passing with it);</li>
 *   <li>a later, higher loss overwriting a lower one (in {@code lost} or {@code sharedAdvanced}):
 *       {@link #theLowestLostNumberStays} fails (a wait between the two losses no longer throws).</li>
 * </ul>
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DurableWatermarkTest {
    private final ExecutorService waiters = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "durable-watermark-test-waiter");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopWaiters() {
        waiters.shutdownNow();
    }

    private static DurableWatermark watermark() {
        return new DurableWatermark(Path.of("no-directory"));
    }

    private CompletableFuture<Void> waitFor(DurableWatermark watermark, long sequence) {
        return CompletableFuture.runAsync(() -> watermark.await(sequence), waiters);
    }

    /** Returns once {@code count} threads are parked in {@code watermark}, or once {@code waiter} ended. */
    private static void untilParkedOrDone(DurableWatermark watermark, int count, CompletableFuture<?> waiter) {
        while (watermark.waiters() < count && !waiter.isDone()) {
            Thread.onSpinWait();
        }
    }

    @Test
    void aWaiterReturnsOnlyOnceEveryNumberUpToItsOwnIsPublished() throws Exception {
        DurableWatermark watermark = watermark();
        CompletableFuture<Void> waiter = waitFor(watermark, 5);
        untilParkedOrDone(watermark, 1, waiter);
        watermark.published(new long[] {5, 3}, 2);
        assertEquals(0, watermark.durable(), "W does not pass the unpublished 1");
        assertTrue(watermark.forced(5) && !watermark.forced(4), "5 is published, 4 is not");
        watermark.published(1); // W moves to 1 and wakes the waiter: it must park again
        untilParkedOrDone(watermark, 1, waiter);
        assertEquals(1, watermark.durable());
        assertFalse(waiter.isDone(), "the waiter for 5 returned with 2 and 4 unpublished");
        assertEquals(1, watermark.waiters(), "the waiter for 5 parked again");
        watermark.published(new long[] {4, 2}, 2);
        waiter.get();
        assertEquals(5, watermark.durable(), "W is the longest published prefix");
        watermark.await(5); // at W: returns at once
    }

    @Test
    void aLostNumberFailsTheWaitersAtAndAboveIt() throws Exception {
        DurableWatermark watermark = watermark();
        watermark.published(1);
        CompletableFuture<Void> below = waitFor(watermark, 2);
        CompletableFuture<Void> above = waitFor(watermark, 4);
        untilParkedOrDone(watermark, 2, above);
        assertEquals(2, watermark.waiters(), "both waiters parked");
        watermark.lost(3, "planted: node 1's log lost 3");
        ExecutionException failed = assertThrows(ExecutionException.class, above::get);
        assertInstanceOf(CommitLog.NotDurableException.class, failed.getCause());
        assertTrue(failed.getCause().getMessage().contains("planted: node 1's log lost 3"), failed.getCause().getMessage());
        assertThrows(CommitLog.NotDurableException.class, () -> watermark.await(3), "at the lost number");
        assertEquals(3, watermark.lostFrom());
        assertEquals("planted: node 1's log lost 3", watermark.failure());
        untilParkedOrDone(watermark, 1, below);
        assertFalse(below.isDone(), "a number below the lost one still waits for its force");
        watermark.published(2);
        below.get();
        assertEquals(2, watermark.durable());
        watermark.published(new long[] {4, 5}, 2);
        assertEquals(2, watermark.durable(), "W never passes a lost number");
        assertThrows(CommitLog.NotDurableException.class, () -> watermark.await(5), "published, but beyond the gap");
    }

    @Test
    void closingFailsTheWaitersAboveW() throws Exception {
        DurableWatermark watermark = watermark();
        watermark.published(1);
        CompletableFuture<Void> waiter = waitFor(watermark, 2);
        untilParkedOrDone(watermark, 1, waiter);
        assertEquals(1, watermark.waiters());
        watermark.close();
        ExecutionException failed = assertThrows(ExecutionException.class, waiter::get);
        assertInstanceOf(CommitLog.NotDurableException.class, failed.getCause());
        watermark.await(1); // durable before the close: still returns
        assertThrows(CommitLog.NotDurableException.class, () -> watermark.await(2));
        assertNull(watermark.failure(), "a close is no failure of the logs");
    }

    @Test
    void aSharedWatermarkOnlyRisesAndAnotherProcessesLossFailsWaiters() throws Exception {
        DurableWatermark watermark = watermark();
        CompletableFuture<Void> waiter = waitFor(watermark, 11);
        untilParkedOrDone(watermark, 1, waiter);
        watermark.sharedAdvanced(10, Long.MAX_VALUE, null);
        assertEquals(10, watermark.durable());
        watermark.sharedAdvanced(5, Long.MAX_VALUE, null);
        assertEquals(10, watermark.durable(), "the minimum of the words read later is lower: W stays");
        untilParkedOrDone(watermark, 1, waiter);
        assertFalse(waiter.isDone(), "11 is not durable everywhere yet");
        watermark.sharedAdvanced(10, 12, "planted: node 2 lost 12");
        assertThrows(CommitLog.NotDurableException.class, () -> watermark.await(12));
        assertEquals("planted: node 2 lost 12", watermark.failure());
        watermark.sharedAdvanced(11, 12, "planted: node 2 lost 12");
        waiter.get();
        watermark.sharedBroken("planted: the words cannot be exchanged");
        assertEquals(12, watermark.lostFrom(), "a broken exchange loses everything above W");
    }

    @Test
    void aRecoveredStartMovesWOnlyWhileNothingAboveItIsPublished() {
        DurableWatermark watermark = watermark();
        watermark.startAfter(7);
        assertEquals(7, watermark.durable());
        watermark.startAfter(3);
        assertEquals(7, watermark.durable(), "W never moves down");
        watermark.published(9);
        assertEquals(7, watermark.durable());
        assertThrows(IllegalStateException.class, () -> watermark.startAfter(20),
            "9 is published above W: moving W to 20 would pass over 8, never forced");
        assertThrows(IllegalStateException.class, () -> watermark.published(7), "at or below W");
    }

    @Test
    void everyWaiterReachedByWReturns() throws Exception {
        DurableWatermark watermark = watermark();
        CompletableFuture<Void> two = waitFor(watermark, 2);
        CompletableFuture<Void> three = waitFor(watermark, 3);
        CompletableFuture<Void> four = waitFor(watermark, 4);
        untilParkedOrDone(watermark, 3, four);
        assertEquals(3, watermark.waiters(), "three waiters parked before W moves");
        watermark.published(new long[] {1, 2, 3}, 3);
        two.get();
        three.get(); // both woken by the one advance past them
        untilParkedOrDone(watermark, 1, four);
        assertFalse(four.isDone(), "4 is not published");
        watermark.published(4);
        four.get();
    }

    @Test
    void theLowestLostNumberStays() throws Exception {
        DurableWatermark own = watermark();
        own.lost(5, "planted: 5 lost first");
        own.lost(3, "planted: 3 lost later");
        own.lost(7, "planted: 7 lost last");
        assertEquals(3, own.lostFrom(), "the lowest loss, whatever the order");
        assertEquals("planted: 3 lost later", own.failure());
        DurableWatermark shared = watermark();
        shared.sharedAdvanced(10, 12, "planted: node 2 lost 12");
        shared.sharedAdvanced(10, 15, "planted: node 3 lost 15");
        // On a waiter thread: with the lower loss overwritten the wait would never end (the test's timeout).
        ExecutionException above = assertThrows(ExecutionException.class, () -> waitFor(shared, 13).get(),
            "13 is above the lost 12");
        assertInstanceOf(CommitLog.NotDurableException.class, above.getCause());
        assertEquals("planted: node 2 lost 12", shared.failure());
    }
}
