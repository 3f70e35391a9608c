package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One writer node against reader nodes on one hot GCL (paper 5.3). Each run performs a fixed number of
 * operations over all nodes; with the fairness mechanisms on, every node must get a real share of them.
 *
 * <p>Measured on 2 cores (2026-11-23, 3M operations per run, 2 reader nodes, 2 threads per node): with
 * the mechanisms on the writer node's share was 0.6%-16% (median about 9%) over 18 runs at leases 8, 32
 * and 256 (later runs at the default lease: 0.163%-42%); with them off it was 0.0003%-8% (median
 * about 1%). The off runs overlap the on runs too much
 * for a per-run negative control, so the deterministic one is TryPathLeaseTest's (a stream of
 * overlapping readers starves the remote writer exactly when the mechanisms are off).
 */
class FairnessTest {
    static final long CAP = 3_000_000;
    /**
     * The share every node must get: 0.05% (1,500 of 3M operations), a third of the smallest share
     * measured with the mechanisms on (0.163%, in a full test run; 0.2% was the bound until then).
     * A starved node gets a few operations (0.0003% = 9 measured with the mechanisms off).
     */
    static final double MIN_SHARE = 0.0005;

    /** Operations per node (index 0 is the writer node) after all nodes together did {@code cap}. */
    static long[] run(boolean fairness, int readerNodes, int threadsPerNode, long cap, CounterSnapshot[] countersOut)
        throws Exception {
        int nodes = 1 + readerNodes;
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(nodes).fairness(fairness)
            .threadsPerNode(threadsPerNode).cacheFrames(16).build()) {
            long hot = cluster.node(0).allocate();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong total = new AtomicLong();
            AtomicLong[] perNode = new AtomicLong[nodes];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                perNode[n] = new AtomicLong();
            }
            for (int n = 0; n < nodes; n++) {
                ComputeNode node = cluster.node(n);
                AtomicLong mine = perNode[n];
                boolean writer = n == 0;
                for (int t = 0; t < threadsPerNode; t++) {
                    threads.add(Thread.ofPlatform().name((writer ? "writer-" : "reader-") + n + "-" + t).start(() -> {
                        try {
                            long last = 0;
                            while (!stop.get()) {
                                if (writer) {
                                    GclHandle h = node.xLock(hot);
                                    h.putLong(0, h.getLong(0) + 1);
                                    node.unlock(h);
                                } else {
                                    long value = SequentialConsistencyTest.read(node, hot);
                                    if (value < last) {
                                        throw new AssertionError("counter went backwards: " + last + " -> " + value);
                                    }
                                    last = value;
                                }
                                mine.incrementAndGet();
                                if (total.incrementAndGet() >= cap) {
                                    stop.set(true);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                            stop.set(true);
                        }
                    }));
                }
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            long[] ops = new long[nodes];
            for (int n = 0; n < nodes; n++) {
                ops[n] = perNode[n].get();
            }
            assertEquals(ops[0], SequentialConsistencyTest.read(cluster.node(1), hot), "no lost write");
            countersOut[0] = cluster.totalCounters();
            return ops;
        }
    }

    static void assertEveryNodeGetsItsShare(long[] ops, double minShare) {
        long sum = Arrays.stream(ops).sum();
        for (int n = 0; n < ops.length; n++) {
            assertTrue((double) ops[n] / sum >= minShare, "node " + n + " starved: ops per node " + Arrays.toString(ops)
                + " (each needs " + 100 * minShare + "% of " + sum + ")");
        }
    }

    /**
     * No node starves with the mechanisms on, and the mechanisms did the work: across the runs (at
     * most 12, until both have fired) leases expired and readers sat out windows, each of which
     * happens in most but not all runs on 2 cores.
     */
    @Test
    @org.junit.jupiter.api.Timeout(300)
    void oneWriterNodeAgainstTwoReaderNodes() throws Exception {
        long leaseExpiries = 0;
        long readerWindows = 0;
        long pending = 0;
        int runs = 0;
        while (runs < 12 && (leaseExpiries == 0 || readerWindows == 0 || runs < 2)) {
            CounterSnapshot[] counters = new CounterSnapshot[1];
            long[] ops = run(true, 2, 2, CAP, counters);
            System.out.printf("fairness on: ops per node %s, writer share %.3f%%, %s%n", Arrays.toString(ops),
                100.0 * ops[0] / Arrays.stream(ops).sum(), counters[0]);
            assertEveryNodeGetsItsShare(ops, MIN_SHARE);
            leaseExpiries += counters[0].get(Counter.LEASE_EXPIRIES);
            readerWindows += counters[0].get(Counter.READER_SPIN_WAITS);
            pending += counters[0].get(Counter.INVALIDATIONS_PENDING);
            runs++;
        }
        String fired = runs + " runs: pending=" + pending + " leaseExpiries=" + leaseExpiries + " readerWindows=" + readerWindows;
        System.out.println("fairness mechanisms fired in " + fired);
        assertTrue(pending > 0 && leaseExpiries > 0 && readerWindows > 0, "a mechanism never fired in " + fired);
    }

    /**
     * 16 reader threads against 4 writer threads on a 2-core machine: every write acquisition needs
     * invalidations at 4 nodes while every read is a local hit, so the writer's share is smaller than
     * above; the bound checks for starvation, not equal throughput.
     */
    @Tag("stress")
    @Test
    void oneWriterNodeAgainstManyBusyReaderNodes() throws Exception {
        for (int round = 0; round < 5; round++) {
            CounterSnapshot[] counters = new CounterSnapshot[1];
            long[] ops = run(true, 4, 4, CAP, counters);
            System.out.printf("fairness on, 4 reader nodes: ops per node %s, writer share %.3f%%%n", Arrays.toString(ops),
                100.0 * ops[0] / Arrays.stream(ops).sum());
            assertEveryNodeGetsItsShare(ops, MIN_SHARE / 4);
        }
    }
}
