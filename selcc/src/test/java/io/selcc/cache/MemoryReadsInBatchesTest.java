package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/**
 * The crash repair's reads of memory: {@link ComputeNode#snapshots} and
 * {@link SelccCluster#forEachGclInMemory} read many lines per round trip (counted exactly), and give
 * each line as memory holds it. A repair walked trees and table chains one round trip per line, which
 * over TCP took 5-20 s for a TPC-C warehouse while every survivor waited (issue 28). Shown failing with
 * {@code snapshots} reading one line per round trip (1,200 round trips for 600 lines instead of 6).
 */
@Timeout(60)
class MemoryReadsInBatchesTest {
    private static final int LINES = 600;

    @Test
    void snapshotsReadManyLinesPerRoundTripAndAgreeWithMemory() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64).build()) {
            ComputeNode writer = cluster.node(0);
            ComputeNode reader = cluster.node(1);
            long[] addresses = new long[LINES];
            for (int i = 0; i < LINES; i++) {
                addresses[i] = writer.allocate();
                GclHandle h = writer.xLock(addresses[i]);
                h.putLong(0, 1_000 + i);
                h.putLong(writer.dataSize() - Long.BYTES, -i);
                writer.unlock(h);
            }
            cluster.flushCaches();

            long before = reader.counters().snapshot().get(Counter.ROUND_TRIPS);
            GclHandle[] images = reader.snapshots(addresses);
            long roundTrips = reader.counters().snapshot().get(Counter.ROUND_TRIPS) - before;
            assertEquals(2L * ((LINES + ComputeNode.SNAPSHOT_BATCH - 1) / ComputeNode.SNAPSHOT_BATCH), roundTrips,
                "each batch read twice (the second read confirms the first)");
            assertEquals(LINES, images.length);
            for (int i = 0; i < LINES; i++) {
                assertEquals(addresses[i], images[i].address());
                assertEquals(1_000 + i, images[i].getLong(0));
                assertEquals(-i, images[i].getLong(reader.dataSize() - Long.BYTES));
            }
            assertNotSame(images[0].copy(), images[1].copy(), "every image is its own");
        }
    }

    @Test
    void theSweepFindsEveryWantedLineInMemory() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).memoryNodes(2).cacheFrames(64).build()) {
            ComputeNode writer = cluster.node(0);
            Map<Long, Long> marked = new HashMap<>();
            for (int i = 0; i < LINES; i++) {
                long address = writer.allocate();
                GclHandle h = writer.xLock(address);
                if (i % 3 == 0) {
                    h.putLong(0, 0x5EED_0000L + i); // the lines the sweep wants
                    marked.put(address, 0x5EED_0000L + i);
                } else {
                    h.putLong(0, i);
                }
                writer.unlock(h);
            }
            cluster.flushCaches();

            ComputeNode reader = cluster.node(1);
            long before = reader.counters().snapshot().get(Counter.ROUND_TRIPS);
            List<Long> found = new ArrayList<>();
            cluster.forEachGclInMemory(1, line -> (line.getLong(0) & ~0xFFFFL) == 0x5EED_0000L, line -> {
                assertEquals(marked.get(line.address()), line.getLong(0), "the line as memory holds it");
                found.add(line.address());
            });
            long roundTrips = reader.counters().snapshot().get(Counter.ROUND_TRIPS) - before;
            System.out.println("MemoryReadsInBatchesTest: the sweep took " + roundTrips + " round trips");
            assertEquals(marked.size(), found.size(), "every wanted line, once");
            assertEquals(marked.keySet(), new java.util.HashSet<>(found));
            // Per memory node (each handed out about 300 GCLs): one word to learn how far it handed them out,
            // one batch of reads, and one more read of the wanted lines, which must agree with the first.
            assertEquals(2 * (1 + 1 + 1), roundTrips, "round trips of the sweep");
        }
    }
}
