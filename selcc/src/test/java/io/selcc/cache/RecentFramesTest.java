package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each thread's memo of recently used frames: it answers repeated lookups, and a frame since evicted
 * and reused for another GCL is never taken for the old one. Planted bugs caught: the memo's address
 * check removed (the lock's own re-check then retries the wrong frame for ever: the timeout fails
 * it), and the memo never filled (no hits).
 */
class RecentFramesTest {
    @Test
    void repeatedLookupsAreAnsweredByTheMemo() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(64).build()) {
            SelccNode node = (SelccNode) cluster.node(0);
            long gcl = node.allocate();
            long before = node.recentFrameHits();
            for (int i = 0; i < 100; i++) {
                node.unlock(node.sLock(gcl));
            }
            assertTrue(node.recentFrameHits() - before >= 99, "memo hits: " + (node.recentFrameHits() - before));
        }
    }

    /** Without the address check a lock retries the wrong frame for ever: the timeout fails it. */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFrameReusedForAnotherGclIsNotTakenForTheOldOne() {
        long seed = 20261123L;
        System.out.println("RecentFramesTest seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            int count = 200;
            long[] gcls = new long[count];
            for (int i = 0; i < count; i++) {
                gcls[i] = node.allocate();
                SequentialConsistencyTest.write(node, gcls[i], 1000 + i);
            }
            for (int round = 0; round < 3; round++) {
                for (int n = 0; n < count; n++) {
                    int i = random.nextInt(count);
                    assertEquals(1000 + i, SequentialConsistencyTest.read(node, gcls[i]), "GCL " + i + " round " + round);
                }
            }
            assertTrue(cluster.counters(0).get(Counter.EVICTIONS) > count, "frames were reused: "
                + cluster.counters(0).get(Counter.EVICTIONS));
        }
    }
}
