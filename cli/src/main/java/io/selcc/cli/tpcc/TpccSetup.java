package io.selcc.cli.tpcc;

import io.selcc.cache.SharedMemoryFullException;
import io.selcc.cli.CliFailure;
import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.Flags;
import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.fabric.OffHeap;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConditionResult;
import io.selcc.tpcc.check.ConsistencyChecker;
import io.selcc.tpcc.load.LoadReport;
import io.selcc.tpcc.load.TpccLoader;

import picocli.CommandLine;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Locale;

/** Builds the database for a tpcc command, loads it, and runs the checks. */
final class TpccSetup {
    /** Tuple bytes of one warehouse's initial population, with ITEM's share, rounded up. */
    static final long BYTES_PER_WAREHOUSE = 160L << 20;
    /** Room for what a run inserts (orders, order lines, history) and for the indexes. */
    static final long HEADROOM_BYTES = 512L << 20;

    /**
     * Frames each terminal needs: a no-wait 2PL transaction holds its pages' latches until commit, and
     * Stock-Level latches up to a few hundred pages (order lines of 20 orders and their stock rows).
     */
    static final int MIN_CACHE_FRAMES_PER_TERMINAL = 1024;

    private TpccSetup() {
    }

    /** Validates the shared flags; a cache too small for TPC-C's latches is refused up front. */
    static ClusterSettings settings(ClusterOptions clusterOptions, TpccOptions options, CommandLine cl) {
        options.validate(cl);
        ClusterSettings cluster = clusterOptions.settings(cl, defaultCacheFrames(2048, options.warehouses));
        Flags.require(!cluster.separateProcesses() || options.dataDir == null, cl, "--data-dir", options.dataDir,
            "is not kept with compute nodes as processes (--cluster) yet");
        long needed = (long) MIN_CACHE_FRAMES_PER_TERMINAL * cluster.threads();
        Flags.require(cluster.cacheFrames() >= needed, cl, "--cache", cluster.cacheFrames() + " frames",
            "TPC-C needs at least " + MIN_CACHE_FRAMES_PER_TERMINAL + " frames per terminal (--threads "
                + cluster.threads() + " = " + needed + "): a transaction holds latches on up to a few hundred pages");
        return cluster;
    }

    static String mebibytes(long bytes) {
        return String.format(Locale.ROOT, "%.0fMiB", bytes / (double) (1 << 20));
    }

    /** Memory per memory node: --memory, or by default twice the initial population plus headroom, spread. */
    static long memoryPerNode(ClusterSettings cluster, TpccOptions options) {
        return options.memoryPerNode > 0 ? options.memoryPerNode : spread(cluster, baseMemory(options));
    }

    /**
     * The population's share of the default: twice the initial population, or, for a recovered
     * database, twice its checkpoint and logs if that is more (the same factor: rows in pages and
     * index entries take about 1.4 times their checkpoint bytes, and leaves split under ascending keys
     * stay part empty), plus the headroom.
     */
    private static long baseMemory(TpccOptions options) {
        return Math.max(loadMemory(options.warehouses), 2 * options.recoveredBytes + HEADROOM_BYTES);
    }

    /**
     * What a run may insert per second and compute node by default: a W=2 standard-mix run at
     * 44,000 txn/s on 2 nodes took 28 MiB/s in all (1,428 bytes per New-Order, docs/benchmarks.md).
     */
    static final long RUN_GROWTH_BYTES_PER_NODE_SECOND = 64L << 20;

    /**
     * The default memory per memory node of {@code tpcc run}: the load's default plus room for what
     * {@code seconds} of running inserts, where memory nodes are mapped lazily (the room costs
     * address space, not resident memory, until used). Elsewhere the load's default, as before.
     */
    static long runMemoryPerNode(ClusterSettings cluster, TpccOptions options, double seconds) {
        long total = baseMemory(options);
        if (OffHeap.lazilyZeroed()) {
            total += (long) Math.ceil(seconds) * RUN_GROWTH_BYTES_PER_NODE_SECOND * cluster.computeNodes();
        }
        return spread(cluster, total);
    }

    /** The default memory per memory node: twice the initial population plus headroom, spread over the memory nodes. */
    static long memoryPerNode(ClusterSettings cluster, int warehouses) {
        return spread(cluster, loadMemory(warehouses));
    }

    private static long loadMemory(int warehouses) {
        return 2 * BYTES_PER_WAREHOUSE * warehouses + HEADROOM_BYTES;
    }

