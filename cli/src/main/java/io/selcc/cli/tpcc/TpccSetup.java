package io.selcc.cli.tpcc;

import io.selcc.cli.CliFailure;
import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.Flags;
import io.selcc.engine.Database;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConditionResult;
import io.selcc.tpcc.run.DataDir;
import io.selcc.tpcc.run.TpccDatabases;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.Locale;

/** Builds the database for a tpcc command, loads it, and runs the checks. */
final class TpccSetup {
    private TpccSetup() {
    }

    /** Validates the shared flags; a cache too small for TPC-C's latches is refused up front. */
    static ClusterSettings settings(ClusterOptions clusterOptions, TpccOptions options, CommandLine cl) {
        options.validate(cl);
        ClusterSettings cluster = clusterOptions.settings(cl, TpccDatabases.defaultCacheFrames(options.warehouses));
        Flags.require(!cluster.separateProcesses() || options.dataDir == null, cl, "--data-dir", options.dataDir,
            "is not kept with compute nodes as processes (--cluster) yet");
        long needed = (long) TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL * cluster.threads();
        Flags.require(cluster.cacheFrames() >= needed, cl, "--cache", cluster.cacheFrames() + " frames",
            "TPC-C needs at least " + TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL + " frames per terminal (--threads "
                + cluster.threads() + " = " + needed + "): a transaction holds latches on up to a few hundred pages");
        return cluster;
    }

    /** Memory per memory node: --memory, or the default for the population (and a recovered database's size). */
    static long memoryPerNode(ClusterSettings cluster, TpccOptions options) {
        return options.memoryPerNode > 0 ? options.memoryPerNode
            : TpccDatabases.memoryPerNode(cluster.toSpec(true), options.warehouses, options.recoveredBytes);
    }

    /** The database of a load or a check, with the loaders' threads and the options' table sets. */
    static Database open(ClusterSettings cluster, TpccOptions options) {
        return TpccDatabases.open(cluster.toSpec(true), options.cc, options.lockWait, cluster.threads(),
            cluster.cacheFrames(), memoryPerNode(cluster, options), options.partitions);
    }

    /**
     * What {@code tpcc load} and {@code tpcc check} do: build, load, and check when asked. Returns the
     * exit code: 1 if a check failed, else 0.
     */
    static int loadAndMaybeCheck(ClusterSettings cluster, TpccOptions options, long seed, boolean check, PrintWriter out) {
        try (Database db = open(cluster, options)) {
            return onNodeZero(cluster, db, out, () -> TpccDatabases.loadAndKeep(db, options.warehouses,
                cluster.threads(), seed, options.partitions, memoryPerNode(cluster, options), check, options.dataDir, out)
                ? 0 : 1);
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
        io.selcc.fabric.tcp.ClusterRun control = io.selcc.fabric.tcp.ClusterRun.join(db.cluster().fabric().endpoint(cluster.node()),
            cluster.computeNodes());
        try {
            if (cluster.node() != 0) {
                out.printf(Locale.ROOT, "compute node %d: joining compute node 0, which does the work%n", cluster.node());
                out.flush();
                control.sayReady();
                io.selcc.fabric.tcp.ClusterRun.acknowledge(control.awaitStop());
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
        try (Database db = open(cluster, options)) {
            io.selcc.wal.Recovery.Summary recovered = DataDir.recover(db, options.dataDir, out, err);
            CheckReport report = TpccDatabases.check(db, options.warehouses, options.partitions, out);
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
}
