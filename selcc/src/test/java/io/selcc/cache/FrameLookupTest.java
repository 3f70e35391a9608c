package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Frame lookups through the frame directory: a frame since evicted and reused for another GCL is never
 * taken for the old one. Planted bug caught: the tag check removed from {@code SelccNode.frameIndexOf}
 * together with the address re-check under the latch (wrong values read).
 */
class FrameLookupTest {
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFrameReusedForAnotherGclIsNotTakenForTheOldOne() {
        long seed = 20261123L;
        System.out.println("FrameLookupTest seed=" + seed);
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
