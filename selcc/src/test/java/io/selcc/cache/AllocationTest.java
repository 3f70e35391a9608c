package io.selcc.cache;

import io.selcc.fabric.GlobalAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AllocationTest {

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void allocationIsRoundRobinUniqueAndZeroed(AccessMode mode) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).memoryNodes(3).accessMode(mode).build()) {
            Set<Long> seen = new HashSet<>();
            int[] perMemoryNode = new int[3];
            for (int i = 0; i < 300; i++) {
                long gcl = cluster.node(i % 2).allocate();
                assertTrue(seen.add(gcl), "allocated twice: " + GlobalAddress.toString(gcl));
                assertEquals(0, GlobalAddress.offset(gcl) % cluster.node(0).gclSize(), "aligned to GCL size");
                perMemoryNode[GlobalAddress.memoryNode(gcl)]++;
            }
            for (int count : perMemoryNode) {
                assertEquals(100, count, "round robin over memory nodes");
            }
        }
    }

    /**
     * Under SELCC a never-used GCL is latched with a CAS alone (it is zero on its memory node and no
     * other node knows it): no bytes read back, one round trip, and the other node still sees what
     * was written into it. Shown failing with the allocator's plain X latch (2,040 bytes read).
     */
    @org.junit.jupiter.api.Test
    void aNeverUsedGclIsLatchedWithoutReadingIt() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(AccessMode.SELCC).build()) {
            ComputeNode node = cluster.node(0);
            node.allocate(); // the node's first chunk of addresses
            cluster.resetCounters();
            long gcl = node.allocate();
            assertEquals(0, cluster.counters(0).get(io.selcc.fabric.Counter.BYTES_READ), "bytes read to allocate");
            assertEquals(1, cluster.counters(0).get(io.selcc.fabric.Counter.ROUND_TRIPS), "round trips to allocate");
            assertEquals(0, SequentialConsistencyTest.read(node, gcl), "a new GCL reads as zero");
            SequentialConsistencyTest.write(node, gcl, 77);
            assertEquals(77, SequentialConsistencyTest.read(cluster.node(1), gcl), "the other node sees the write");
        }
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void theCatalogRootIsWellKnownAndNeverAllocated(AccessMode mode) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(mode).build()) {
            long root = cluster.node(0).catalogRoot();
            assertEquals(root, cluster.node(1).catalogRoot());
            for (int i = 0; i < 200; i++) {
                assertTrue(cluster.node(i % 2).allocate() != root, "allocator handed out the catalog root");
            }
            SequentialConsistencyTest.write(cluster.node(0), root, 5);
            assertEquals(5, SequentialConsistencyTest.read(cluster.node(1), root));
        }
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void freedGclsAreReusedAndComeBackZeroed(AccessMode mode) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).accessMode(mode).build()) {
            ComputeNode node = cluster.node(0);
            long gcl = node.allocate();
            SequentialConsistencyTest.write(node, gcl, 123);
            node.free(gcl);
            long again = node.allocate();
            assertEquals(gcl, again, "a freed GCL is reused first");
            assertEquals(0, SequentialConsistencyTest.read(node, again), "reused GCL is zeroed");
        }
    }

    /**
     * The cluster's count of GCLs in use follows allocations and frees exactly, across compute nodes
     * and memory nodes, whatever the allocation chunks hold idle; a full node's bump word runs past
     * its end and must not count.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void gclsInUseCountsAllocationsAndFrees(AccessMode mode) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).memoryNodes(2).accessMode(mode).build()) {
            assertEquals(0, cluster.gclsInUse());
            long[] gcls = new long[301];
            for (int i = 0; i < gcls.length; i++) {
                gcls[i] = cluster.node(i % 2).allocate();
            }
            assertEquals(301, cluster.gclsInUse());
            for (int i = 0; i < 100; i++) {
                cluster.node(1).free(gcls[i]);
            }
            assertEquals(201, cluster.gclsInUse());
            cluster.node(0).allocate();
            assertEquals(202, cluster.gclsInUse());
        }
        int gclSize = 2048;
        try (SelccCluster full = SelccCluster.builder().computeNodes(2).memoryPerNode(40L * gclSize).gclSize(gclSize)
                .allocationChunk(8).accessMode(mode).build()) {
            int allocated = 0;
            try {
                while (true) {
                    full.node(allocated / 8 % 2).allocate();
                    allocated++;
                }
            } catch (SharedMemoryFullException expected) {
                // every GCL is handed out
            }
            assertTrue(allocated > 30, "allocated=" + allocated);
            assertEquals(allocated, full.gclsInUse());
        }
    }

    /**
     * A never-used line filled in a private image ({@code allocateImage}) costs one WRITE when published
     * and nothing before (no latch, no frame); every node then reads what was written, the writer's own
     * included (it fetches the line: nothing was cached), and the line latches as any other. A freed
     * line, which another node may still cache, comes back as an ordinary latched handle instead.
     *
     * <p>Shown failing, each planted once: with publish writing only the allocation state, the other node
     * read 0 for 4242; with a reused line filled as an image too, the other node still cached the line
     * it had written last (SELCC's lazy release) and read 5 for 7.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void anImageIsWrittenOnceWhenPublished(AccessMode mode) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(mode).build()) {
            ComputeNode node = cluster.node(0);
            int gclSize = node.gclSize();
            java.lang.foreign.MemorySegment image = java.lang.foreign.MemorySegment.ofArray(new long[gclSize / 8]);
            node.allocate(); // the node's first chunk of addresses
            cluster.resetCounters();
            GclHandle h = node.allocateImage(image);
            assertTrue(h.isExclusive());
            assertEquals(0, h.getLong(0), "an image starts zeroed");
            h.putLong(0, 4242);
            h.putLong(node.dataSize() - 8, 99);
            assertEquals(0, cluster.counters(0).get(io.selcc.fabric.Counter.ROUND_TRIPS), "nothing before publishing");
            node.publish(h);
            assertEquals(1, cluster.counters(0).get(io.selcc.fabric.Counter.ROUND_TRIPS), "one round trip to publish");
            assertEquals(1, cluster.counters(0).get(io.selcc.fabric.Counter.VERB_WRITE));
            assertEquals(4242, SequentialConsistencyTest.read(cluster.node(1), h.address()));
            assertEquals(4242, SequentialConsistencyTest.read(node, h.address()));
            GclHandle tail = node.sLock(h.address());
            assertEquals(99, tail.getLong(node.dataSize() - 8), "the last bytes of the line too");
            node.unlock(tail);
            SequentialConsistencyTest.write(cluster.node(1), h.address(), 5);
            assertEquals(5, SequentialConsistencyTest.read(node, h.address()));
            node.free(h.address()); // the image's line is allocated like any other

            org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class, () -> node.publish(h), "published twice");
            GclHandle second = node.allocateImage(image); // the freed line: latched through the protocol
            assertEquals(h.address(), second.address(), "the freed line is reused first");
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> node.unlock(
                node.allocateImage(java.lang.foreign.MemorySegment.ofArray(new long[gclSize / 8]))),
                "an image is published, not unlocked");
            assertEquals(0, second.getLong(0), "a reused line comes back zeroed");
            second.putLong(0, 7);
            node.publish(second);
            assertEquals(7, SequentialConsistencyTest.read(cluster.node(1), second.address()));
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> node.allocateImage(java.lang.foreign.MemorySegment.ofArray(new long[gclSize / 16])));
        }
    }
}
