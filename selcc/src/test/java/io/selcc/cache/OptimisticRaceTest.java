package io.selcc.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Optimistic reads racing a writer on the same node: the writer keeps two words of a line equal,
 * changing both under its X latch, and a reader reads them without a latch and validates. A validated
 * read must never see them differ (a torn read), and must never see a pair older than one it validated
 * before (a stale read). Shown failing with {@code FrameHeader.validate} returning true (torn pairs
 * validate) and with {@code unlockWrite} not bumping the version (same). The test asserts the race
 * happened: some reads failed validation and some passed.
 */
class OptimisticRaceTest {
    private static final int READS = 2_000_000;
    private static final int MIN_FAILED = 100;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aTornOrStaleReadNeverValidates() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(64).build();
             ExecutorService pool = Executors.newFixedThreadPool(2)) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            GclHandle init = node.xLock(line);
            init.putLong(0, 0);
            init.putLong(1024, 0);
            node.unlock(init);
            AtomicBoolean done = new AtomicBoolean();
            Future<Long> writer = pool.submit(() -> {
                long value = 0;
                while (!done.get()) {
                    GclHandle w = node.xLock(line);
                    value++;
                    w.putLong(0, value);
                    Thread.onSpinWait(); // widen the window between the two words
                    w.putLong(1024, value);
                    node.unlock(w);
                }
                return value;
            });
            Future<long[]> reader = pool.submit(() -> {
                GclHandle h = node.optimisticHandle();
                long validated = 0;
                long failed = 0;
                long last = -1;
                for (int i = 0; i < READS || failed < MIN_FAILED && i < 50 * READS; i++) {
                    if (!node.tryOptimisticRead(line, h)) {
                        failed++;
                        continue;
                    }
                    long first = h.getLong(0);
                    long second = h.getLong(1024);
                    if (!node.validate(h)) {
                        failed++;
                        continue;
                    }
                    validated++;
                    assertEquals(first, second, "a torn read validated");
                    assertTrue(first >= last, "a stale read validated: " + first + " after " + last);
                    last = first;
                }
                return new long[] {validated, failed};
            });
            long[] counts;
            try {
                counts = reader.get(100, TimeUnit.SECONDS);
            } finally {
                done.set(true);
            }
            long writes = writer.get(10, TimeUnit.SECONDS);
            System.out.println("OptimisticRaceTest validated=" + counts[0] + " failed=" + counts[1] + " writes=" + writes);
            assertTrue(counts[0] > 0, "some reads validated");
            assertTrue(counts[1] >= MIN_FAILED, "the writer raced the reader: failed validations " + counts[1]);
            assertTrue(writes > 0, "the writer wrote");
        }
    }
}
