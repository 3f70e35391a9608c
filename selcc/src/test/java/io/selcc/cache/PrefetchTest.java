package io.selcc.cache;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ComputeNode#prefetch} loads the frame's header and one word per CPU cache line of the asked range of
 * the line's data, from the frame the hint names, and nothing else happens: no latch, no counter, no round
 * trip. The loaded words' sum shows which words were read. Shown failing with the data region's offset
 * left out of the loads (a range across a line boundary then read one line, not two).
 */
class PrefetchTest {
    @Test
    void aPrefetchLoadsTheFramesHeaderAndOneWordPerCacheLineOfTheRange() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            GclHandle h = node.xLock(line);
            int frame = h.frameIndex();
            // The frame's second CPU cache line starts at this data offset (the line's header comes first).
            int second = 64 - GclLayout.DATA_OFFSET;
            h.putLong(second, 1);
            h.putLong(second + 64, 20);
            h.putLong(second + 128, 300);
            h.putLong(second + 192, 4_000); // beyond the range asked for
            node.unlock(h);
            var before = node.counters().snapshot();

            long sum = node.prefetch(line, frame, second, 3 * 64);

            assertEquals(line + 321, sum, "the header's tag (the line's address) and the range's three line-start words");
            // Twenty bytes ending past the third line's start span the second and third lines.
            assertEquals(line + 21, node.prefetch(line, frame, second + 52, 20), "a range across a line boundary: both lines");
            assertEquals(before.nonZero(), node.counters().snapshot().nonZero(), "nothing counted: no latch, no round trip");
            GclHandle free = node.tryLock(line, true, frame);
            assertTrue(free != null, "no latch left behind");
            node.unlock(free);
        }
    }

    @Test
    void aHintThatNamesNoFrameOrARangeBeyondTheDataLoadsNothingOutsideIt() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            for (int hint : new int[] {ComputeNode.NO_FRAME, 16, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                assertEquals(0, node.prefetch(line, hint, 0, 64), "hint " + hint);
            }
            assertEquals(0, node.prefetch(line, 0, 0, 0), "an empty range");
            assertEquals(0, node.prefetch(line, 0, node.dataSize(), 64), "a range past the data");
            node.prefetch(line, 0, -64, Integer.MAX_VALUE); // clamped to the data region: no exception
            node.prefetch(line, 15, Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
    }

    @Test
    void selModeCachesNothingToPrefetch() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).accessMode(AccessMode.SEL).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            assertEquals(0, node.prefetch(line, 0, 0, 64));
        }
    }
}
