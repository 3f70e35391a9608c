package io.selcc.cli.micro;

import io.selcc.cache.SelccCluster;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each node reaches exactly the shared GCLs plus its own partition, and nothing of other partitions. */
class GclSpaceTest {
    private static final int NODES = 3;
    private static final int GCLS = 103;
    private static final int SHARING = 50;

    @Test
    void partitionsAreDisjointAndLocalityRepeats() throws InterruptedException {
        GclSpace space = GclSpace.plan(GCLS, SHARING, NODES);
        assertEquals(51, space.shared());
        assertEquals(17, space.privatePerNode(), "52 private GCLs over 3 nodes: 17 each, 1 unused");
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(NODES).memoryPerNode(1 << 20).cacheFrames(64)
            .build()) {
            space.allocate(cluster);
            Set<Long> all = new HashSet<>();
            Set<Long> shared = new HashSet<>();
            for (int i = 0; i < space.shared(); i++) {
                shared.add(space.address(0, i));
            }
            for (int node = 0; node < NODES; node++) {
                Set<Long> reachable = new HashSet<>();
                for (int i = 0; i < space.accessible(); i++) {
                    reachable.add(space.address(node, i));
                }
                assertEquals(space.accessible(), reachable.size(), "distinct addresses of node " + node);
                assertTrue(reachable.containsAll(shared));
                reachable.removeAll(shared);
                assertTrue(reachable.stream().noneMatch(all::contains), "partition of node " + node + " overlaps");
                all.addAll(reachable);

                SplittableRandom random = new SplittableRandom(node);
                AccessPattern uniform = new AccessPattern(space, node, null, null, 0, random);
                Set<Long> drawn = new HashSet<>();
                for (int i = 0; i < 5000; i++) {
                    drawn.add(uniform.next());
                }
                Set<Long> allowed = new HashSet<>(shared);
                allowed.addAll(reachable);
                assertTrue(allowed.containsAll(drawn), "node " + node + " drew outside its GCLs");
                assertEquals(allowed, drawn, "5000 uniform draws over 68 GCLs reach all of them");

                AccessPattern sticky = new AccessPattern(space, node, new ZipfGenerator(space.accessible(), 0.99),
                    new Scramble(space.accessible()), 100, random);
                long first = sticky.next();
                for (int i = 0; i < 100; i++) {
                    assertEquals(first, sticky.next(), "locality 100% repeats the previous GCL");
                }
            }
        }
    }
}
