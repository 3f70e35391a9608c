package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flush waits for passing holds: threads that hold a frame only for a moment and release its global
 * latch themselves, so that a frame skipped because it was held would keep this node's bit or tag in
 * the latch word. A serve of another node's request answers before it unlatches, so the requester may be
 * done with its grant while the frame is held (the flake of {@code LostConnectionTest}, about one run in
 * eight under load); the eviction worker holds its victims until their releases are posted. Both count
 * through {@code Evictor.holdStarted}/{@code holdEnded}; the test stands in for such a thread: it holds
 * the frame's X latch, counted, starts a flush, and lets go. Shown failing with the wait removed from
 * {@code Evictor.flush}: the flush returns while the frame is held ("the flush went on"), and with that
 * assertion gone the latch word keeps the node's writer tag ("a latch bit left").
 */
class FlushWaitsTest {
    /** The stand-in's hold: the cached frame latched in X and counted as a passing hold; returns the stamp. */
    private static long holdAsAServeWould(SelccNode node, CacheFrame frame) {
        assertNotNull(frame, "the line is cached");
        long stamp = frame.tryWriteLock();
        assertNotEquals(0, stamp, "the stand-in latched the frame");
        node.evictor.holdStarted();
        return stamp;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFlushWaitsForAPassingHold() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).build()) {
            SelccNode node = (SelccNode) cluster.node(1);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7); // cached modified: the word names this node
            assertNotEquals(List.of(), cluster.busyLatchWords(10), "the lazily released line is still this node's");
            CacheFrame frame = node.cachedFrame(line);
            long stamp = holdAsAServeWould(node, frame);

            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread flusher = Thread.ofPlatform().name("flusher").start(() -> {
                try {
                    cluster.flushCaches();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            // Waiting is correct for as long as the stand-in holds the frame; a flush that does not wait is
            // done within this bound on any machine, so only a broken flush can end the join early.
            flusher.join(300);
            assertTrue(flusher.isAlive(), "the flush went on while the frame was held");

            frame.unlockWrite(stamp);
            node.evictor.holdEnded();
            flusher.join(30_000);
            assertFalse(flusher.isAlive(), "the flush ended once the frame was let go");
            assertNull(failure.get(), () -> "the flush failed: " + failure.get());
            assertEquals(List.of(), cluster.busyLatchWords(10), "a latch bit left by a flush that skipped the frame");
            assertEquals(7, SequentialConsistencyTest.read(node, line), "the flush wrote the line back");
        }
    }

    /**
     * A serve that outlasts the flush's bounded wait: the flush goes on without its frame and counts the
     * timeout, so a latch word left naming the node is explained (fails if the timeout is not counted).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFlushThatStopsWaitingCountsIt() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).build()) {
            SelccNode node = (SelccNode) cluster.node(1);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            CacheFrame frame = node.cachedFrame(line);
            long stamp = holdAsAServeWould(node, frame);
            try {
                cluster.flushCaches(); // returns after the bounded wait
                assertEquals(1, cluster.counters(1).get(Counter.FLUSH_WAIT_TIMEOUTS), "the timeout counted");
                assertNotEquals(List.of(), cluster.busyLatchWords(10), "the held frame was skipped");
            } finally {
                frame.unlockWrite(stamp);
                node.evictor.holdEnded();
            }
            cluster.flushCaches();
            assertEquals(List.of(), cluster.busyLatchWords(10), "flushed once the serve let go");
            assertEquals(1, cluster.counters(1).get(Counter.FLUSH_WAIT_TIMEOUTS), "no second timeout");
        }
    }
}
