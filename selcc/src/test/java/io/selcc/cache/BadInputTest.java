package io.selcc.cache;

import io.selcc.fabric.GlobalAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every bad input gets an exception that names the problem, and protocol state stays intact. */
class BadInputTest {
    private SelccCluster cluster;
    private ComputeNode node;
    private long gcl;

    @BeforeEach
    void setUp() {
        cluster = SelccCluster.builder().computeNodes(2).memoryNodes(2).memoryPerNode(1 << 20).cacheFrames(16).build();
        node = cluster.node(0);
        gcl = node.allocate();
        SequentialConsistencyTest.write(node, gcl, 77);
    }

    @AfterEach
    void tearDown() {
        cluster.close();
    }

    private static void assertMessage(RuntimeException e, String... parts) {
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "message '" + e.getMessage() + "' lacks '" + part + "'");
        }
    }

    private void assertStillWorks() {
        assertEquals(77, SequentialConsistencyTest.read(cluster.node(1), gcl));
        SequentialConsistencyTest.write(node, gcl, 77);
    }

    @Test
    void misalignedAddress() {
        long bad = gcl + 64;
        assertMessage(assertThrows(IllegalArgumentException.class, () -> node.xLock(bad)),
            "misaligned GCL address", GlobalAddress.toString(bad));
        assertStillWorks();
    }

    @Test
    void outOfRangeAddress() {
        long beyond = GlobalAddress.of(0, 1L << 30);
        assertMessage(assertThrows(IllegalArgumentException.class, () -> node.sLock(beyond)), "out of range");
        long reserved = GlobalAddress.of(0, 0);
        assertMessage(assertThrows(IllegalArgumentException.class, () -> node.sLock(reserved)), "out of range");
        long noNode = GlobalAddress.of(5, 2048);
        assertMessage(assertThrows(IllegalArgumentException.class, () -> node.sLock(noNode)), "no such memory node");
        assertStillWorks();
    }

    @Test
    void doubleFree() {
        long other = node.allocate();
        cluster.node(1).free(other);
        assertMessage(assertThrows(IllegalStateException.class, () -> node.free(other)), "double free",
            GlobalAddress.toString(other));
        assertStillWorks();
    }

    @Test
    void unlockTwice() {
        GclHandle h = node.xLock(gcl);
        node.unlock(h);
        assertMessage(assertThrows(IllegalStateException.class, () -> node.unlock(h)), "not held");
        assertMessage(assertThrows(IllegalStateException.class, () -> h.getLong(0)), "after unlock");
        assertStillWorks();
    }

    @Test
    void unlockOnTheWrongNode() {
        GclHandle h = node.sLock(gcl);
        assertMessage(assertThrows(IllegalArgumentException.class, () -> cluster.node(1).unlock(h)), "another compute node");
        node.unlock(h);
        assertStillWorks();
    }

    @Test
    void writeUnderSharedLatchAndOutOfBounds() {
        GclHandle h = node.sLock(gcl);
        assertMessage(assertThrows(IllegalStateException.class, () -> h.putLong(0, 1)), "shared latch");
        assertMessage(assertThrows(IndexOutOfBoundsException.class, () -> h.getLong(h.dataSize() - 4)), "outside");
        node.unlock(h);
        assertStillWorks();
    }

    @Test
    void atomicsOnLatchWordsOrMisalignedWordsAreRefused() {
        assertMessage(assertThrows(IllegalArgumentException.class, () -> node.faa(gcl, 1)), "latch");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> node.cas(gcl + 20, 0, 1)), "misaligned");
        assertEquals(0, node.faa(gcl + 1024, 5));
        assertEquals(5, node.cas(gcl + 1024, 5, 6));
        assertStillWorks();
    }

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void memoryFullIsAClearError(AccessMode mode) {
        try (SelccCluster small = SelccCluster.builder().computeNodes(1).memoryNodes(2).memoryPerNode(8 * 2048)
            .accessMode(mode).allocationChunk(3).build()) {
            ComputeNode n = small.node(0);
            int allocated = 0;
            SharedMemoryFullException full = null;
            for (int i = 0; i < 100 && full == null; i++) {
                try {
                    n.allocate();
                    allocated++;
                } catch (SharedMemoryFullException e) {
                    full = e;
                }
            }
            assertEquals(13, allocated, "7 GCLs on memory node 1, 6 on node 0 (allocator word; node 0 also the catalog root)");
            assertMessage(full, "shared memory is full", "memoryNodes=2");
        }
    }

    @Test
    void tooManyComputeNodesAreRefusedAtStart() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> SelccCluster.builder().computeNodes(57).build());
        assertMessage(e, "computeNodes=57", "56");
    }

    @Test
    void badConfigurationIsRefused() {
        assertMessage(assertThrows(IllegalArgumentException.class, () -> SelccCluster.builder().gclSize(1000).build()),
            "gclSize=1000");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> SelccCluster.builder().cacheFrames(1).build()),
            "cacheFrames=1");
        assertMessage(assertThrows(IllegalArgumentException.class, () -> AccessMode.parse("rdma")), "access=rdma");
    }
}
