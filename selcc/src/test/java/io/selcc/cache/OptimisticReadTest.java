package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Latch-free reads of cached lines: a read validates only if no writer latched the line meanwhile,
 * locally or by invalidation from another node. Shown failing with {@code validateOptimistic}
 * returning true unconditionally (the write-in-between cases then validate).
 */
class OptimisticReadTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aReadValidatesOnlyWhenNoWriterCameBetween() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64).build()) {
            ComputeNode node = cluster.node(0);
            ComputeNode other = cluster.node(1);
            long line = node.allocate();
            GclHandle w = node.xLock(line);
            w.putLong(0, 41);
            node.unlock(w);
            GclHandle h = node.optimisticHandle();

            assertTrue(node.tryOptimisticRead(line, h), "a cached line reads optimistically");
            assertEquals(41, h.getLong(0));
            assertTrue(node.validate(h), "nothing came between");
            assertFalse(node.validate(h), "one validation per read");

            assertTrue(node.tryOptimisticRead(line, h));
            GclHandle local = node.xLock(line); // a local writer in between
            local.putLong(0, 42);
            node.unlock(local);
            assertFalse(node.validate(h), "a local writer came between");

            assertTrue(node.tryOptimisticRead(line, h));
            assertEquals(42, h.getLong(0));
            GclHandle remote = other.xLock(line); // invalidates node 0's copy through its X latch
            remote.putLong(0, 43);
            other.unlock(remote);
            assertFalse(node.validate(h), "a remote writer's invalidation came between");
            assertFalse(node.tryOptimisticRead(line, h), "an invalidated copy is not readable");

            GclHandle held = node.xLock(line);
            assertFalse(node.tryOptimisticRead(line, h), "a line a local thread holds in X");
            node.unlock(held);
            assertTrue(node.tryOptimisticRead(line, h));
            assertEquals(43, h.getLong(0));
            assertTrue(node.validate(h));

            assertThrows(IllegalArgumentException.class, () -> node.unlock(h));
            assertThrows(IllegalStateException.class, () -> h.putLong(0, 1));
            assertThrows(IllegalArgumentException.class, () -> other.tryOptimisticRead(line, h));
            assertTrue(cluster.counters(0).get(Counter.OPTIMISTIC_FAILURES) >= 2);
        }
    }

    @Test
    void selModeNeverReadsOptimistically() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).accessMode(AccessMode.SEL).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            assertFalse(node.tryOptimisticRead(line, node.optimisticHandle()));
        }
    }
}
