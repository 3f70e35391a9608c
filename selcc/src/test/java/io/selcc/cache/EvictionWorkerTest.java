package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The eviction worker, woken below the free list's low water mark, refills the list to twice the mark, and no
 * eviction (the worker's or an access's own) takes more than {@link Evictor#BATCH} frames at once. Shown failing
 * with the worker evicting the whole refill in one batch (batches of several hundred: more victims than the
 * bound per batch), and with the worker going back to sleep as soon as the list is above the mark (it never
 * reached twice the mark).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EvictionWorkerTest {
    private static final int FRAMES = 4_096;
    private static final int LOW_WATER = 1_000;

    @Test
    void theWorkerRefillsToTwiceTheMarkInBoundedBatches() {
        int coldLines = 3 * FRAMES;
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(FRAMES)
            .freeListLowWater(LOW_WATER).memoryPerNode(64L << 20).build()) {
            ComputeNode allocator = cluster.node(1); // allocation goes through a cache: keep node 0's untouched
            SelccNode node = (SelccNode) cluster.node(0);
            long[] cold = new long[coldLines];
            for (int i = 0; i < cold.length; i++) {
                cold[i] = allocator.allocate();
            }
            cluster.flushCaches();
            for (long line : cold) {
                node.unlock(node.sLock(line));
            }
            long evictions = cluster.counters(0).get(Counter.EVICTIONS);
            long batches = cluster.counters(0).get(Counter.EVICTION_BATCHES);
            assertTrue(evictions >= coldLines - FRAMES, "evictions ran: " + evictions);
            assertTrue(evictions <= (long) Evictor.BATCH * batches,
                "at most " + Evictor.BATCH + " victims per batch: evictions=" + evictions + " batches=" + batches);

            // The worker sleeps between refills, which leaves the list anywhere above the mark. Take free frames
            // off it (kept aside) to below the mark and wake the worker, as the access that took the last would:
            // with nothing accessed meanwhile, the worker goes on until the list holds twice the mark.
            List<CacheFrame> aside = new ArrayList<>();
            while (node.free.size() >= LOW_WATER) {
                CacheFrame frame = node.free.pop();
                if (frame != null) {
                    aside.add(frame);
                }
            }
            node.evictor.wakeWorker();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (node.free.size() < 2 * LOW_WATER && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(1_000_000); // a condition awaited, with a bound; nothing asserted on time
            }
            assertTrue(node.free.size() >= 2 * LOW_WATER,
                "free frames " + node.free.size() + ", want at least " + 2 * LOW_WATER);
            aside.forEach(node.free::push);
        }
    }
}
