package io.selcc.fabric.tcp;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SELCC protocol over the TCP fabric: two compute nodes (hosted here, talking over loopback) and a
 * memory-node server; threads on both increment counters in a few lines with a cache too small to keep
 * them, so latches are handed over by invalidation messages, lines are forwarded in the answers and
 * evicted. The sums must be exact. (It hung before invalidations got an in-order lane per connection,
 * and fails with lost updates on a requester that drops the granted line's bytes, planted once.)
 */
class SelccOverTcpTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void countersAreExactOverTcp() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SelccOverTcpTest seed=" + seed);
        int nodes = 2;
        int threads = 2;
        int gcls = 12;
        int increments = 300;
        try (MemoryNodeServer memory = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 16 << 20)) {
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(any, any)),
                Set.of(0, 1), Duration.ofSeconds(30));
            try (SelccCluster cluster = SelccCluster.builder().fabric(fabric).cacheFrames(8).freeListLowWater(2)
                .threadsPerNode(threads).build()) {
                long[] addresses = new long[gcls];
                for (int i = 0; i < gcls; i++) {
                    addresses[i] = cluster.node(i % nodes).allocate();
                }
                ExecutorService pool = Executors.newFixedThreadPool(nodes * threads);
                List<Future<Integer>> done = new ArrayList<>();
                for (int n = 0; n < nodes; n++) {
                    ComputeNode node = cluster.node(n);
                    for (int t = 0; t < threads; t++) {
                        SplittableRandom random = new SplittableRandom(seed + n * 31L + t);
                        done.add(pool.submit(() -> {
                            for (int i = 0; i < increments; i++) {
                                long gcl = addresses[random.nextInt(gcls)];
                                if (random.nextInt(4) == 0) {
                                    GclHandle peek = node.sLock(gcl);
                                    peek.getLong(0);
                                    node.unlock(peek);
                                }
                                GclHandle h = node.xLock(gcl);
                                h.putLong(0, h.getLong(0) + 1);
                                node.unlock(h);
                            }
                            return increments;
                        }));
                    }
                }
                pool.shutdown();
                for (Future<Integer> f : done) {
                    assertEquals(increments, f.get(100, TimeUnit.SECONDS), "the worker finished its share (seed=" + seed + ")");
                }
                long sum = 0;
                for (long gcl : addresses) {
                    GclHandle h = cluster.node(1).sLock(gcl);
                    sum += h.getLong(0);
                    cluster.node(1).unlock(h);
                }
                assertEquals((long) nodes * threads * increments, sum, "lost update over TCP (seed=" + seed + ")");
                cluster.flushCaches();
                assertEquals(List.of(), cluster.busyLatchWords(10), "latch words left busy after the flush");
                CounterSnapshot total = cluster.totalCounters();
                for (Counter happened : new Counter[] {Counter.HANDOVERS, Counter.FORWARDS, Counter.EVICTIONS,
                    Counter.MESSAGES_SENT}) {
                    assertTrue(total.get(happened) > 0, happened + " never happened: " + total);
                }
                assertEquals(total.get(Counter.MESSAGES_SENT), total.get(Counter.MESSAGES_RECEIVED),
                    "every message arrived once: " + total);
                assertTrue(fabric.endpoint(0).roundTripNanos() > 0, "the round trip was measured");
            }
        }
    }
}