    /** {@code totalBytes} spread over the memory nodes, plus one GCL each, 8-aligned. */
    private static long spread(ClusterSettings cluster, long totalBytes) {
        long perNode = totalBytes / cluster.memoryNodes() + cluster.gclSize();
        return perNode - perNode % 8;
    }

    /** Default cache: half of one warehouse per compute node, at least 16,384 frames. */
    static long defaultCacheFrames(int gclSize, int warehouses) {
        return Math.max(16_384, BYTES_PER_WAREHOUSE * warehouses / 2 / gclSize);
    }

    static Database open(ClusterSettings cluster, TpccOptions options) {
        return open(cluster, options, null);
    }

    /** The database, logging its commits into {@code logs} unless it is null. */
    static Database open(ClusterSettings cluster, TpccOptions options, CommitLog.Factory logs) {
        return open(cluster, options, logs, 0);
    }

    /** {@link #open(ClusterSettings, TpccOptions, CommitLog.Factory)} with one table set per compute node when {@code partitions} > 0. */
    static Database open(ClusterSettings cluster, TpccOptions options, CommitLog.Factory logs, int partitions) {
        Database.Builder builder = TpccSchema.define(Database.builder(), partitions).cc(options.cc).commitLog(logs)
            .lockWait(options.lockWait);
        builder.clusterSettings()
            .accessMode(cluster.access())
            .computeNodes(cluster.computeNodes())
            .memoryNodes(cluster.memoryNodes())
            .threadsPerNode(cluster.threads())
            .gclSize(cluster.gclSize())
            .cacheFrames(cluster.cacheFrames())
            .latency(cluster.latency())
            .fairness(cluster.fairness())
            .memoryPerNode(memoryPerNode(cluster, options));
        cluster.applyFabric(builder.clusterSettings(), memoryPerNode(cluster, options));
        return builder.build();
    }

    static LoadReport load(Database db, ClusterSettings cluster, TpccOptions options, long seed,
                           TpccRandom.Constants constants, PrintWriter out) {
        return load(db, cluster, options, seed, constants, out, 0);
    }

    /** Loads fully-shared mode's tables, or with {@code partitions} > 0 each compute node's partition. */
    static LoadReport load(Database db, ClusterSettings cluster, TpccOptions options, long seed,
                           TpccRandom.Constants constants, PrintWriter out, int partitions) {
        out.printf(Locale.ROOT, "loading %d warehouse(s) with cc=%s on %d compute node(s) x %d thread(s), seed %d,"
                + " C_LAST load/run %d/%d, C_ID %d, OL_I_ID %d%n", options.warehouses, options.cc,
            cluster.computeNodes(), cluster.threads(), seed, constants.cLastLoad(), constants.cLastRun(),
            constants.cId(), constants.olIId());
        out.flush();
        PrintStream progress = printStream(out);
        LoadReport report;
        try {
            report = new TpccLoader(db, options.warehouses, seed, constants, cluster.threads(), progress, partitions).load();
        } catch (SharedMemoryFullException e) {
            throw new CliFailure("shared memory is full while loading " + options.warehouses + " warehouse(s): raise"
                + " --memory (now " + mebibytes(memoryPerNode(cluster, options)) + " per memory node)", e);
        }
        out.printf(Locale.ROOT, "loaded in %.1f s, %,d MiB of shared memory in use (heap pages %,d MiB, indexes %,d MiB);"
                + " rows %s%n", report.millis() / 1000.0, report.sharedBytesInUse() >> 20, report.memoryBytesUsed() >> 20,
            report.indexBytes() >> 20, report.rowsPerTable());
        out.flush();
        return report;
    }

    /**
     * What {@code tpcc load} and {@code tpcc check} do: build, load, and check when asked. Returns the
     * exit code: 1 if a check failed, else 0.
     */
    static int loadAndMaybeCheck(ClusterSettings cluster, TpccOptions options, long seed, boolean check, PrintWriter out) {
        try (Database db = open(cluster, options, null, options.partitions)) {
            return onNodeZero(cluster, db, out, () -> {
                TpccRandom.Constants constants = TpccRandom.Constants.random(seed);
                load(db, cluster, options, seed, constants, out, options.partitions);
                boolean passed = !check || check(db, options.warehouses, out, options.partitions).passed();
                if (options.dataDir != null && passed) {
                    DataDir.checkpoint(db, options.dataDir, null,
                        DataDir.properties(options.warehouses, seed, constants, options.partitions), out);
                }
                return passed ? 0 : 1;
            });
        }
    }

