package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Priority matching (paper 5.3.2) must not shut out no-wait readers for ever. Node 1 wins X only
 * after several retries (a starving priority) and releases it locally; SELCC keeps the global latch
 * lazily. A no-wait reader on node 0 that keeps trying must get the line: its priority climbs across
 * its attempts. Before the fix every try-reader asked at a priority of at most tryLockRetries + 1
 * and was refused while node 1 stayed idle: the TPC-C loader, whose B-link roots are latched through
 * try paths under no-wait 2PL, then aborted 100,000 times in a row on one root.
 */
class StarvedWriterReleaseTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTryReaderGetsALineAStarvedWriterHasReleased() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).starvationPriority(1)
            .tryLockRetries(0).build()) {
            ComputeNode reader = cluster.node(0);
            ComputeNode writer = cluster.node(1);
            long gcl = reader.allocate();
            GclHandle held = reader.xLock(gcl);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread starving = Thread.ofPlatform().start(() -> {
                try {
                    GclHandle h = writer.xLock(gcl);
                    h.putLong(0, 7);
                    writer.unlock(h);
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            // The writer retries while node 0 holds the line locally: its priority climbs past the threshold.
            long retriesBefore = cluster.counters(1).get(Counter.LATCH_RETRIES);
            while (cluster.counters(1).get(Counter.LATCH_RETRIES) - retriesBefore < 3 && starving.isAlive()) {
                Thread.onSpinWait();
            }
            reader.unlock(held);
            starving.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!starving.isAlive(), "the writer never got the line");
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(cluster.counters(1).get(Counter.LATCH_RETRIES) - retriesBefore >= 3,
                "the writer did not starve: the test proves nothing");
            // Priority matching lets the starved writer keep the line against lower-priority readers;
            // a no-wait reader that keeps coming back must climb past it within a few attempts.
            GclHandle read = null;
            int attempts = 0;
            while (read == null && attempts < 100) {
                read = reader.trySLock(gcl);
                attempts++;
            }
            assertNotNull(read, "a no-wait reader was refused 100 times by an idle writer's old priority");
            assertEquals(7, read.getLong(0));
            reader.unlock(read);
        }
    }
}
