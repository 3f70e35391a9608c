package io.selcc.engine.index;

import io.selcc.cache.AccessMode;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Several compute nodes, each with its own {@link BLinkTree} instance opened from the root address,
 * run writers and readers at once over a small cache (frames are evicted and GCLs move between nodes
 * all the time).
 *
 * <p>Each thread owns a disjoint set of entries (unique trees: keys {@code = thread mod threads};
 * non-unique trees: shared keys, values {@code = thread mod threads}), so it knows the exact state of
 * its own entries while everybody else keeps splitting the same nodes. Checked during the run: its own
 * lookups; every scan strictly ordered and within bounds; in every scan, exactly its own entries
 * within the covered range (an entry present for the whole scan is delivered); every delivered value
 * consistent with its key. Checked afterwards: the structural checker, and the content equal to the
 * union of the threads' own entries, from every node.
 *
 * <p>The seed is printed on failure; {@code -Dbtree.seed=N} replays a thread's operation stream (the
 * interleaving is up to the scheduler).
 */
class BLinkTreeConcurrencyTest {
    private static final int NODES = 3;
    private static final int THREADS_PER_NODE = 2;
    private static final int THREADS = NODES * THREADS_PER_NODE;

    record Entry(long key, long value) implements Comparable<Entry> {
        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(key, o.key);
            return c != 0 ? c : Long.compare(value, o.value);
        }
    }

    /** Unique trees: the value is a function of the key, so any reader can check any entry it sees. */
    static long valueOf(long key) {
        return key * 31 + 7;
    }

    @ParameterizedTest
    @CsvSource({"true, SELCC", "false, SELCC", "true, SEL", "false, SEL"})
    void disjointWritersWithScansAndLookups(boolean unique, AccessMode mode) throws Exception {
        run(unique, mode, 4_000, 600, seed());
    }

    @Tag("stress")
    @ParameterizedTest
    @CsvSource({"true, SELCC", "false, SELCC", "true, SEL", "false, SEL"})
    void stress(boolean unique, AccessMode mode) throws Exception {
        long seed = seed();
        for (int round = 0; round < 10; round++) {
            run(unique, mode, 20_000, 3_000, seed + round * 1_000_003L);
        }
    }

    /** The test can fail: a reader that sees a wrong value must be reported with the seed. */
    @Test
    void reportsAWrongValue() throws Exception {
        long seed = seed();
        try (SelccCluster cluster = cluster(AccessMode.SELCC)) {
            BLinkTree tree = BLinkTree.create(cluster.node(0), true);
            tree.insert(5, 123); // not valueOf(5)
            AssertionError e = assertThrows(AssertionError.class,
                () -> checkScan(new Worker(0, tree, true, 10, new SplittableRandom(seed)), 0, 10, false, 10));
            assertTrue(e.getMessage().contains("value"), e.getMessage());
        }
    }

    private static long seed() {
        return Long.getLong("btree.seed", System.nanoTime());
    }

    /** 64 frames of 512 bytes per node: far less than the tree, so frames are evicted all the time. */
    private static SelccCluster cluster(AccessMode mode) {
        return SelccCluster.builder().computeNodes(NODES).gclSize(BLinkTreeTest.SMALL_GCL).cacheFrames(64)
            .threadsPerNode(THREADS_PER_NODE).accessMode(mode).build();
    }

    private void run(boolean unique, AccessMode mode, int opsPerThread, int domain, long seed) throws Exception {
        String context = "seed=" + seed + " unique=" + unique + " mode=" + mode + " (replay with -Dbtree.seed=" + seed + ")";
        try (SelccCluster cluster = cluster(mode)) {
            BLinkTree created = BLinkTree.create(cluster.node(0), unique);
            BLinkTree[] trees = new BLinkTree[NODES];
            for (int n = 0; n < NODES; n++) {
                trees[n] = BLinkTree.open(cluster.node(n), created.rootAddress());
            }
            Worker[] workers = new Worker[THREADS];
            for (int t = 0; t < THREADS; t++) {
                workers[t] = new Worker(t, trees[t / THREADS_PER_NODE], unique, domain, new SplittableRandom(seed + t));
            }
            CyclicBarrier start = new CyclicBarrier(THREADS);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            for (Worker w : workers) {
                threads.add(Thread.ofPlatform().daemon().name("btree-worker-" + w.id).start(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < opsPerThread; i++) {
                            w.step(i);
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                }));
            }
            for (Thread t : threads) {
                if (!t.join(Duration.ofSeconds(60))) {
                    fail("worker did not finish (deadlock?): thread=" + t.getName() + " " + context
                        + "\n" + stackOf(t));
                }
            }
            if (!failures.isEmpty()) {
                AssertionError error = new AssertionError(context + ": " + failures.size() + " worker(s) failed; first: "
                    + failures.peek(), failures.peek());
                failures.stream().skip(1).forEach(error::addSuppressed);
                throw error;
            }
            NavigableSet<Entry> expected = new TreeSet<>();
            for (Worker w : workers) {
                expected.addAll(w.own);
            }
            BLinkTreeChecker.Report report;
            try {
                report = BLinkTreeChecker.check(trees[NODES - 1]);
            } catch (IllegalStateException e) {
                throw new AssertionError(context + ": " + e.getMessage(), e);
            }
            List<Entry> content = new ArrayList<>();
            for (int i = 0; i < report.entries(); i++) {
                content.add(new Entry(report.keys()[i], report.values()[i]));
            }
            assertEquals(new ArrayList<>(expected), content, context);
            for (BLinkTree tree : trees) {
                List<Entry> scanned = new ArrayList<>();
                tree.scan(Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, (k, v) -> scanned.add(new Entry(k, v)));
                assertEquals(content, scanned, context + " node=" + tree.node().nodeId());
            }
            long evictions = 0;
            long optimisticReads = 0;
            for (int n = 0; n < NODES; n++) {
                evictions += cluster.counters(n).get(Counter.EVICTIONS);
                optimisticReads += cluster.counters(n).get(Counter.OPTIMISTIC_READS);
            }
            if (mode == AccessMode.SELCC) {
                assertTrue(evictions > 0, "the cache was meant to be too small to hold the tree: " + context);
                // The descents read inner nodes without latches while writers split them.
                assertTrue(optimisticReads > 0, "no optimistic inner-node read: " + context);
            }
        }
    }

    private static String stackOf(Thread t) {
        StringBuilder sb = new StringBuilder();
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("    at ").append(e).append('\n');
        }
        return sb.toString();
    }

    /** One thread's operation stream and the exact state of the entries it owns. */
    static final class Worker {
        final int id;
        final BLinkTree tree;
        final boolean unique;
        final int domain;
        final SplittableRandom random;
        final NavigableSet<Entry> own = new TreeSet<>();

        Worker(int id, BLinkTree tree, boolean unique, int domain, SplittableRandom random) {
            this.id = id;
            this.tree = tree;
            this.unique = unique;
            this.domain = domain;
            this.random = random;
        }

        /** An entry of this thread: unique trees own keys, non-unique trees own values under shared keys. */
        Entry candidate() {
            if (unique) {
                long key = (random.nextInt(domain) - domain / 2L) * THREADS + id; // negative keys too
                return new Entry(key, valueOf(key));
            }
            long key = random.nextInt(domain / 8) - domain / 16; // few keys: long runs of one key across leaves
            return new Entry(key, (long) random.nextInt(domain) * THREADS + id);
        }

        boolean owns(Entry e) {
            return Math.floorMod(unique ? e.key() : e.value(), THREADS) == id;
        }

        void step(int i) {
            int dice = random.nextInt(100);
            Entry e = candidate();
            String where = "thread=" + id + " op=" + i + " entry=" + e;
            if (dice < 50) {
                boolean present = own.contains(e);
                InsertOutcome outcome = tree.insert(e.key(), e.value());
                InsertOutcome expected = !present ? InsertOutcome.INSERTED
                    : unique ? InsertOutcome.DUPLICATE_KEY : InsertOutcome.DUPLICATE_ENTRY;
                assertEquals(expected, outcome, where);
                own.add(e);
            } else if (dice < 75) {
                boolean removed = unique ? tree.delete(e.key()) : tree.delete(e.key(), e.value());
                assertEquals(own.remove(e), removed, where);
            } else if (dice < 87) {
                if (unique) {
                    OptionalLong found = tree.lookup(e.key());
                    assertEquals(own.contains(e) ? OptionalLong.of(e.value()) : OptionalLong.empty(), found, where);
                } else {
                    List<Long> mine = new ArrayList<>();
                    for (long v : tree.lookupAll(e.key())) {
                        if (owns(new Entry(e.key(), v))) {
                            mine.add(v);
                        }
                    }
                    List<Long> expected = own.subSet(new Entry(e.key(), Long.MIN_VALUE), true,
                        new Entry(e.key(), Long.MAX_VALUE), true).stream().map(Entry::value).toList();
                    assertEquals(expected, mine, where);
                }
            } else {
                long a = candidate().key();
                long b = a + random.nextInt(unique ? domain * 2 : 8);
                int limit = random.nextInt(4) == 0 ? Integer.MAX_VALUE : random.nextInt(1, 60);
                checkScan(this, a, b, random.nextBoolean(), limit);
            }
        }
    }

    /**
     * Scans [low, high] and checks order, bounds, limit, values, and that the worker's own entries in
     * the covered part of the range (all of it, or up to the last entry when the limit cut it) are
     * exactly the ones delivered.
     */
    static void checkScan(Worker w, long low, long high, boolean backward, int limit) {
        List<Entry> seen = new ArrayList<>();
        EntryVisitor visitor = (k, v) -> seen.add(new Entry(k, v));
        int n = backward ? w.tree.scanBackward(low, high, limit, visitor) : w.tree.scan(low, high, limit, visitor);
        String where = "thread=" + w.id + " scan" + (backward ? "Backward" : "") + "[" + low + "," + high + "] limit="
            + limit + " got=" + seen.size();
        assertEquals(seen.size(), n, where);
        assertTrue(n <= limit, where);
        for (int i = 0; i < seen.size(); i++) {
            Entry e = seen.get(i);
            assertTrue(e.key() >= low && e.key() <= high, where + " out of bounds: " + e);
            if (i > 0) {
                int c = seen.get(i - 1).compareTo(e);
                assertTrue(backward ? c > 0 : c < 0, where + " out of order: " + seen.get(i - 1) + " then " + e);
            }
            if (w.unique) {
                assertEquals(valueOf(e.key()), e.value(), where + " wrong value for key " + e.key());
            }
        }
        Entry lowest = new Entry(low, Long.MIN_VALUE);
        Entry highest = new Entry(high, Long.MAX_VALUE);
        if (n == limit && n > 0) { // the limit cut the range: only the part up to the last entry is covered
            if (backward) {
                lowest = seen.getLast();
            } else {
                highest = seen.getLast();
            }
        }
        List<Entry> expectedOwn = new ArrayList<>(w.own.subSet(lowest, true, highest, true));
        if (backward) {
            expectedOwn = expectedOwn.reversed();
        }
        List<Entry> deliveredOwn = seen.stream().filter(w::owns).toList();
        assertEquals(expectedOwn, deliveredOwn, where + " own entries");
    }
}
