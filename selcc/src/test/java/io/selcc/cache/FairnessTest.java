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
 * One writer node against reader nodes on one hot GCL (paper 5.3). Every node has a quota; the run
 * ends when all quotas are met or when all nodes together reach a cap. With the fairness mechanisms
 * on, no node may starve: each meets its quota, so each gets at least quota/cap of all operations.
 * (With them off, readers were seen to starve completely; the micro-benchmark shows it:
 * {@code bin/selcc micro --writer-nodes 1 --fairness off}.)
 */
class FairnessTest {
    static final long CAP = 3_000_000;
    /**
     * Each node's share of a fair run: 2,000 of at most 3M operations (twice the old quota). Measured
     * on 2 cores with the mechanisms on, the writer node's count when a run ended varied from about
     * 4,800 to 10,000+ over some 30 runs: its share is real but small and noisy (see issue 7's note);
     * with the mechanisms off, starved writers ended with 200-7,000 while the readers reached the cap.
     */
    static final long QUOTA = 2_000;

    /** Operations per node (index 0 is the writer node); stops when every node has {@code quota} or all have CAP. */
    static long[] run(boolean fairness, int readerNodes, int threadsPerNode, long quota) throws Exception {
        return run(fairness, readerNodes, threadsPerNode, quota, new CounterSnapshot[1]);
    }

    /** As above; {@code countersOut[0]} receives the cluster's counters at the end. */
    static long[] run(boolean fairness, int readerNodes, int threadsPerNode, long quota, CounterSnapshot[] countersOut)
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
                                if (total.incrementAndGet() >= CAP || allMet(perNode, quota)) {
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

    private static boolean allMet(AtomicLong[] perNode, long quota) {
        for (AtomicLong ops : perNode) {
            if (ops.get() < quota) {
                return false;
            }
        }
        return true;
    }

    static void assertNoStarvation(long[] ops, long quota) {
        long sum = Arrays.stream(ops).sum();
        for (int n = 0; n < ops.length; n++) {
            assertTrue(ops[n] >= quota, "node " + n + " starved: ops per node " + Arrays.toString(ops)
                + " (each needs " + quota + " of at most " + CAP + ")");
            assertTrue((double) ops[n] / sum >= (double) quota / CAP, "share of node " + n);
        }
    }

    /**
     * No node starves with the mechanisms on, and the mechanisms did the work: across the runs (at
     * most 12, until both have fired) leases expired and readers sat out windows, each of
     * which happens in most but not all runs on 2 cores (measured: 8 and 6 of 10). The deterministic
     * negative control is TryPathLeaseTest's: a statistical one here (mechanisms off) starved the
     * writer in only a third to a half of the runs, too unreliable for CI.
     */
    @Test
    @org.junit.jupiter.api.Timeout(300)
    void oneWriterNodeAgainstTwoReaderNodes() throws Exception {
        long leaseExpiries = 0;
        long readerWindows = 0;
        long pending = 0;
        int runs = 0;
        while (runs < 12 && (leaseExpiries == 0 || readerWindows == 0)) {
            CounterSnapshot[] counters = new CounterSnapshot[1];
            long[] ops = run(true, 2, 2, QUOTA, counters);
            System.out.println("fairness on: ops per node " + Arrays.toString(ops) + " " + counters[0]);
            assertNoStarvation(ops, QUOTA);
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
     * invalidations at 4 nodes while every read is a local hit, so the writer's fair share is small
     * (measured: 500-2000 writes per 3M reads). The quota checks for starvation, not equal throughput.
     */
    @Tag("stress")
    @Test
    void oneWriterNodeAgainstManyBusyReaderNodes() throws Exception {
        for (int round = 0; round < 5; round++) {
            assertNoStarvation(run(true, 4, 4, 200), 200);
        }
    }
}
