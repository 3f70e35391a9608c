package io.selcc.cli.micro;

import io.selcc.fabric.tcp.ClusterRun;
import io.selcc.cli.ClusterSettings;
import io.selcc.fabric.PendingReply;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.threads.EngineThread;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Drives one run: build the cluster, allocate every GCL, flush caches and reset counters, start all
 * workers together, warm up, reset counters and latencies, measure, stop, collect.
 *
 * <pre>
 *  driver ── progress line each second ─────────────────────────────────────
 *  node 0:  micro-n0-t0 .. micro-n0-t{T-1}  ─┐
 *  node 1:  micro-n1-t0 ..                  ─┼─ lock GCL, read or increment, unlock
 *  ...                                       ─┘   (shared GCLs + own partition)
 *  memory nodes 0..M-1: all GCLs, allocated up front
 * </pre>
 */
final class MicroRun {
    private static final long PROGRESS_INTERVAL_NANOS = 1_000_000_000L;
    private static final double NANOS_PER_SECOND = 1e9;
    private static final double BYTES_PER_MIB = 1 << 20;

    private final MicroConfig config;
    private final PrintWriter out;
    private final RunControl control = new RunControl();
    private final List<MicroWorker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    /** A compute node of this run whose process died (separate processes only), or -1. */
    private final java.util.concurrent.atomic.AtomicInteger lostPeer = new java.util.concurrent.atomic.AtomicInteger(-1);
    /** Per worker, its counts at the end of warm-up. */
    private long[] baseReads;
    private long[] baseWrites;

    MicroRun(MicroConfig config, PrintWriter out) {
        this.config = config;
        this.out = out;
    }

    MicroResult execute() throws InterruptedException {
        ClusterSettings cs = config.cluster();
        GclSpace space = GclSpace.plan(config.gcls(), config.sharing(), cs.computeNodes());
        SelccCluster.Builder builder = cs.builder()
            .threadsPerNode(config.workersPerNode()) // the lease counts every worker that may hold a line locally
            .memoryPerNode(config.memoryPerNode())
            .allocationChunk(MicroConfig.ALLOCATION_CHUNK);
        cs.applyFabric(builder, config.memoryPerNode());
        try (SelccCluster cluster = builder.build()) {
            ClusterRun run = cs.separateProcesses() ? ClusterRun.join(cluster.fabric().endpoint(cs.node()), cs.computeNodes()) : null;
            if (run != null) {
                // A process of the run died: the lines it held are lost (nothing here keeps a log to restore them
                // from), so a node that meets one fails at once instead of waiting for a repair that never comes.
                cluster.onPeerFailure(gone -> {
                    lostPeer.compareAndSet(-1, gone);
                    cluster.repairFailed(gone, "compute node " + gone + "'s process is gone");
                });
            }
            if (run != null && cs.node() != 0) {
                return member(cluster, space, run);
            }
            if (run != null) {
                out.printf(Locale.ROOT, "compute node 0 of %d processes: waiting for compute nodes 1-%d%n",
                    cs.processes(), cs.computeNodes() - 1);
                out.flush();
                run.awaitOthers();
            }
            allocate(cluster, space);
            PendingReply[] others = run == null ? null : run.go(MicroShare.go(config, space));
            MicroResult result = runShare(cluster, space, "");
            if (others != null) {
                for (int i = 0; i < others.length; i++) {
                    result = MicroShare.merge(result, MicroShare.results(ClusterRun.results(others[i], i + 1)));
                }
                run.stopOthers(); // each wrote its cache back: the memory nodes hold everything
            }
            return result;
        }
    }

    /**
     * Runs this process's workers (every node's with one process) through warm-up and the measured
     * interval and collects what they did; {@code where} names the node in a failure's message.
     */
    private MicroResult runShare(SelccCluster cluster, GclSpace space, String where) throws InterruptedException {
        long measured;
        try {
            startWorkers(cluster, space);
            measured = measure(cluster);
        } finally {
            control.stop();
            for (Thread thread : threads) {
                thread.join(); // after this every count and latency is final
            }
        }
        failIfAPeerIsGone(cluster);
        Throwable failure = control.failure();
        if (failure != null) {
            throw new IllegalStateException("micro-benchmark failed" + where + ": " + failure.getMessage(), failure);
        }
        return collect(cluster, space, measured);
    }

    /** Ends the run with one line if another compute node's process died during it. */
    private void failIfAPeerIsGone(SelccCluster cluster) {
        int gone = lostPeer.get();
        if (gone >= 0) {
            ClusterRun.failIfAMemoryNodeIsLost(cluster, config.cluster().node());
            throw new io.selcc.cli.CliFailure("compute node " + gone + "'s process is gone: the lines it held are lost"
                + " (the micro-benchmark keeps no log to restore them from), so the run ends");
        }
    }

    /**
     * A compute node other than 0 of a run in separate processes: says it is up, runs its share on node
     * 0's GO (node 0 allocated the GCLs), answers with its results, and on STOP writes its cache back.
     */
    private MicroResult member(SelccCluster cluster, GclSpace space, ClusterRun run) throws InterruptedException {
        int node = config.cluster().node();
        out.printf(Locale.ROOT, "compute node %d: joining compute node 0%n", node);
        out.flush();
        run.sayReady();
        ClusterRun.GoRequest go = run.awaitGo();
        MicroShare.adopt(go.payload(), config, space);
        cluster.resetCounters();
        MicroResult mine = runShare(cluster, space, " on compute node " + node);
        go.done(MicroShare.results(mine));
        var stop = run.awaitStop();
        cluster.flushCaches();
        ClusterRun.acknowledge(stop);
        out.printf(Locale.ROOT, "compute node %d: %,d ops in %.2f s sent to compute node 0, which reports the run%n",
            node, mine.ops(), mine.seconds());
        out.flush();
        return mine;
    }

