package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.Counter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BLinkTree#insertSorted}, the bulk loader's path: against a model, into a tree that already has
 * entries; one latch per leaf; full leaves from an ascending run; duplicates and bad order.
 *
 * <p>Planted bug this was shown to catch: without the check that the next entry is still below the leaf's
 * high fence, entries land in a leaf whose range does not hold them and the checker fails
 * ({@code sortedBatchesMatchAModel}).
 */
class BLinkTreeSortedInsertTest {
    private SelccCluster cluster;
    private ComputeNode node;

    @BeforeEach
    void setUp() {
        cluster = SelccCluster.builder().computeNodes(2).gclSize(BLinkTreeTest.SMALL_GCL).cacheFrames(256).build();
        node = cluster.node(0);
    }

    @AfterEach
    void tearDown() {
        cluster.close();
    }

    /** Random sorted batches into a tree that single inserts already filled; the tree must equal the model. */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void sortedBatchesMatchAModel(boolean unique) {
        long seed = System.nanoTime();
        System.out.println("sortedBatchesMatchAModel unique=" + unique + " seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        BLinkTree tree = BLinkTree.create(node, unique);
        TreeSet<Pair> model = new TreeSet<>();
        for (int i = 0; i < 2_000; i++) {
            long k = random.nextLong(20_000);
            long v = unique ? k * 3 : random.nextLong(4);
            if (tree.insert(k, v) == InsertOutcome.INSERTED) {
                assertTrue(model.add(new Pair(k, v, unique)));
            }
        }
        for (int batch = 0; batch < 40; batch++) {
            TreeSet<Pair> fresh = new TreeSet<>();
            int size = 1 + random.nextInt(300);
            while (fresh.size() < size) {
                long k = random.nextLong(20_000);
                Pair p = new Pair(k, unique ? k * 3 : random.nextLong(4), unique);
                if (!model.contains(p)) {
                    fresh.add(p);
                }
            }
            long[] keys = fresh.stream().mapToLong(Pair::key).toArray();
            long[] values = fresh.stream().mapToLong(Pair::value).toArray();
            assertEquals(keys.length, tree.insertSorted(keys, values, 0, keys.length), "batch " + batch);
            model.addAll(fresh);
        }
        BLinkTreeChecker.Report report = BLinkTreeChecker.check(tree);
        assertTrue(report.height() >= 3, "height=" + report.height());
        assertArrayEquals(model.stream().mapToLong(Pair::key).toArray(), report.keys());
        assertArrayEquals(model.stream().mapToLong(Pair::value).toArray(), report.values());
    }

    /**
     * An ascending run: a few node accesses per leaf, not one or more per entry, and full leaves. Shown
     * to fail with every entry taking a latch of its own (24,856 accesses for 770 leaves).
     */
    @Test
    void anAscendingRunLatchesEachLeafOnceAndFillsIt() {
        BLinkTree tree = BLinkTree.create(node, true);
        int entries = 20_000;
        long[] keys = new long[entries];
        long[] values = new long[entries];
        for (int i = 0; i < entries; i++) {
            keys[i] = 10L * i;
            values[i] = i;
        }
        long before = accesses();
        for (int from = 0; from < entries; from += 1_000) {
            assertEquals(from + 1_000, tree.insertSorted(keys, values, from, from + 1_000));
        }
        long accesses = accesses() - before;
        BLinkTreeChecker.Report report = BLinkTreeChecker.check(tree);
        int leaves = report.nodesPerLevel()[0];
        System.out.println("ascending run: " + entries + " entries, " + leaves + " leaves, " + accesses
            + " node accesses");
        assertEquals(entries, report.entries());
        assertTrue(report.height() >= 3, "height=" + report.height());
        assertTrue(entries >= (long) (leaves - 1) * tree.leafCapacity(), "leaves not full: " + leaves + " leaves");
        // Per leaf a handful (its latch, the split's allocation and new sibling, the parent's descent and
        // post, the move right to the sibling); entry by entry, an insert takes at least one each.
        assertTrue(accesses < 8L * leaves, "node accesses " + accesses + " for " + leaves + " leaves");
        assertTrue(accesses < entries / 3, "node accesses " + accesses + " for " + entries + " entries");
    }

    /**
     * Loaders on three nodes put interleaved sorted batches into the same leaves at once (keys = thread
     * mod threads), over a small cache, as the TPC-C loader's threads do in neighbouring ranges: every
     * entry goes in once, the tree stays valid, and every node sees all of it. Also fails with the
     * high-fence check planted out (an entry lands in a leaf another loader's split narrowed).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void loadersOnSeveralNodesShareLeaves() throws Exception {
        long seed = System.nanoTime();
        System.out.println("loadersOnSeveralNodesShareLeaves seed=" + seed);
        int nodes = 3;
        int perThread = 6_000;
        try (SelccCluster shared = SelccCluster.builder().computeNodes(nodes).gclSize(BLinkTreeTest.SMALL_GCL)
                .cacheFrames(64).build()) {
            BLinkTree created = BLinkTree.create(shared.node(0), false);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> loaders = new ArrayList<>();
            for (int t = 0; t < nodes; t++) {
                BLinkTree tree = BLinkTree.open(shared.node(t), created.rootAddress());
                int thread = t;
                SplittableRandom random = new SplittableRandom(seed + t);
                loaders.add(Thread.ofPlatform().name("sorted-loader-" + t).start(() -> {
                    try {
                        int next = 0;
                        while (next < perThread) {
                            int size = Math.min(perThread - next, 1 + random.nextInt(400));
                            long[] keys = new long[size];
                            long[] values = new long[size];
                            for (int i = 0; i < size; i++) {
                                keys[i] = (long) (next + i) * nodes + thread;
                                values[i] = thread;
                            }
                            assertEquals(size, tree.insertSorted(keys, values, 0, size));
                            next += size;
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread loader : loaders) {
                loader.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("a loader failed, seed=" + seed, failure.get());
            }
            for (int t = 0; t < nodes; t++) {
                BLinkTreeChecker.Report report = BLinkTreeChecker.check(BLinkTree.open(shared.node(t), created.rootAddress()));
                assertEquals((long) nodes * perThread, report.entries(), "node " + t + ", seed=" + seed);
                long[] keys = report.keys();
                for (int i = 0; i < keys.length; i++) {
                    assertEquals(i, keys[i], "node " + t + " index " + i + ", seed=" + seed);
                    assertEquals(keys[i] % nodes, report.values()[i]);
                }
            }
            assertTrue(shared.counters(0).get(Counter.MESSAGES_SENT) + shared.counters(1).get(Counter.MESSAGES_SENT) > 0,
                "the loaders' nodes invalidated each other's leaves");
        }
    }

    @Test
    void stopsAtTheFirstDuplicate() {
        BLinkTree tree = BLinkTree.create(node, true);
        assertEquals(InsertOutcome.INSERTED, tree.insert(50, 1));
        long[] keys = {10, 20, 50, 60};
        long[] values = {1, 2, 3, 4};
        assertEquals(2, tree.insertSorted(keys, values, 0, keys.length));
        assertEquals(2, tree.lookup(20).orElseThrow());
        assertEquals(1, tree.lookup(50).orElseThrow(), "the tree's entry stays");
        assertTrue(tree.lookup(60).isEmpty(), "nothing after the duplicate");

        long[] again = {70, 80, 80, 90};
        assertEquals(2, tree.insertSorted(again, values, 0, again.length), "a duplicate within the array");
        assertEquals(2, tree.lookup(80).orElseThrow());
        assertTrue(tree.lookup(90).isEmpty());
    }

    @Test
    void refusesEntriesOutOfOrderBeforeInsertingAny() {
        BLinkTree tree = BLinkTree.create(node, false);
        long[] keys = {1, 2, 2, 1};
        long[] values = {0, 5, 6, 9};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> tree.insertSorted(keys, values, 0, keys.length));
        assertTrue(e.getMessage().contains("index 3"), e.getMessage());
        assertEquals(0, BLinkTreeChecker.check(tree).entries());
        assertEquals(3, tree.insertSorted(keys, values, 0, 3), "by (key, value), a non-unique tree's order");
        assertThrows(IndexOutOfBoundsException.class, () -> tree.insertSorted(keys, values, 2, 5));
    }

    /**
     * {@link BLinkTree#insertRun}, a commit's path: a run across several leaves (with splits) asks the guard
     * once per leaf it changes, changes each leaf's version once (one {@code afterChange} per
     * {@code beforeChange}), and reports every entry in order.
     */
    @Test
    void aGuardedRunAsksOncePerLeafAndReportsEveryEntry() {
        BLinkTree tree = BLinkTree.create(node, true);
        for (long k = 0; k < 2_000; k += 10) {
            assertEquals(InsertOutcome.INSERTED, tree.insert(k, k));
        }
        long[] keys = new long[600];
        long[] values = new long[600];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = 10L * (i / 3) + 1 + i % 3; // three new keys after each present one: every leaf, and splits
            values[i] = -keys[i];
        }
        CountingGuard guard = new CountingGuard(Integer.MAX_VALUE);
        List<Long> reported = new ArrayList<>();
        assertEquals(InsertOutcome.INSERTED,
            tree.insertRun(keys, values, 0, keys.length, guard, (k, v) -> reported.add(k)));
        assertEquals(keys.length, reported.size());
        for (int i = 0; i < keys.length; i++) {
            assertEquals(keys[i], reported.get(i));
            assertEquals(values[i], tree.lookup(keys[i]).orElseThrow());
        }
        assertEquals(200 + keys.length, BLinkTreeChecker.check(tree).entries());
        assertTrue(guard.beforeChange > 3, "the run crossed leaves: " + guard.beforeChange);
        assertTrue(guard.beforeChange * 4 < keys.length, "one check per leaf, not per entry: " + guard.beforeChange);
        assertTrue(guard.splits > 0, "leaves split during the run");
        assertEquals(0, guard.badVersionSteps, "each afterChange saw one version step");
        assertTrue(guard.afterChange <= guard.beforeChange);
    }

