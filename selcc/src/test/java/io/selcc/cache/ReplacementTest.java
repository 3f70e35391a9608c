package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLOCK replacement keeps a line that is hit between evictions: one hot line touched after every access
 * to a stream of cold lines (each used once) far larger than the cache never misses again. Shown
 * failing with the reference bit ignored by the evictor (FIFO): the hot line then misses once per
 * trip through the cache.
 */
class ReplacementTest {
    @Test
    void aLineHitBetweenEvictionsStaysCached() {
        int coldLines = 2_000;
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64).memoryPerNode(16L << 20).build()) {
            ComputeNode allocator = cluster.node(1); // allocation goes through a cache: keep node 0's untouched
            ComputeNode node = cluster.node(0);
            long hot = allocator.allocate();
            long[] cold = new long[coldLines];
            for (int i = 0; i < coldLines; i++) {
                cold[i] = allocator.allocate();
            }
            cluster.flushCaches(); // node 1 lets go of every line it initialized
            long missesBefore = cluster.counters(0).get(Counter.CACHE_MISSES);
            node.unlock(node.sLock(hot));
            for (long line : cold) {
                node.unlock(node.sLock(line));
                node.unlock(node.sLock(hot));
            }
            long misses = cluster.counters(0).get(Counter.CACHE_MISSES) - missesBefore;
            assertTrue(cluster.counters(0).get(Counter.EVICTIONS) >= coldLines - 64, "evictions ran");
            assertEquals(coldLines + 1, misses, "only the first touch of each line misses");
            assertNotNull(((SelccNode) node).cachedFrame(hot));
        }
    }

    /**
     * The hand goes round: lines used once leave in turn, whichever frames they were put in. After a stream of
     * three cache-fuls of lines used once, none of the first cache-ful is left. A 16-frame cache is one stretch
     * of the hand; 40 frames take stretches of 16, 16 and a last one of 8, and the hand wraps. Shown failing
     * with the hand moved a whole stretch (16 frames) per eviction whatever it visited: in a 16-frame cache
     * every eviction then started at frame 0 and only the first frames' lines were ever replaced (14-15 of the
     * first 16 lines stayed; of 40, 23-29).
     */
    @ParameterizedTest
    @ValueSource(ints = {16, 40})
    void linesUsedOnceLeaveInTurn(int frames) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(frames).memoryPerNode(16L << 20).build()) {
            ComputeNode allocator = cluster.node(1);
            SelccNode node = (SelccNode) cluster.node(0);
            long[] lines = new long[4 * frames];
            for (int i = 0; i < lines.length; i++) {
                lines[i] = allocator.allocate();
            }
            cluster.flushCaches();
            for (long line : lines) {
                node.unlock(node.sLock(line)); // a miss, never hit again: its reference bit stays clear
            }
            assertTrue(cluster.counters(0).get(Counter.EVICTIONS) >= 3L * frames, "evictions ran");
            int firstLeft = 0;
            for (int i = 0; i < frames; i++) {
                if (node.cachedFrame(lines[i]) != null) {
                    firstLeft++;
                }
            }
            assertEquals(0, firstLeft, "lines of the first cache-ful still cached");
        }
    }
}
