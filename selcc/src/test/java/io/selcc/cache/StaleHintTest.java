package io.selcc.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hint (this thread's memo of frame indexes) that points to a frame evicted and reused for another
 * line is refused by the tag in the frame's header: the lock goes to the line's own frame and reads
 * its own bytes, latched and optimistically. Shown failing with the tag checks removed from
 * {@code SelccNode.frameIndexOf} and {@code tryHit} (the reused frame's bytes are returned as the old
 * line's). The test asserts that the hint really was stale when it was used.
 */
class StaleHintTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHintToAFrameReusedForAnotherLineIsRefused() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            SelccNode node = (SelccNode) cluster.node(0);
            long hinted = node.allocate();
            SequentialConsistencyTest.write(node, hinted, 7);
            int frame = node.cachedFrame(hinted).index;
            assertEquals(frame, node.recentHint(hinted), "the memo hints at the line's frame");
            long reuser = 0;
            for (int i = 0; i < 1_000 && reuser == 0; i++) { // other lines until one takes the frame over
                long other = node.allocate();
                SequentialConsistencyTest.write(node, other, 1_000 + i);
                CacheFrame holder = node.cachedFrame(other);
                if (holder != null && holder.index == frame) {
                    reuser = other;
                }
            }
            assertNotEquals(0, reuser, "the hinted frame was reused for another line");
            assertEquals(frame, node.recentHint(hinted), "the stale hint is still in the memo");

            assertEquals(7, SequentialConsistencyTest.read(node, hinted), "latched read of the hinted line");
            GclHandle h = node.optimisticHandle();
            assertTrue(node.tryOptimisticRead(hinted, h));
            assertEquals(7, h.getLong(0), "optimistic read of the hinted line");
            assertTrue(node.validate(h));
        }
    }
}