    /**
     * A guard that refuses the third leaf stops the run there: the entries reported went in (they are
     * the caller's to take back), none after them did. Planted bug this caught: asking the guard only
     * before the run's first leaf (every entry went in and the outcome was INSERTED).
     */
    @Test
    void aRefusedLeafStopsTheRunWithEveryEntryBeforeItReported() {
        BLinkTree tree = BLinkTree.create(node, true);
        for (long k = 0; k < 2_000; k += 10) {
            assertEquals(InsertOutcome.INSERTED, tree.insert(k, k));
        }
        long[] keys = new long[200];
        long[] values = new long[200];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = 10L * i + 5;
            values[i] = i;
        }
        CountingGuard guard = new CountingGuard(2);
        List<Long> reported = new ArrayList<>();
        assertEquals(InsertOutcome.REFUSED,
            tree.insertRun(keys, values, 0, keys.length, guard, (k, v) -> reported.add(k)));
        assertEquals(3, guard.beforeChange, "asked for the first three leaves");
        assertTrue(!reported.isEmpty() && reported.size() < keys.length, "stopped part way: " + reported.size());
        for (int i = 0; i < keys.length; i++) {
            assertEquals(i < reported.size(), tree.lookup(keys[i]).isPresent(), "key " + keys[i]);
        }
    }

    /** A key already present stops a guarded run: the tree's entry stays, the ones before it went in. */
    @Test
    void aDuplicateStopsAGuardedRun() {
        BLinkTree tree = BLinkTree.create(node, true);
        assertEquals(InsertOutcome.INSERTED, tree.insert(50, 1));
        long[] keys = {10, 20, 50, 60};
        long[] values = {1, 2, 3, 4};
        List<Long> reported = new ArrayList<>();
        assertEquals(InsertOutcome.DUPLICATE_KEY,
            tree.insertRun(keys, values, 0, keys.length, LeafGuard.NONE, (k, v) -> reported.add(k)));
        assertEquals(List.of(10L, 20L), reported);
        assertEquals(1, tree.lookup(50).orElseThrow());
        assertTrue(tree.lookup(60).isEmpty());
        assertThrows(IllegalArgumentException.class,
            () -> tree.insertRun(new long[] {2, 1}, new long[] {0, 0}, 0, 2, LeafGuard.NONE, (k, v) -> { }));
    }

    /**
     * {@link BLinkTree#lookupRunToInsert}: the same values as lookups one by one, over a run that spans
     * several leaves, up to and including the first key present (inserts one by one stop there), with one
     * latch per leaf and one predicate read per leaf that misses a key (none where the first key is
     * present); a guard's refusal stops it. Shown failing with the loop not stopping at the leaf's high
     * fence (a key looked up in a leaf that does not hold it reads as absent), with the predicate read
     * left out, and with the run going on past a present key.
     */
    @Test
    void aRunOfLookupsToInsertIsTheLookupsOneByOneWithOneLatchAndOneReadPerLeaf() {
        BLinkTree tree = BLinkTree.create(node, true);
        for (long k = 0; k <= 4_000; k += 2) {
            tree.insert(k, k * 10); // even keys present; a leaf's high fence is one of them
        }
        long[] keys = new long[402];
        for (int i = 0; i < 400; i++) {
            keys[i] = 1_001 + 2 * i; // odd: absent, 1,001 to 1,799
        }
        keys[400] = 1_800; // present, in 1,799's leaf: the run stops here
        keys[401] = 1_801;
        long[] values = new long[keys.length];
        values[401] = 12_345;
        LeafCountingGuard guard = new LeafCountingGuard(Integer.MAX_VALUE);
        assertEquals(401, tree.lookupRunToInsert(keys, 0, keys.length, values, -1, guard), "up to the present key");
        for (int i = 0; i <= 400; i++) {
            assertEquals(tree.lookup(keys[i], -1), values[i], "key " + keys[i]);
        }
        assertEquals(18_000, values[400]);
        assertEquals(12_345, values[401], "no key after the present one looked up");
        assertTrue(guard.leavesLatched.size() > 2, "the run spans several leaves: " + guard.leavesLatched.size());
        assertEquals(guard.leavesLatched.size(), guard.leafLatches, "each leaf latched once");
        assertEquals(guard.leafLatches, guard.reads, "one predicate read per leaf, each missing a key");

        long[] present = {1_000, 1_001, 3_999};
        long[] found = new long[present.length];
        LeafCountingGuard firstPresent = new LeafCountingGuard(Integer.MAX_VALUE);
        assertEquals(1, tree.lookupRunToInsert(present, 0, present.length, found, -1, firstPresent));
        assertEquals(10_000, found[0]);
        assertEquals(1, firstPresent.leafLatches);
        assertEquals(0, firstPresent.reads, "nothing missing before the present key: no predicate read");

        LeafCountingGuard refusing = new LeafCountingGuard(1);
        assertEquals(-1, tree.lookupRunToInsert(keys, 0, keys.length, values, -1, refusing), "refused");
        assertEquals(2, refusing.leafLatches, "stopped at the refused leaf");

        assertThrows(IllegalArgumentException.class,
            () -> tree.lookupRunToInsert(new long[] {5, 5}, 0, 2, new long[2], -1, LeafGuard.NONE));
        assertThrows(IllegalStateException.class, () -> BLinkTree.create(node, false)
            .lookupRunToInsert(new long[] {1}, 0, 1, new long[1], -1, LeafGuard.NONE));
    }

    /** Plain latches; counts leaf latches (by leaf) and predicate reads; refuses latches after {@code allowed}. */
    private static final class LeafCountingGuard implements LeafGuard {
        private final int allowed;
        final java.util.Set<Long> leavesLatched = new java.util.HashSet<>();
        int leafLatches;
        int reads;
        private final LeafView view = new LeafView();

        LeafCountingGuard(int allowed) {
            this.allowed = allowed;
        }

        @Override
        public GclHandle latch(ComputeNode on, long address, boolean exclusive, boolean mayRefuse) {
            GclHandle h = LeafGuard.NONE.latch(on, address, exclusive, mayRefuse);
            if (view.wrap(h).isLeaf()) {
                leafLatches++;
                leavesLatched.add(address);
                if (leafLatches > allowed) {
                    LeafGuard.NONE.unlatch(on, h);
                    return null;
                }
            }
            return h;
        }

        @Override
        public void unlatch(ComputeNode on, GclHandle handle) {
            LeafGuard.NONE.unlatch(on, handle);
        }

        @Override
        public boolean onRead(LeafView leaf) {
            reads++;
            return true;
        }
    }

    /** Plain latches; counts the checks and changes, refuses the leaf after {@code allowed} of them. */
    private static final class CountingGuard implements LeafGuard {
        private final int allowed;
        int beforeChange;
        int afterChange;
        int splits;
        int badVersionSteps;
        private long versionAtCheck;

        CountingGuard(int allowed) {
            this.allowed = allowed;
        }

        @Override
        public GclHandle latch(ComputeNode on, long address, boolean exclusive, boolean mayRefuse) {
            return LeafGuard.NONE.latch(on, address, exclusive, mayRefuse);
        }

        @Override
        public void unlatch(ComputeNode on, GclHandle handle) {
            LeafGuard.NONE.unlatch(on, handle);
        }

        @Override
        public boolean beforeChange(LeafView leaf) {
            versionAtCheck = leaf.version();
            return beforeChange++ < allowed;
        }

        @Override
        public void afterChange(LeafView leaf, long versionBefore) {
            afterChange++;
            if (versionBefore != versionAtCheck || leaf.version() != versionBefore + 1) {
                badVersionSteps++;
            }
        }

        @Override
        public void afterSplit(LeafView split, long versionBefore, LeafView newLeaf) {
            splits++;
        }
    }

    private long accesses() {
        return cluster.counters(0).get(Counter.CACHE_HITS) + cluster.counters(0).get(Counter.CACHE_MISSES)
            + cluster.counters(0).get(Counter.OPTIMISTIC_READS);
    }

    /** An entry in the tree's order: by key in a unique tree, by (key, value) otherwise. */
    private record Pair(long key, long value, boolean unique) implements Comparable<Pair> {
        @Override
        public int compareTo(Pair o) {
            return BLinkNode.compare(unique, key, value, o.key, o.value);
        }
    }

    /**
     * A bulk load's {@link BLinkTree#loadSorted} leaves its splits in the cache (issue 27): an ascending
     * run costs the allocations' round trips and no write-through per split. Once the cache is written
     * back, memory holds the whole tree: its leaves, read from memory without the cache, hold every entry,
     * and another node reads them all. Measured: 770 leaves, 2,546 round trips through insertSorted,
     * 941 through loadSorted. (Planted once: loadSorted not setting its context's flag writes every split
     * through, 2,544 round trips, and fails the comparison.)
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLoadWritesItsSplitsBackWithTheCache() {
        int entries = 20_000;
        long[] keys = new long[entries];
        long[] values = new long[entries];
        for (int i = 0; i < entries; i++) {
            keys[i] = 10L * i;
            values[i] = i;
        }
        long[] roundTrips = new long[2];
        BLinkTree loaded = null;
        for (int way = 0; way < 2; way++) {
            BLinkTree tree = BLinkTree.create(node, true);
            long before = node.counters().threadSnapshot().get(Counter.ROUND_TRIPS);
            for (int from = 0; from < entries; from += 1_000) {
                assertEquals(from + 1_000, way == 0 ? tree.insertSorted(keys, values, from, from + 1_000)
                    : tree.loadSorted(keys, values, from, from + 1_000));
            }
            roundTrips[way] = node.counters().threadSnapshot().get(Counter.ROUND_TRIPS) - before;
            loaded = tree;
        }
        int leaves = BLinkTreeChecker.check(loaded).nodesPerLevel()[0];
        System.out.println("ascending run of " + entries + ": " + leaves + " leaves, round trips insertSorted "
            + roundTrips[0] + ", loadSorted " + roundTrips[1]);
        assertTrue(roundTrips[1] * 2 < roundTrips[0], "loadSorted " + roundTrips[1] + " vs insertSorted " + roundTrips[0]);

        cluster.flushCaches();
        long[] inMemory = new long[1];
        BLinkTree tree = loaded;
        BLinkTreeRepair.forEachLeafInMemory(tree, cluster.node(1), leaf -> {
            BLinkNode n = new BLinkNode(true);
            n.wrap(cluster.node(1).snapshot(leaf));
            inMemory[0] += n.count();
        });
        assertEquals(entries, inMemory[0], "entries in the leaves memory holds");
        BLinkTree other = BLinkTree.open(cluster.node(1), tree.rootAddress());
        assertEquals(entries, BLinkTreeChecker.check(other).entries());
    }
}
