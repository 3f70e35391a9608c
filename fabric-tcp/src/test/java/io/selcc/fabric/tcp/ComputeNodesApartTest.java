package io.selcc.fabric.tcp;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clusters, each hosting one of the two compute nodes over its own TCP fabric, as two processes
 * would: they share nothing but the memory node and the connections between them. Increments from both
 * must add up exactly, and each cluster refuses to act for the node it does not host. (Planted once: a
 * requester that drops the granted line's bytes lost updates here.)
 */
class ComputeNodesApartTest {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void twoClustersOneNodeEachStayCoherent() throws Exception {
        long seed = System.nanoTime();
        System.out.println("ComputeNodesApartTest seed=" + seed);
        int gcls = 10;
        int increments = 400;
        try (MemoryNodeServer memory = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 16 << 20)) {
            ClusterMap map = new ClusterMap(List.of(memory.address()),
                List.of(new InetSocketAddress("127.0.0.1", freePort()), new InetSocketAddress("127.0.0.1", freePort())));
            SelccCluster first = SelccCluster.builder()
                .fabric(TcpFabric.connect(map, Set.of(0), Duration.ofSeconds(30))).cacheFrames(8).freeListLowWater(2).build();
            SelccCluster second = SelccCluster.builder()
                .fabric(TcpFabric.connect(map, Set.of(1), Duration.ofSeconds(30))).cacheFrames(8).freeListLowWater(2).build();
            try {
                assertTrue(first.hosts(0) && !first.hosts(1) && second.hosts(1) && !second.hosts(0));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> first.node(1));
                assertTrue(e.getMessage().contains("another process"), e.getMessage());
                long[] addresses = new long[gcls];
                for (int i = 0; i < gcls; i++) {
                    addresses[i] = (i % 2 == 0 ? first.node(0) : second.node(1)).allocate();
                }
                ExecutorService pool = Executors.newFixedThreadPool(2);
                List<Future<Integer>> done = new ArrayList<>();
                ComputeNode[] nodes = {first.node(0), second.node(1)};
                for (int n = 0; n < 2; n++) {
                    ComputeNode node = nodes[n];
                    SplittableRandom random = new SplittableRandom(seed + n);
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < increments; i++) {
                            GclHandle h = node.xLock(addresses[random.nextInt(gcls)]);
                            h.putLong(0, h.getLong(0) + 1);
                            node.unlock(h);
                        }
                        return increments;
                    }));
                }
                pool.shutdown();
                for (Future<Integer> f : done) {
                    assertEquals(increments, f.get(100, TimeUnit.SECONDS), "the worker finished its share (seed=" + seed + ")");
                }
                long sum = 0;
                for (long gcl : addresses) {
                    GclHandle h = first.node(0).sLock(gcl);
                    sum += h.getLong(0);
                    first.node(0).unlock(h);
                }
                assertEquals(2L * increments, sum, "lost update between the two clusters (seed=" + seed + ")");
                assertTrue(first.totalCounters().get(Counter.HANDOVERS) + second.totalCounters().get(Counter.HANDOVERS) > 0,
                    "lines moved between the clusters");
                second.flushCaches();
                first.flushCaches();
                assertEquals(List.of(), first.busyLatchWords(10), "latch words left busy after both flushed");
            } finally {
                second.close();
                first.close();
            }
        }
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
