package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * N compute nodes x T threads increment counters in K GCLs under X latches with a cache too small
 * to hold them, so evictions, handovers, downgrades and upgrades all happen; the final sums must be
 * exact. Some reads take S first and then X, to exercise upgrades. Short here, long with -Pstress.
 */
class NoLostUpdateTest {

    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void countersAreExact(AccessMode mode) throws Exception {
        run(mode, 3, 2, 24, 2_000, 16, 1L);
    }

    /**
     * The same with every invalidation and answer encoded and decoded on the way, as between processes:
     * the forwarded line and its dirty bounds must arrive in the answer. (Planted once: a codec that
     * dropped the dirty bounds lost updates here after evictions.)
     */
    @org.junit.jupiter.api.Test
    void countersAreExactWithSerializedMessages() throws Exception {
        run(AccessMode.SELCC, 3, 2, 24, 2_000, 16, 3L, true);
    }

    @Tag("stress")
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void countersAreExactUnderLongStress(AccessMode mode) throws Exception {
        run(mode, 4, 4, 64, 100_000, 24, 7L);
    }

    static void run(AccessMode mode, int nodes, int threads, int gcls, int incrementsPerThread, int cacheFrames,
                    long seed) throws Exception {
        run(mode, nodes, threads, gcls, incrementsPerThread, cacheFrames, seed, false);
    }

    static void run(AccessMode mode, int nodes, int threads, int gcls, int incrementsPerThread, int cacheFrames,
                    long seed, boolean serializeMessages) throws Exception {
        System.out.println("NoLostUpdateTest seed=" + seed + " mode=" + mode + " serialized=" + serializeMessages);
        io.selcc.fabric.LocalFabric fabric = new io.selcc.fabric.LocalFabric(1, 64L << 20, nodes,
            io.selcc.fabric.LatencyModel.OFF);
        fabric.serializeMessages(serializeMessages);
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(nodes).accessMode(mode).fabric(fabric)
            .cacheFrames(cacheFrames).freeListLowWater(4).threadsPerNode(threads).build()) {
            long[] addresses = new long[gcls];
            for (int i = 0; i < gcls; i++) {
                addresses[i] = cluster.node(i % nodes).allocate();
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> workers = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                ComputeNode node = cluster.node(n);
                for (int t = 0; t < threads; t++) {
                    SplittableRandom random = new SplittableRandom(seed * 1_000 + n * 31L + t);
                    workers.add(Thread.ofPlatform().name("inc-" + n + "-" + t).start(() -> {
                        try {
                            for (int i = 0; i < incrementsPerThread; i++) {
                                long gcl = addresses[random.nextInt(gcls)];
                                if (random.nextInt(4) == 0) {
                                    GclHandle peek = node.sLock(gcl);
                                    peek.getLong(0);
                                    node.unlock(peek);
                                }
                                if (random.nextInt(4) == 0) {
                                    // X without a write: the line must stay dirty with the range it inherited.
                                    GclHandle look = node.xLock(addresses[random.nextInt(gcls)]);
                                    look.getLong(0);
                                    node.unlock(look);
                                }
                                GclHandle h = node.xLock(gcl);
                                h.putLong(0, h.getLong(0) + 1);
                                // A second word far away widens the dirty range.
                                h.putLong(h.dataSize() - 8, h.getLong(h.dataSize() - 8) + 1);
                                node.unlock(h);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("worker failed (seed=" + seed + ")", failure.get());
            }
            long expected = (long) nodes * threads * incrementsPerThread;
            long sumFirst = 0;
            long sumLast = 0;
            ComputeNode reader = cluster.node(nodes - 1);
            for (long gcl : addresses) {
                GclHandle h = reader.sLock(gcl);
                sumFirst += h.getLong(0);
                sumLast += h.getLong(h.dataSize() - 8);
                reader.unlock(h);
            }
            assertEquals(expected, sumFirst, "lost update in word 0 (seed=" + seed + ", mode=" + mode + ")");
            assertEquals(expected, sumLast, "lost update in last word (seed=" + seed + ", mode=" + mode + ")");

            // Flushed to memory, a fresh look through another node's cold cache sees the same.
            cluster.flushCaches();
            long fromMemory = 0;
            for (long gcl : addresses) {
                GclHandle h = cluster.node(0).sLock(gcl);
                fromMemory += h.getLong(0);
                cluster.node(0).unlock(h);
            }
            assertEquals(expected, fromMemory, "memory after flush (seed=" + seed + ")");
            cluster.flushCaches();
            assertEquals(List.of(), cluster.busyLatchWords(10),
                "latch words left busy after every holder released and all caches flushed (seed=" + seed + ")");

            CounterSnapshot total = cluster.totalCounters();
            if (mode == AccessMode.SELCC) {
                assertTrue(total.get(Counter.EVICTIONS) > 0, "cache must be small enough to evict: " + total);
                for (Counter path : new Counter[] {Counter.HANDOVERS, Counter.DOWNGRADES, Counter.SHARED_RELEASES,
                    Counter.UPGRADES, Counter.FORWARDS, Counter.WRITE_BACKS}) {
                    assertTrue(total.get(path) > 0, "path not exercised: " + path + " in " + total);
                }
            }
        }
    }
}
