package io.selcc.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A hint to a frame that was evicted and reused for another line is refused by the tag in the frame's
 * header. The frame directory is read without a lock, so such a hint is what a reader sees when it
 * reads a slot while the line moves; a test seam makes the lock-free read answer it every time. Both a
 * latched and an optimistic read of the hinted line then read its own bytes. Shown failing with the tag
 * check removed from {@code SelccNode.frameIndexOf} (the lock retries the wrong frame for ever: the
 * timeout fails it). Asserts that the hint was stale when it was used.
 */
class StaleHintTest {
    /**
     * Writes other lines (values 1,000 and up) until one is cached in {@code frame}; returns that line. Fails
     * if none takes the frame over in 1,000 lines.
     */
    static long reuseFrame(SelccNode node, int frame) {
        for (int i = 0; i < 1_000; i++) {
            long other = node.allocate();
            SequentialConsistencyTest.write(node, other, 1_000 + i);
            CacheFrame holder = node.cachedFrame(other);
            if (holder != null && holder.index == frame) {
                return other;
            }
        }
        throw new AssertionError("no line took frame " + frame + " over in 1,000 lines");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aHintToAFrameReusedForAnotherLineIsRefused() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            SelccNode node = (SelccNode) cluster.node(0);
            long hinted = node.allocate();
            SequentialConsistencyTest.write(node, hinted, 7);
            int frame = node.cachedFrame(hinted).index;
            long reuser = reuseFrame(node, frame);
            long reusedBy = reuser;
            AtomicInteger staleAnswers = new AtomicInteger();
            node.seam = new SelccNode.LockSeam() {
                @Override
                public void beforeLocalLatch(CacheFrame found) {
                }

                @Override
                public void beforeAddressCheck(CacheFrame latched) {
                }

                @Override
                public int racyLookup(long address, int index) {
                    if (address != hinted) {
                        return index;
                    }
                    if (node.frames[frame].address() == reusedBy) {
                        staleAnswers.incrementAndGet(); // the hint names a frame that caches another line
                    }
                    return frame;
                }
            };

            assertEquals(7, SequentialConsistencyTest.read(node, hinted), "latched read of the hinted line");
            GclHandle h = node.optimisticHandle();
            assertTrue(node.tryOptimisticRead(hinted, h), "the hinted line is cached readable");
            assertEquals(7, h.getLong(0), "optimistic read of the hinted line");
            assertTrue(node.validate(h));
            assertTrue(staleAnswers.get() > 0, "a stale hint was used");
        }
    }
}
