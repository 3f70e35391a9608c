package io.selcc.cache;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Sequential consistency across compute nodes (paper 6.2): litmus tests never show a forbidden
 * outcome, and random programs' histories always have an acyclic po + rf + co + fr graph.
 */
class SequentialConsistencyTest {

    /** Message passing: if the reader sees flag = i it must see data >= i. */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void messagePassing(AccessMode mode) throws Exception {
        int rounds = 5_000;
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(mode).cacheFrames(8).build()) {
            ComputeNode writer = cluster.node(0);
            ComputeNode reader = cluster.node(1);
            long data = writer.allocate();
            long flag = writer.allocate();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long[] lastSeen = new long[1];
            Thread w = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 1; i <= rounds; i++) {
                        write(writer, data, i);
                        write(writer, flag, i);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            Thread r = Thread.ofPlatform().start(() -> {
                try {
                    long seen = 0;
                    // Reads until it has seen the last write; the guard bounds it if the writer died.
                    for (int guard = 0; seen < rounds && guard < 50_000_000 && failure.get() == null; guard++) {
                        long f = read(reader, flag);
                        long d = read(reader, data);
                        if (d < f) {
                            failure.compareAndSet(null, new AssertionError("forbidden MP outcome: flag=" + f + " data=" + d));
                            return;
                        }
                        seen = f;
                    }
                    lastSeen[0] = seen;
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            w.join();
            r.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            // A reader that never saw the writes would pass the check above vacuously.
            assertEquals(rounds, lastSeen[0], "the reader never saw the last write");
        }
    }

    /** Store buffering: in each round at least one of the two nodes sees the other's write. */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void storeBuffering(AccessMode mode) throws Exception {
        int rounds = 2_000;
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(mode).cacheFrames(8).build()) {
            ComputeNode a = cluster.node(0);
            ComputeNode b = cluster.node(1);
            long x = a.allocate();
            long y = b.allocate();
            long[] seenByA = new long[rounds + 1];
            long[] seenByB = new long[rounds + 1];
            CyclicBarrier barrier = new CyclicBarrier(2);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread ta = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 1; i <= rounds; i++) {
                        await(barrier);
                        write(a, x, i);
                        seenByA[i] = read(a, y);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    barrier.reset(); // the other thread stops waiting for this one
                }
            });
            Thread tb = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 1; i <= rounds; i++) {
                        await(barrier);
                        write(b, y, i);
                        seenByB[i] = read(b, x);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    barrier.reset(); // the other thread stops waiting for this one
                }
            });
            ta.join();
            tb.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            for (int i = 1; i <= rounds; i++) {
                assertTrue(seenByA[i] >= i || seenByB[i] >= i,
                    "forbidden SB outcome in round " + i + ": A saw y=" + seenByA[i] + " B saw x=" + seenByB[i]);
            }
        }
    }

    // ------------------------------------------------------------ random programs

    record Op(boolean write, int gcl) {
    }

    record Program(int nodes, int threadsPerNode, int gcls, List<List<Op>> threads, AccessMode mode) {
    }

    @Provide
    Arbitrary<Program> programs() {
        Arbitrary<Integer> nodes = Arbitraries.integers().between(2, 3);
        Arbitrary<Integer> threadsPerNode = Arbitraries.integers().between(1, 2);
        Arbitrary<Integer> gcls = Arbitraries.integers().between(1, 3);
        Arbitrary<AccessMode> mode = Arbitraries.of(AccessMode.class);
        return Combinators.combine(nodes, threadsPerNode, gcls, mode).flatAs((n, t, g, m) -> {
            Arbitrary<Op> op = Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, g - 1))
                .as(Op::new);
            return op.list().ofMinSize(1).ofMaxSize(40).list().ofSize(n * t)
                .map(threads -> new Program(n, t, g, threads, m));
        });
    }

    /**
     * Each GCL holds a version that every write increments under X; reads record the version seen.
     * Versions give the coherence order (co), reads-from (rf) and from-reads (fr); with program order
     * (po) the graph must be acyclic for the history to be sequentially consistent.
     */
    @Property(tries = 60)
    void randomProgramsAreSequentiallyConsistent(@ForAll("programs") Program program) throws Exception {
        int threadCount = program.threads().size();
        long[][] observed = new long[threadCount][];
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(program.nodes()).accessMode(program.mode())
            .cacheFrames(4).freeListLowWater(1).build()) {
            long[] addresses = new long[program.gcls()];
            for (int g = 0; g < addresses.length; g++) {
                addresses[g] = cluster.node(g % program.nodes()).allocate();
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threadCount; t++) {
                ComputeNode node = cluster.node(t / program.threadsPerNode());
                List<Op> ops = program.threads().get(t);
                long[] seen = observed[t] = new long[ops.size()];
                workers.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < ops.size(); i++) {
                            Op op = ops.get(i);
                            long gcl = addresses[op.gcl()];
                            if (op.write()) {
                                GclHandle h = node.xLock(gcl);
                                long version = h.getLong(0) + 1;
                                h.putLong(0, version);
                                seen[i] = version;
                                node.unlock(h);
                            } else {
                                seen[i] = read(node, gcl);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            start.countDown();
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
        }
        checkAcyclic(program, observed);
    }

    static void checkAcyclic(Program program, long[][] observed) {
        // Number the ops; find each (gcl, version) write.
        List<int[]> ids = new ArrayList<>(); // id -> {thread, index}
        Map<Long, Integer> writeOf = new HashMap<>();
        int[][] idOf = new int[observed.length][];
        for (int t = 0; t < observed.length; t++) {
            idOf[t] = new int[observed[t].length];
            for (int i = 0; i < observed[t].length; i++) {
                idOf[t][i] = ids.size();
                ids.add(new int[] {t, i});
                Op op = program.threads().get(t).get(i);
                if (op.write() && writeOf.put(key(op.gcl(), observed[t][i]), idOf[t][i]) != null) {
                    fail("two writes produced version " + observed[t][i] + " of GCL " + op.gcl() + ": lost update");
                }
            }
        }
        int n = ids.size();
        List<List<Integer>> edges = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            edges.add(new ArrayList<>());
        }
        for (int t = 0; t < observed.length; t++) {
            for (int i = 0; i < observed[t].length; i++) {
                int id = idOf[t][i];
                Op op = program.threads().get(t).get(i);
                long version = observed[t][i];
                if (i > 0) {
                    edges.get(idOf[t][i - 1]).add(id); // po
                }
                Integer next = writeOf.get(key(op.gcl(), version + 1));
                if (op.write()) {
                    if (version > 1) {
                        Integer previous = writeOf.get(key(op.gcl(), version - 1));
                        assertTrue(previous != null, "version gap before " + version + " of GCL " + op.gcl());
                        edges.get(previous).add(id); // co
                    }
                } else {
                    if (version > 0) {
                        Integer source = writeOf.get(key(op.gcl(), version));
                        assertTrue(source != null, "read a version nobody wrote: " + version);
                        edges.get(source).add(id); // rf
                    }
                    if (next != null) {
                        edges.get(id).add(next); // fr
                    }
                }
            }
        }
        assertTrue(io.selcc.testkit.Graphs.isAcyclic(edges), "history is not sequentially consistent (cycle in po+rf+co+fr)");
    }

    @org.junit.jupiter.api.Test
    void checkerRejectsTheForbiddenStoreBufferingHistory() {
        // T0: W x; R y -> 0.  T1: W y; R x -> 0.  po + fr form a cycle.
        Program sb = new Program(2, 1, 2, List.of(
            List.of(new Op(true, 0), new Op(false, 1)),
            List.of(new Op(true, 1), new Op(false, 0))), AccessMode.SELCC);
        AssertionError error = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
            () -> checkAcyclic(sb, new long[][] {{1, 0}, {1, 0}}));
        assertTrue(error.getMessage().contains("not sequentially consistent"), error.getMessage());
        checkAcyclic(sb, new long[][] {{1, 1}, {1, 0}}); // allowed: T1 ran after T0
    }

    @org.junit.jupiter.api.Test
    void checkerRejectsALostUpdate() {
        Program lost = new Program(2, 1, 1, List.of(List.of(new Op(true, 0)), List.of(new Op(true, 0))), AccessMode.SELCC);
        AssertionError error = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
            () -> checkAcyclic(lost, new long[][] {{1}, {1}}));
        assertTrue(error.getMessage().contains("lost update"), error.getMessage());
    }

    private static long key(int gcl, long version) {
        return ((long) gcl << 40) | version;
    }

    static void write(ComputeNode node, long gcl, long value) {
        GclHandle h = node.xLock(gcl);
        h.putLong(0, value);
        node.unlock(h);
    }

    static long read(ComputeNode node, long gcl) {
        GclHandle h = node.sLock(gcl);
        long value = h.getLong(0);
        node.unlock(h);
        return value;
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
