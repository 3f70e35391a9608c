package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kept handle ({@link ComputeNode#keptHandle}, {@link ComputeNode#tryLock(GclHandle, long, boolean, int)})
 * is latched again and again by the thread that made it: a hit binds it, a miss moves the full path's
 * latch into it with the same round trips, a refusal leaves it free, and its unlock never puts it in the
 * thread's pool, where a pooled latch would hand out the caller's handle. Shown failing with: the kept
 * handle given back to the pool on unlock (a pooled latch returned it), the thread check removed (the
 * other thread latched the first thread's handle), the hit's count left out, the dirty range of the
 * previous latch kept by the hit's binding (the second write-back carried the first latch's bytes too:
 * more bytes written), the data view of an X latch kept by the next S latch's binding (writable under S),
 * the hit tried a second time on the full path after a stale guess (two hint misses counted), and, in
 * SEL mode, the moved latch's own buffer left behind (the kept handle's read failed).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KeptHandleTest {
    @Test
    void aHitBindsTheKeptHandleAndCountsAsAHit() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            int frame = FrameHintTest.frameOf(node, line);
            GclHandle kept = node.keptHandle();
            assertThrows(IllegalStateException.class, () -> kept.getLong(0), "unlatched until latched");
            for (int round = 0; round < 3; round++) {
                boolean exclusive = round == 1;
                long hits = node.counters().threadSnapshot().get(Counter.CACHE_HITS);
                long roundTrips = node.counters().threadSnapshot().get(Counter.ROUND_TRIPS);
                GclHandle h = node.tryLock(kept, line, exclusive, round == 2 ? ComputeNode.NO_FRAME : frame);
                assertSame(kept, h, "the kept handle itself");
                assertEquals(exclusive, h.isExclusive());
                assertEquals(frame, h.frameIndex());
                assertEquals(7, h.getLong(0));
                assertEquals(!exclusive, h.data().isReadOnly(), "the data view of this latch's mode");
                assertEquals(hits + 1, node.counters().threadSnapshot().get(Counter.CACHE_HITS), "one hit counted");
                assertEquals(roundTrips, node.counters().threadSnapshot().get(Counter.ROUND_TRIPS), "no round trip");
                node.unlock(h);
                assertThrows(IllegalStateException.class, () -> kept.getLong(0), "used after unlock");
            }
            GclHandle pooled = node.sLock(line);
            assertNotSame(kept, pooled, "a pooled latch never hands out the kept handle");
            node.unlock(pooled);
            GclHandle again = node.sLock(line);
            assertNotSame(kept, again);
            node.unlock(again);
        }
    }

    @Test
    void aMissMovesTheFullPathsLatchIntoTheKeptHandleWithTheSameRoundTrips() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).build()) {
            ComputeNode a = cluster.node(0);
            ComputeNode b = cluster.node(1);
            long first = a.allocate();
            long second = a.allocate();
            SequentialConsistencyTest.write(b, first, 11); // b holds both lines modified: a's latches miss
            SequentialConsistencyTest.write(b, second, 12);

            CounterSnapshot before = a.counters().threadSnapshot();
            GclHandle pooled = a.tryLock(first, true, ComputeNode.NO_FRAME);
            assertNotNull(pooled);
            assertEquals(11, pooled.getLong(0));
            pooled.putLong(0, 21);
            a.unlock(pooled);
            CounterSnapshot pooledCounts = a.counters().threadSnapshot().minus(before);
            assertTrue(pooledCounts.get(Counter.ROUND_TRIPS) > 0 && pooledCounts.get(Counter.CACHE_MISSES) == 1, "a miss");

            GclHandle kept = a.keptHandle();
            before = a.counters().threadSnapshot();
            GclHandle h = a.tryLock(kept, second, true, ComputeNode.NO_FRAME);
            assertSame(kept, h, "the missed latch moved into the kept handle");
            assertEquals(12, h.getLong(0));
            h.putLong(0, 13);
            a.unlock(h);
            assertEquals(pooledCounts.nonZero(), a.counters().threadSnapshot().minus(before).nonZero(),
                "the same counts as the pooled latch's: round trips, verbs, bytes, misses");
            assertEquals(13, SequentialConsistencyTest.read(b, second), "the kept handle's write reached the other node");
            // The pooled handle the full path used was released when its latch moved: the pool's next
            // latch may hand it out again, and it works.
            GclHandle next = a.sLock(second);
            assertNotSame(kept, next);
            assertEquals(13, next.getLong(0));
            a.unlock(next);
        }
    }

    /** A stale guess costs one counted hint miss, as on the pooled path: the hit is not tried twice. */
    @Test
    void aStaleGuessIsCountedOnce() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            int frame = FrameHintTest.frameOf(node, line);
            long evictions = node.counters().snapshot().get(Counter.EVICTIONS);
            for (int i = 0; i < 4 * 16; i++) {
                SequentialConsistencyTest.write(node, node.allocate(), 1_000 + i);
            }
            // Four cache-fulls of other lines: the line left its frame, which another line took or left free.
            assertTrue(node.counters().snapshot().get(Counter.EVICTIONS) - evictions >= 3 * 16, "lines left the cache");
            GclHandle kept = node.keptHandle();
            long staleBefore = node.counters().snapshot().get(Counter.FRAME_HINT_MISSES);
            GclHandle h = node.tryLock(kept, line, false, frame);
            assertSame(kept, h);
            assertEquals(7, h.getLong(0), "the line's own bytes");
            node.unlock(h);
            assertEquals(1, node.counters().snapshot().get(Counter.FRAME_HINT_MISSES) - staleBefore, "one stale guess");
        }
    }

    @Test
    void aRefusalLeavesTheKeptHandleFreeAndMisuseIsRefused() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            GclHandle writer = node.xLock(line);
            GclHandle kept = node.keptHandle();
            assertNull(node.tryLock(kept, line, false, ComputeNode.NO_FRAME), "refused: the line is held in X");
            node.unlock(writer);
            GclHandle h = node.tryLock(kept, line, false, ComputeNode.NO_FRAME);
            assertSame(kept, h, "free after the refusal");
            assertThrows(IllegalStateException.class, () -> node.tryLock(kept, line, false, ComputeNode.NO_FRAME),
                "a latched kept handle");
            node.unlock(h);

            GclHandle pooled = node.sLock(line);
            assertThrows(IllegalArgumentException.class, () -> node.tryLock(pooled, line, false, ComputeNode.NO_FRAME),
                "not a kept handle");
            node.unlock(pooled);
            try (SelccCluster other = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
                GclHandle foreign = other.node(0).keptHandle();
                assertThrows(IllegalArgumentException.class, () -> node.tryLock(foreign, line, false, ComputeNode.NO_FRAME),
                    "another node's kept handle");
            }
        }
    }

    @Test
    void anotherThreadGetsAHandleOfItsOwn() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            GclHandle kept = node.keptHandle();
            CompletableFuture<long[]> other = new CompletableFuture<>();
            Thread thread = Thread.ofPlatform().start(() -> {
                try {
                    long hits = node.counters().threadSnapshot().get(Counter.CACHE_HITS);
                    GclHandle h = node.tryLock(kept, line, false, ComputeNode.NO_FRAME);
                    long same = h == kept ? 1 : 0;
                    long value = h.getLong(0);
                    node.unlock(h);
                    other.complete(new long[] {same, value, node.counters().threadSnapshot().get(Counter.CACHE_HITS) - hits});
                } catch (Throwable t) {
                    other.completeExceptionally(t);
                }
            });
            long[] seen = other.get(30, TimeUnit.SECONDS);
            thread.join();
            assertEquals(0, seen[0], "not the first thread's kept handle");
            assertEquals(7, seen[1]);
            assertEquals(1, seen[2], "the hit counted on the thread that took it");
            GclHandle h = node.tryLock(kept, line, false, ComputeNode.NO_FRAME);
            assertSame(kept, h, "still free for its own thread");
            node.unlock(h);
        }
    }

    @Test
    void eachLatchWritesBackOnlyItsOwnBytes() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            SequentialConsistencyTest.write(node, line, 7);
            GclHandle kept = node.keptHandle();
            GclHandle h = node.tryLock(kept, line, true, ComputeNode.NO_FRAME);
            h.putLong(0, 1); // left dirty in the frame by the unlock
            node.unlock(h);
            GclHandle cleaner = node.xLock(line);
            node.writeThrough(cleaner); // the frame clean from here on
            node.unlock(cleaner);

            h = node.tryLock(kept, line, true, ComputeNode.NO_FRAME);
            assertSame(kept, h);
            h.putLong(h.dataSize() - 8, 2); // far from the first latch's write
            long before = node.counters().threadSnapshot().get(Counter.BYTES_WRITTEN);
            node.writeThrough(h);
            long written = node.counters().threadSnapshot().get(Counter.BYTES_WRITTEN) - before;
            node.unlock(h);
            assertEquals(8, written, "the second latch's write-back carried its own eight bytes, no more");
        }
    }

    /**
     * SEL mode caches nothing: every latch takes the full path and moves into the kept handle, with the
     * counts of a pooled latch, and a write through it reaches the other node.
     */
    @Test
    void selModeMovesEveryLatchIntoTheKeptHandle() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(AccessMode.SEL).build()) {
            ComputeNode a = cluster.node(0);
            ComputeNode b = cluster.node(1);
            long first = a.allocate();
            long second = a.allocate();
            SequentialConsistencyTest.write(a, first, 1);
            SequentialConsistencyTest.write(a, second, 2);

            CounterSnapshot before = a.counters().threadSnapshot();
            GclHandle pooled = a.tryLock(first, true, ComputeNode.NO_FRAME);
            pooled.putLong(0, 11);
            a.unlock(pooled);
            CounterSnapshot pooledCounts = a.counters().threadSnapshot().minus(before);

            GclHandle kept = a.keptHandle();
            before = a.counters().threadSnapshot();
            GclHandle h = a.tryLock(kept, second, true, ComputeNode.NO_FRAME);
            assertSame(kept, h);
            assertEquals(ComputeNode.NO_FRAME, h.frameIndex());
            h.putLong(0, 12);
            a.unlock(h);
            assertEquals(pooledCounts.nonZero(), a.counters().threadSnapshot().minus(before).nonZero(),
                "the counts of a pooled latch");
            assertEquals(12, SequentialConsistencyTest.read(b, second));
            h = a.tryLock(kept, second, false, ComputeNode.NO_FRAME);
            assertSame(kept, h, "free again after its unlock");
            assertEquals(12, h.getLong(0));
            a.unlock(h);
        }
    }
}
