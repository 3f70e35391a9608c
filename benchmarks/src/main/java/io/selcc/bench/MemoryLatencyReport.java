package io.selcc.bench;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SelccCluster;
import io.selcc.engine.index.BLinkTree;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * What a memory access costs on this machine, and what a cached SELCC hit costs when its lines are
 * not in the CPU caches: TPC-C touches rows, nodes and frames at random over hundreds of MiB.
 *
 * <ol>
 *   <li>A pointer chase over a Java array, one dependent load per 64-byte line in a random cycle,
 *       for working sets from 1 to 256 MiB.</li>
 *   <li>{@code sLock}, read one word, {@code unlock} on one node, over 4,096 and 131,072 cached GCLs
 *       in a random order; the counters prove every access a hit (no round trip, no eviction).</li>
 *   <li>B-link point lookups at random over four trees of 400,000 dense keys each (loaded in a random
 *       order, as a loader's shuffled keys are), every node cached: the cost of a descent when its
 *       nodes are not in the CPU caches (the in-node search reads a few of a node's 32 lines).</li>
 * </ol>
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -XX:+UseTransparentHugePages -Xmx2g -cp
 * benchmarks/target/benchmarks.jar io.selcc.bench.MemoryLatencyReport}. One thread; figures are the
 * last of several rounds (the first ones warm up the JIT).
 */
public final class MemoryLatencyReport {
    private static final int LINE_INTS = 16;
    private static final int CHASE_LOADS = 2_000_000;
    private static final int ROUNDS = 4;
    /** Accesses per round of the hit loop at least (small sets are walked several times). */
    private static final int HIT_ACCESSES = 1 << 20;
    private static volatile long sink;

    private MemoryLatencyReport() {
    }

    public static void main(String[] args) {
        for (int mebibytes : new int[] {1, 8, 32, 256}) {
            System.out.printf(Locale.ROOT, "pointer chase %4d MiB: %6.1f ns per dependent load%n", mebibytes,
                chaseNanos(mebibytes));
        }
        for (int lines : new int[] {4_096, 131_072}) {
            System.out.printf(Locale.ROOT, "cached hit over %,7d GCLs: %6.1f ns per sLock + read + unlock%n", lines,
                randomHitNanos(lines));
        }
        System.out.printf(Locale.ROOT, "B-link lookup, 4 x 400,000 keys: %6.1f ns per random point lookup%n",
            lookupNanos(4, 400_000));
    }

    private static double lookupNanos(int trees, int keysPerTree) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(200_000)
            .memoryPerNode(512L << 20).build()) {
            ComputeNode node = cluster.node(0);
            BLinkTree[] tree = new BLinkTree[trees];
            for (int t = 0; t < trees; t++) {
                tree[t] = BLinkTree.create(node, true);
                for (int i : shuffled(keysPerTree, 7 + t)) {
                    tree[t].insert(key(i), i);
                }
            }
            SplittableRandom random = new SplittableRandom(42);
            int lookups = 2_000_000;
            double nanos = 0;
            long found = 0;
            CounterSnapshot before = node.counters().snapshot();
            for (int round = 0; round < ROUNDS; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < lookups; i++) {
                    int k = random.nextInt(keysPerTree);
                    found += tree[i % trees].lookup(key(k), -1) == k ? 1 : 0;
                }
                nanos = (System.nanoTime() - start) / (double) lookups;
            }
            CounterSnapshot used = node.counters().snapshot().minus(before);
            if (found != (long) ROUNDS * lookups || used.get(Counter.ROUND_TRIPS) != 0) {
                throw new IllegalStateException("lookups missed or went remote: found=" + found + " of "
                    + (long) ROUNDS * lookups + " roundTrips=" + used.get(Counter.ROUND_TRIPS));
            }
            return nanos;
        }
    }

    /** Dense composite-like keys: consecutive ids seven apart above a base. */
    private static long key(int i) {
        return 1_000L + 7L * i;
    }

    private static double chaseNanos(int mebibytes) {
        int lines = mebibytes * (1 << 20) / (4 * LINE_INTS);
        int[] next = new int[lines * LINE_INTS];
        int[] order = shuffled(lines, 1);
        for (int i = 0; i < lines; i++) {
            next[order[i] * LINE_INTS] = order[(i + 1) % lines] * LINE_INTS;
        }
        double nanos = 0;
        int p = 0;
        for (int round = 0; round < ROUNDS; round++) {
            long start = System.nanoTime();
            for (int i = 0; i < CHASE_LOADS; i++) {
                p = next[p];
            }
            nanos = (System.nanoTime() - start) / (double) CHASE_LOADS;
        }
        sink = p; // keeps the chase from being optimised away
        return nanos;
    }

    private static double randomHitNanos(int lines) {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(lines * 2)
            .memoryPerNode((lines + 1_024L) * 2_048).build()) {
            ComputeNode node = cluster.node(0);
            long[] gcls = new long[lines];
            for (int i = 0; i < lines; i++) {
                gcls[i] = node.allocate();
                node.unlock(node.sLock(gcls[i]));
            }
            int[] order = shuffled(lines, 42);
            double nanos = 0;
            long sum = 0;
            for (int round = 0; round < ROUNDS; round++) {
                cluster.resetCounters();
                int passes = Math.max(1, HIT_ACCESSES / lines);
                long start = System.nanoTime();
                for (int pass = 0; pass < passes; pass++) {
                    for (int i : order) {
                        GclHandle h = node.sLock(gcls[i]);
                        sum += h.getLong(0);
                        node.unlock(h);
                    }
                }
                nanos = (System.nanoTime() - start) / ((double) lines * passes);
                CounterSnapshot c = cluster.counters(0);
                if (c.get(Counter.CACHE_HITS) != (long) lines * passes || c.get(Counter.ROUND_TRIPS) != 0) {
                    throw new IllegalStateException("not all hits: hits=" + c.get(Counter.CACHE_HITS) + " roundTrips="
                        + c.get(Counter.ROUND_TRIPS) + " lines=" + lines);
                }
            }
            sink = sum; // keeps the reads from being optimised away
            return nanos;
        }
    }

    private static int[] shuffled(int n, long seed) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}
