package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A frame hint ({@link ComputeNode#tryLock}, {@link ComputeNode#tryOptimisticRead(long, GclHandle, int)})
 * reaches the line's frame without the directory, and a hint to a frame that was evicted and reused for
 * another line is refused by the tag in the frame's header: the access then finds the line by address
 * and reads its own bytes. Shown failing with the tag check removed from {@code SelccNode.tryHit} (the
 * stale hint's latch read the other line's value, 1,000 and up, instead of 7).
 */
class FrameHintTest {
    @Test
    void aRightHintLatchesItsFrameWithoutAMiss() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            int frame = frameOf(node, line);
            assertTrue(frame >= 0, "a cached line has a frame: " + frame);
            long misses = node.counters().snapshot().get(Counter.FRAME_HINT_MISSES);

            for (boolean exclusive : new boolean[] {false, true}) {
                GclHandle h = node.tryLock(line, exclusive, frame);
                assertNotNull(h, "the line is free");
                assertEquals(frame, h.frameIndex());
                assertEquals(7, h.getLong(0));
                node.unlock(h);
            }
            GclHandle optimistic = node.optimisticHandle();
            assertTrue(node.tryOptimisticRead(line, optimistic, frame));
            assertEquals(7, optimistic.getLong(0));
            assertTrue(node.validate(optimistic));
            assertEquals(frame, optimistic.frameIndex());
            assertEquals(misses, node.counters().snapshot().get(Counter.FRAME_HINT_MISSES), "no hint missed");
        }
    }

    @Test
    void noHintAndAHintOutOfRangeAreLookedUp() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            for (int hint : new int[] {ComputeNode.NO_FRAME, 16, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                GclHandle h = node.tryLock(line, false, hint);
                assertNotNull(h, "hint " + hint);
                assertEquals(7, h.getLong(0), "hint " + hint);
                node.unlock(h);
            }
            assertEquals(0, node.counters().snapshot().get(Counter.FRAME_HINT_MISSES), "none of them named a frame");
        }
    }

    @Test
    void selModeHasNoFrames() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).accessMode(AccessMode.SEL).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            GclHandle h = node.tryLock(line, true, 3);
            assertNotNull(h);
            assertEquals(ComputeNode.NO_FRAME, h.frameIndex());
            assertEquals(7, h.getLong(0));
            node.unlock(h);
        }
    }

    /**
     * A right hint does not make a hit of a copy that no longer permits the access: an invalidated copy
     * (another node wrote the line) and a shared copy asked for in X go the remote way, so the reader sees
     * the other node's write and the other node loses its copy. Shown failing with the ownership check
     * skipped for hinted hits (node 0 read its stale 7; node 1 kept reading its copy).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRightHintStillObeysTheCopysOwnership() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).build()) {
            ComputeNode a = cluster.node(0);
            ComputeNode b = cluster.node(1);
            long line = a.allocate();
            SequentialConsistencyTest.write(a, line, 7);
            int frame = frameOf(a, line);

            SequentialConsistencyTest.write(b, line, 8); // node 0's copy is invalidated
            GclHandle read = tryUntilGranted(a, line, false, frame);
            assertEquals(8, read.getLong(0), "the other node's write, not the invalidated copy");
            assertEquals(line, read.address());
            int frameNow = read.frameIndex();
            a.unlock(read);

            assertEquals(8, SequentialConsistencyTest.read(b, line), "node 1 shares the line");
            GclHandle write = tryUntilGranted(a, line, true, frameNow);
            write.putLong(0, 9);
            a.unlock(write);
            assertEquals(9, SequentialConsistencyTest.read(b, line), "node 1's shared copy was invalidated by the X latch");
        }
    }

    /** The frame that caches {@code line} on {@code node} (latched and released to find out). */
    static int frameOf(ComputeNode node, long line) {
        GclHandle h = node.sLock(line);
        try {
            return h.frameIndex();
        } finally {
            node.unlock(h);
        }
    }

    /** A try-latch with a hint, repeated while the line is busy (the other node serves our request meanwhile). */
    private static GclHandle tryUntilGranted(ComputeNode node, long line, boolean exclusive, int frame) {
        for (int attempt = 0; attempt < 100_000; attempt++) {
            GclHandle h = node.tryLock(line, exclusive, frame);
            if (h != null) {
                return h;
            }
            Thread.yield();
        }
        throw new AssertionError("the line stayed busy for 100,000 tries");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aHintToAFrameReusedForAnotherLineIsRefused() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            SelccNode node = (SelccNode) cluster.node(0);
            long hinted = node.allocate();
            SequentialConsistencyTest.write(node, hinted, 7);
            int frame = frameOf(node, hinted);
            long reuser = StaleHintTest.reuseFrame(node, frame);
            assertEquals(reuser, node.frames[frame].address(), "the hint is stale when used");
            long misses = node.counters().snapshot().get(Counter.FRAME_HINT_MISSES);

            GclHandle h = node.tryLock(hinted, false, frame);
            assertNotNull(h, "the line is free");
            assertEquals(7, h.getLong(0), "latched read of the hinted line, not of the frame's new line");
            assertEquals(hinted, h.address());
            int nowAt = h.frameIndex();
            node.unlock(h);
            assertEquals(misses + 1, node.counters().snapshot().get(Counter.FRAME_HINT_MISSES), "the stale hint was counted");

            if (nowAt != frame && node.frames[frame].address() != hinted) {
                GclHandle optimistic = node.optimisticHandle();
                assertTrue(node.tryOptimisticRead(hinted, optimistic, frame), "found by address");
                assertEquals(7, optimistic.getLong(0), "optimistic read of the hinted line");
                assertTrue(node.validate(optimistic));
                assertEquals(misses + 2, node.counters().snapshot().get(Counter.FRAME_HINT_MISSES));
            }
        }
    }
}
