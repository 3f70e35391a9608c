package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reader windows (paper 5.3.2) on an injected clock that stands still: a writer starving at the
 * threshold makes node 1 release its shared copy and hold off; inside the window a no-wait read gives
 * up at once instead of sitting it out holding the frame's latch (before the fix it spun until the
 * window closed: for ever on this clock, so the test timed out); once the clock passes the window a
 * blocking read gets the line and the writer's value.
 */
class ReaderWindowTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aNoWaitReadGivesUpInsideAReaderWindow() throws Exception {
        AtomicLong clock = new AtomicLong();
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).starvationPriority(1)
            .readerWindowBaseNanos(1_000_000).clock(clock::get).build()) {
            ComputeNode writerNode = cluster.node(0);
            ComputeNode readerNode = cluster.node(1);
            long gcl = writerNode.allocate();
            GclHandle shared = readerNode.sLock(gcl);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    GclHandle x = writerNode.xLock(gcl);
                    x.putLong(0, 5);
                    writerNode.unlock(x);
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            while (cluster.counters(1).get(Counter.INVALIDATIONS_PENDING) == 0 && writer.isAlive()) {
                Thread.onSpinWait();
            }
            readerNode.unlock(shared); // serves the writer's request: release, then the window opens
            writer.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!writer.isAlive(), "the writer never got the line");
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(1, cluster.counters(1).get(Counter.SHARED_RELEASES), "node 1 released its copy");
            long giveUps = cluster.counters(1).get(Counter.LATCH_GIVE_UPS);
            assertNull(readerNode.trySLock(gcl), "a no-wait read inside the window");
            assertEquals(0, cluster.counters(1).get(Counter.READER_SPIN_WAITS), "the no-wait read waited");
            assertEquals(giveUps + 1, cluster.counters(1).get(Counter.LATCH_GIVE_UPS));
            clock.set(2_000_000); // past the window
            GclHandle read = readerNode.sLock(gcl);
            assertEquals(5, read.getLong(0));
            readerNode.unlock(read);
        }
    }
}