    /**
     * {@code work}'s exit code. With compute nodes as processes ({@code --cluster}), node 0 does the work
     * once every other node joined and then stops them (it loads into the shared memory nodes and checks
     * from there); another node joins, waits for node 0's STOP and returns 0.
     */
    static int onNodeZero(ClusterSettings cluster, Database db, PrintWriter out, java.util.function.IntSupplier work) {
        if (!cluster.separateProcesses()) {
            return work.getAsInt();
        }
        io.selcc.cli.ClusterRun control = io.selcc.cli.ClusterRun.join(db.cluster().fabric().endpoint(cluster.node()),
            cluster.computeNodes());
        try {
            if (cluster.node() != 0) {
                out.printf(Locale.ROOT, "compute node %d: joining compute node 0, which does the work%n", cluster.node());
                out.flush();
                control.sayReady();
                io.selcc.cli.ClusterRun.acknowledge(control.awaitStop());
                return 0;
            }
            out.printf(Locale.ROOT, "compute node 0 of %d processes: waiting for compute nodes 1-%d%n",
                cluster.processes(), cluster.computeNodes() - 1);
            out.flush();
            control.awaitOthers();
            int exit = work.getAsInt();
            control.stopOthers();
            return exit;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure("interrupted while the compute nodes' processes worked together", e);
        }
    }

    /**
     * {@code tpcc check --data-dir}: recovers the database kept in the directory and runs the checks;
     * reports New-Orders since the load. Returns the exit code.
     */
    static int recoverAndCheck(ClusterSettings cluster, TpccOptions options, java.nio.file.Path json,
                               PrintWriter out, PrintWriter err) {
        try (Database db = open(cluster, options, null, options.partitions)) {
            io.selcc.wal.Recovery.Summary recovered = DataDir.recover(db, options.dataDir, out, err);
            CheckReport report = check(db, options.warehouses, out, options.partitions);
            long since = DataDir.ordersSinceLoad(db, options.warehouses, options.partitions);
            out.printf(Locale.ROOT, "ordersSinceLoad %d%n", since);
            out.flush();
            if (json != null) {
                io.selcc.cli.JsonWriter w = new io.selcc.cli.JsonWriter().beginObject()
                    .field("dataDir", options.dataDir.toString())
                    .field("warehouses", options.warehouses)
                    .field("ordersSinceLoad", since)
                    .field("passed", report.passed())
                    .field("checkpoint", recovered.checkpoint().getFileName().toString())
                    .field("logRecordsRead", recovered.recordsRead())
                    .field("transactionsReplayed", recovered.replayed())
                    .field("lastReplayed", recovered.lastReplayed())
                    .field("partitions", options.partitions)
                    .field("decidedTransactions", recovered.decided())
                    .field("branchesApplied", recovered.branchesApplied())
                    .field("branchesDiscarded", recovered.branchesDiscarded())
                    .field("recoverySeconds", recovered.seconds());
                w.name("failures").beginArray();
                for (ConditionResult failed : report.failures()) {
                    w.value(failed.condition().label());
                }
                w.endArray().endObject();
                io.selcc.cli.JsonFile.write(json, w.toString());
                out.println("wrote " + json);
                out.flush();
            }
            return report.passed() ? 0 : 1;
        }
    }

    static CheckReport check(Database db, int warehouses, PrintWriter out) {
        return check(db, warehouses, out, 0);
    }

    /** The consistency check over fully-shared mode's tables, or every partition's when {@code partitions} > 0. */
    static CheckReport check(Database db, int warehouses, PrintWriter out, int partitions) {
        CheckReport report = new ConsistencyChecker(db.liveNode(), warehouses, partitions).check();
        for (ConditionResult condition : report.conditions()) {
            String what = condition.condition().isSpecCondition()
                ? String.format(Locale.ROOT, "consistency condition %2d", condition.number())
                : "index/heap agreement    ";
            out.printf(Locale.ROOT, "%s: %s%s%n", what,
                condition.passed() ? "passed" : "FAILED", condition.detail() == null || condition.detail().isEmpty()
                    ? "" : " (" + condition.detail() + ")");
        }
        out.printf("consistency: %s%n", report.passed() ? "all conditions passed" : "FAILED");
        out.flush();
        return report;
    }

    /** A stream that prints through the command's writer (progress lines of the loader and the driver). */
    static PrintStream printStream(PrintWriter out) {
        return new PrintStream(new WriterStream(out), true);
    }

    private static final class WriterStream extends java.io.OutputStream {
        private final PrintWriter out;

        WriterStream(PrintWriter out) {
            this.out = out;
        }

        @Override
        public void write(int b) {
            out.write(b);
        }

        @Override
        public void flush() {
            out.flush();
        }
    }
}