    private void allocate(SelccCluster cluster, GclSpace space) throws InterruptedException {
        out.printf(Locale.ROOT, "allocating %,d GCLs (%,d shared, %,d private per node, %,d unused);"
                + " %.1f MiB per memory node%n", space.gcls(), space.shared(), space.privatePerNode(),
            space.gcls() - space.shared() - space.privatePerNode() * cluster.computeNodeCount(),
            config.memoryPerNode() / BYTES_PER_MIB);
        out.flush();
        long begin = System.nanoTime();
        space.allocate(cluster);
        // Start from empty caches: which node allocated a GCL should not decide who owns it first.
        cluster.flushCaches();
        cluster.resetCounters();
        out.printf(Locale.ROOT, "allocated in %.2f s%n", (System.nanoTime() - begin) / NANOS_PER_SECOND);
        out.flush();
    }

    private void startWorkers(SelccCluster cluster, GclSpace space) {
        ZipfGenerator zipf = config.theta() > 0 ? new ZipfGenerator(space.accessible(), config.theta()) : null;
        Scramble scramble = new Scramble(space.accessible());
        // One stream per thread, split in a fixed order from the seed: a run is replayable per thread.
        SplittableRandom seeds = new SplittableRandom(config.run().seed());
        for (int node = 0; node < cluster.computeNodeCount(); node++) {
            for (int t = 0; t < config.workersPerNode(); t++) {
                SplittableRandom random = seeds.split(); // split for every node: a worker's stream is its own wherever it runs
                if (!cluster.hosts(node)) {
                    continue;
                }
                AccessPattern pattern = new AccessPattern(space, node, zipf, scramble, config.locality(), random);
                MicroWorker worker = new MicroWorker(cluster.node(node), pattern, config.readPercent(node), random, control);
                workers.add(worker);
                String name = "micro-n" + node + "-t" + t;
                // Several operations in flight per thread: each a virtual thread, parked while it waits.
                threads.add(config.inFlight() > 1 ? EngineThread.startVirtual(name, worker) : EngineThread.start(name, true, worker));
            }
        }
    }

    /** Warm-up then the measured phase; returns the measured nanoseconds. */
    private long measure(SelccCluster cluster) throws InterruptedException {
        control.start();
        if (config.run().warmupNanos() > 0) {
            runPhase("warmup", config.run().warmupNanos());
        }
        baseReads = new long[workers.size()];
        baseWrites = new long[workers.size()];
        cluster.resetCounters();
        for (int i = 0; i < workers.size(); i++) {
            MicroWorker worker = workers.get(i);
            baseReads[i] = worker.reads();
            baseWrites[i] = worker.writes();
            worker.takeLatency(); // drops the warm-up's latencies
        }
        long begin = System.nanoTime();
        runPhase("run", config.run().durationNanos());
        control.stop();
        return System.nanoTime() - begin;
    }

    /** Runs until {@code nanos} have passed (or a worker fails), printing a progress line each second. */
    private void runPhase(String phase, long nanos) throws InterruptedException {
        long begin = System.nanoTime();
        long end = begin + nanos;
        long phaseStartOps = totalOps();
        long lastOps = phaseStartOps;
        long lastTick = begin;
        long nextTick = begin + PROGRESS_INTERVAL_NANOS;
        while (true) {
            if (control.awaitStop(Math.min(nextTick, end) - System.nanoTime())) {
                return; // a worker failed; execute() reports it
            }
            long now = System.nanoTime();
            if (now - nextTick >= 0) {
                long ops = totalOps();
                double rate = (ops - lastOps) * NANOS_PER_SECOND / (now - lastTick);
                out.printf(Locale.ROOT, "%-6s %7.1f s %,14.0f ops/s %,16d ops%n",
                    phase, (now - begin) / NANOS_PER_SECOND, rate, ops - phaseStartOps);
                out.flush();
                lastOps = ops;
                lastTick = now;
                while (now - nextTick >= 0) {
                    nextTick += PROGRESS_INTERVAL_NANOS;
                }
            }
            if (now - end >= 0) {
                return;
            }
        }
    }

    private long totalOps() {
        long sum = 0;
        for (MicroWorker worker : workers) {
            sum += worker.ops();
        }
        return sum;
    }

    /** Sums the measured phase per node; the workers have finished. */
    private MicroResult collect(SelccCluster cluster, GclSpace space, long measured) {
        long[] reads = new long[cluster.computeNodeCount()];
        long[] writes = new long[cluster.computeNodeCount()];
        Histogram latency = new Histogram(MicroWorker.LATENCY_DIGITS);
        for (int i = 0; i < workers.size(); i++) {
            MicroWorker worker = workers.get(i);
            reads[worker.nodeId()] += worker.reads() - baseReads[i];
            writes[worker.nodeId()] += worker.writes() - baseWrites[i];
            latency.add(worker.takeLatency());
        }
        List<MicroResult.NodeResult> nodes = new ArrayList<>();
        for (int node = 0; node < reads.length; node++) {
            if (cluster.hosts(node)) {
                nodes.add(new MicroResult.NodeResult(node, reads[node], writes[node]));
            }
        }
        CounterSnapshot counters = cluster.totalCounters();
        return new MicroResult(measured, nodes, counters, latency, space.shared(), space.privatePerNode());
    }
}
