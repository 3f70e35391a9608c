package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.Flags;
import io.selcc.cli.JsonFile;
import io.selcc.cli.RunOptions;
import io.selcc.cli.RunSettings;
import io.selcc.cli.SelccCli;
import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.DriverResult;
import io.selcc.tpcc.driver.Mix;
import io.selcc.tpcc.driver.TpccDriver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

/** {@code selcc tpcc run}: load, drive terminals for a warm-up and a measured interval, report. */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Load (or, with --data-dir, recover), then run TPC-C terminals (--terminals per warehouse, each with a"
        + " fixed home warehouse and district) for --warmup and --duration; print a progress line each second and a"
        + " table per transaction type.",
    footer = {"", "Example: bin/selcc tpcc run --cc occ --warehouses 1 --compute-nodes 2 --terminals 10 --duration 30s"
        + " --warmup 5s --check --json result.json"})
public final class TpccRunCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions clusterOptions;

    @Mixin
    private TpccOptions tpcc;

    @Mixin
    private RunOptions runOptions;

    @Option(names = "--mix", paramLabel = "NO,P,OS,D,SL", defaultValue = "45,43,4,4,4",
        description = "Weights of New-Order, Payment, Order-Status, Delivery, Stock-Level (a shuffled card deck);"
            + " e.g. 0,0,100,0,0 runs Order-Status only. Default: ${DEFAULT-VALUE}.")
    private String mix;

    @Option(names = "--terminals", paramLabel = "N", defaultValue = "2",
        description = "Terminals per warehouse (at most 1000), each with its home warehouse and district, each a"
            + " virtual thread unless --terminal-threads platform (the spec has 10). Default: ${DEFAULT-VALUE}.")
    private int terminalsPerWarehouse;

    @Option(names = "--placement", paramLabel = "home|spread", defaultValue = "home",
        converter = io.selcc.cli.Converters.PlacementConverter.class,
        description = "home: a warehouse's terminals run on its home compute node (node (w-1) mod N; with fewer"
            + " warehouses than nodes, the nodes sharing it); spread: every warehouse's terminals are dealt over all"
            + " compute nodes. Remote lines and payments cross nodes either way. Default: ${DEFAULT-VALUE}.")
    private io.selcc.tpcc.driver.TerminalPlacement.Placement placement;

    @Option(names = "--terminal-threads", paramLabel = "virtual|platform", defaultValue = "virtual",
        converter = io.selcc.cli.Converters.TerminalThreadsConverter.class,
        description = "What runs a terminal: a virtual thread (its carrier runs other terminals while it waits) or a"
            + " platform thread of its own. Default: ${DEFAULT-VALUE}.")
    private io.selcc.tpcc.driver.DriverConfig.TerminalThreads terminalThreads;

    @Option(names = "--lock-wait", paramLabel = "no-wait|wait-die", defaultValue = "no-wait",
        description = "2PL on a held lock: no-wait aborts and retries, but waits a bounded while (at least 50 ms)"
            + " for a transaction's first heap-page latch, when it holds none; wait-die waits if older than every"
            + " holder and aborts if younger (a retry keeps its age, so it ends up oldest), --cc 2pl in shared mode"
            + " only. Default: ${DEFAULT-VALUE}.")
    private String lockWait;

    @Option(names = "--wait-times", description = "Wait the spec's keying and think times (clause 5.2.5.7);"
        + " off by default: terminals run back to back.")
    private boolean waitTimes;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "1000",
        description = "Attempts per transaction before it counts as failed (conflict aborts are retried with"
            + " jittered backoff). Default: ${DEFAULT-VALUE}.")
    private int maxAttempts;

    @Option(names = "--wal", paramLabel = "off|async|sync", defaultValue = "off",
        description = "Log every committed transaction: async acknowledges a commit once it and every earlier"
            + " commit are appended, without waiting for the disk (a killed process loses nothing acknowledged),"
            + " sync once its record is forced (one force covers every commit waiting then)."
            + " Without a data directory the log goes to a temporary directory removed at the end (with --cluster:"
            + " into --log-dir). Default: ${DEFAULT-VALUE}, sync with --data-dir.")
    private String wal;

    @Option(names = "--mode", paramLabel = "shared|partitioned", defaultValue = "shared",
        description = "shared: every compute node reads and writes all data through its SELCC cache (no 2PC)."
            + " partitioned: each compute node owns the warehouses w with (w-1) mod N = its id, in tables of its"
            + " own; work on another node's rows is shipped to it and commits by two-phase commit (--cc 2pl only,"
            + " a warehouse per compute node at least; not with --crash-node, --checkpoint-every, --cluster or"
            + " --lock-wait wait-die; with --fabric tcp its compute nodes stay in this process). With --data-dir the"
            + " directory's mode (tpcc load --mode). Default: ${DEFAULT-VALUE}.")
    private String mode;

    @Option(names = "--distribution", paramLabel = "P",
        description = "Percent (0-100) of New-Orders with one line supplied by a warehouse another compute node"
            + " owns (cross-partition), the others all local; replaces the spec's 1%% remote lines. Both --mode"
            + " values draw the same orders. Needs a warehouse per compute node and --placement home. Default: the"
            + " spec's remote lines.")
    private Integer distribution;

    /** For tpcc compare: check every flag as a run would, then stop before loading (exit 0 if all are good). */
    @Option(names = "--validate-only", hidden = true)
    private boolean validateOnly;

    @Option(names = "--checkpoint-every", paramLabel = "DURATION", converter = io.selcc.cli.Converters.DurationConverter.class,
        description = "With --data-dir and its log: also write a checkpoint every DURATION while the terminals run"
            + " (recovery then replays only the log after the newest); not in partitioned mode. Default: only at the end.")
    private java.time.Duration checkpointEvery;

    @Option(names = "--crash-node", paramLabel = "N",
        description = "Crash compute node N abruptly during the run (fault test; any --cc, --access selcc, a log"
            + " (--wal async or sync) and two or more compute nodes; not with --mode partitioned or --cluster, and"
            + " with --fabric tcp the compute nodes stay in this process): its cache is lost and its terminals stop;"
            + " the others repair its lines from the logs and go on. See --crash-after.")
    private Integer crashNode;

    @Option(names = "--crash-after", paramLabel = "DURATION", converter = io.selcc.cli.Converters.DurationConverter.class,
        description = "With --crash-node: when, from the start of the warm-up. Default: a third of warm-up plus run.")
    private java.time.Duration crashAfter;

    @Option(names = "--log-dir", paramLabel = "DIR",
        description = "With --cluster and a log (--wal async or sync): the directory every compute node's process"
            + " logs into (node-N inside), one all of them can read: when a compute node's process dies, a survivor"
            + " restores its committed work from its log. Must be empty or absent when the run starts. (--fabric"
            + " tcp makes a temporary one.)")
    private java.nio.file.Path logDir;

    /** Terminals one compute node runs at most (each needs its frames: the cache grows with them). */
    static final int MAX_TERMINALS_PER_NODE = 10_000;
    /** Terminals of the run, all nodes (set by {@link #terminalSettings}). */
    private int totalTerminals;

    /** Terminals per warehouse a run takes at most (each terminal is a thread with its own per-thread state). */
    static final int MAX_TERMINALS_PER_WAREHOUSE = 1000;

    /** The last run's figures, for {@code tpcc compare}, which runs this command once per mode and share. */
    private DriverResult lastResult;
    private ModeReport lastMode;

    private long lastWalForces;
    private ClusterSettings lastCluster;

    /** The last run's parameters as its own JSON report names them (for tpcc compare's). */
    void parameters(io.selcc.cli.JsonWriter json) {
        DriverConfig config = lastResult.config();
        json.field("cc", tpcc.cc)
            .field("access", lastCluster.access().name().toLowerCase(Locale.ROOT))
            .field("warehouses", config.warehouses())
            .field("fabric", lastCluster.fabric().label())
            .field("processes", lastCluster.processes())
            .field("computeNodes", lastCluster.computeNodes())
            .field("memoryNodes", lastCluster.memoryNodes())
            .field("terminalsPerWarehouse", config.terminalsPerWarehouse())
            .field("placement", config.placement().label())
            .field("terminalThreads", config.terminalThreads().label())
            .field("lockWait", tpcc.lockWait.cliName())
            .field("gclSize", lastCluster.gclSize())
            .field("cacheFrames", lastCluster.cacheFrames())
            .field("rttNanos", lastCluster.rttNanos())
            .field("gbps", lastCluster.gbps())
            .field("wal", wal.toLowerCase(Locale.ROOT))
            .field("mix", config.mix().toString())
            .field("waitTimes", config.waitTimes())
            .field("durationMillis", config.durationNanos() / 1_000_000)
            .field("warmupMillis", config.warmupNanos() / 1_000_000)
            .field("seed", config.seed())
            .field("maxAttempts", config.retry().maxAttempts());
    }

    long lastWalForces() {
        return lastWalForces;
    }

    DriverResult lastResult() {
        return lastResult;
    }

    ModeReport lastMode() {
        return lastMode;
    }

    @Override
    public Integer call() throws InterruptedException {
        try {
            return runLocked();
        } finally {
            DataDir.unlock(); // a command run in-process (tests) leaves the directory free for the next
        }
    }

    /**
     * A run that failed because its commit log did (a disk error, a full disk): an expected condition,
     * one line, naming why the log failed ({@code wal}'s failure, when it knows); anything else is a
     * bug and keeps its trace.
     */
    static RuntimeException failureOf(RuntimeException e, java.nio.file.Path dataDir, io.selcc.wal.Wal wal) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof io.selcc.engine.CommitLog.NotDurableException
                || t instanceof io.selcc.tpcc.driver.TpccDriver.LogFailedException) {
                String why = wal != null && wal.failure() != null ? wal.failure() : t.getMessage();
                return new io.selcc.cli.CliFailure("the commit log failed, the run stopped: " + why
                    + (dataDir == null ? "" : "; " + dataDir + " keeps every acknowledged transaction"), e);
            }
            if (t instanceof io.selcc.twopc.CoordinatorFailedException && t.getCause() != null) {
                // Partitioned mode: a coordinator's two-phase-commit log failed (a disk error, a full disk).
                return new io.selcc.cli.CliFailure("a two-phase-commit log failed, the run stopped: " + t.getMessage()
                    + (dataDir == null ? "" : "; " + dataDir + " keeps every acknowledged transaction (a recovery"
                        + " settles the transactions left in doubt)"), e);
            }
        }
        return e;
    }

    private Integer runLocked() throws InterruptedException {
        // Before anything takes a data directory's lock: a refused mode must not look like a missing database.
        ClusterSettings early = TpccSetup.settings(clusterOptions, tpcc, spec.commandLine());
        modeOfDataDir();
        boolean partitionedMode = modeChecks(early);
        processChecks(early, partitionedMode);
        if (checkpointEvery != null) {
            io.selcc.cli.Flags.require(tpcc.dataDir != null, spec.commandLine(), "--checkpoint-every", checkpointEvery,
                "needs --data-dir");
            io.selcc.cli.Flags.require(!checkpointEvery.isZero() && !checkpointEvery.isNegative(), spec.commandLine(),
                "--checkpoint-every", checkpointEvery, "must be > 0");
        }
        java.util.Map<String, String> stored = tpcc.dataDir == null ? null
            : DataDir.forRecovery(tpcc.dataDir, tpcc, spec.commandLine());
        if (stored != null && !spec.commandLine().getParseResult().hasMatchedOption("--wal")) {
            wal = "sync"; // a kept database keeps what it acknowledged
        }
        if (checkpointEvery != null) {
            // A checkpoint taken while transactions run is consistent only with the log replayed after it.
            io.selcc.cli.Flags.require(!"off".equalsIgnoreCase(wal), spec.commandLine(), "--checkpoint-every",
                checkpointEvery, "needs a log (--wal async or sync)");
        }
        ClusterSettings cluster = terminalSettings(TpccSetup.settings(clusterOptions, tpcc, spec.commandLine()),
            partitionedMode);
        RunSettings run = runOptions.settings(spec.commandLine(), TpccReport.CSV_HEADER);
        warehouseChecks(cluster, partitionedMode);
        if (stored != null && partitionedMode) {
            Flags.require(cluster.computeNodes() == tpcc.partitions, spec.commandLine(), "--compute-nodes",
                cluster.computeNodes(), tpcc.dataDir + " holds " + tpcc.partitions + " partitions, one per compute node:"
                    + " run it with --compute-nodes " + tpcc.partitions);
        }
        int partitions = partitionedMode ? cluster.computeNodes() : 0;
        if (crashAfter != null) {
            io.selcc.cli.Flags.require(crashNode != null, spec.commandLine(), "--crash-after", crashAfter,
                "needs --crash-node");
            io.selcc.cli.Flags.require(!crashAfter.isNegative(), spec.commandLine(), "--crash-after", crashAfter,
                "must be >= 0");
        }
        if (crashNode != null) {
            io.selcc.cli.Flags.require(crashNode >= 0 && crashNode < cluster.computeNodes(), spec.commandLine(),
                "--crash-node", crashNode, "must name one of the " + cluster.computeNodes() + " compute nodes (0-based)");
            io.selcc.cli.Flags.require(cluster.computeNodes() >= 2, spec.commandLine(), "--crash-node", crashNode,
                "needs another compute node to repair it (--compute-nodes >= 2)");
            io.selcc.cli.Flags.require(!"off".equalsIgnoreCase(wal), spec.commandLine(), "--crash-node", crashNode,
                "needs a log to restore it from (--wal async or sync)");
        }
        Mix weights;
        try {
            weights = Mix.parse(mix);
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(spec.commandLine(), "--mix", mix, e.getMessage());
        }
        Flags.require(maxAttempts >= 1, spec.commandLine(), "--max-attempts", maxAttempts, "must be >= 1");
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (terminalThreads == io.selcc.tpcc.driver.DriverConfig.TerminalThreads.PLATFORM && cluster.latencyIsCpuBound()) {
            // Virtual terminals yield their carrier while a modelled round trip runs; platform ones spin.
            err.printf("warning: the latency model spins and %d terminals exceed %d processors: figures are CPU-bound%n",
                totalTerminals, Runtime.getRuntime().availableProcessors());
        }
        TpccRandom.Constants constants = stored != null ? DataDir.constants(stored) : TpccRandom.Constants.random(run.seed());
        SplittableRandom jitter = new SplittableRandom(run.seed() ^ 0x5DEECE66DL);
        RetryPolicy retry = new RetryPolicy(maxAttempts, 1_000, 1_000_000, () -> {
            synchronized (jitter) {
                return jitter.nextLong();
            }
        });
        DriverConfig config = new DriverConfig(tpcc.warehouses, terminalsPerWarehouse, placement, terminalThreads,
            run.durationNanos(), run.warmupNanos(), run.seed(), weights, waitTimes, constants, retry,
            distribution == null ? -1 : distribution);
        if (tpcc.memoryPerNode == 0) {
            tpcc.memoryPerNode = TpccSetup.runMemoryPerNode(cluster, tpcc,
                (run.durationNanos() + run.warmupNanos()) / 1e9);
        }
        if (validateOnly) {
            return 0;
        }
        if (cluster.fabric() == ClusterSettings.FabricChoice.TCP && !cluster.separateProcesses() && eachNodeAProcess()) {
            return launchProcesses(cluster, run, config, weights, out, err);
        }
        if (cluster.separateProcesses()) {
            return runAsProcess(cluster, run, config, weights, out, err);
        }
        WalSetup log;
        try {
            log = WalSetup.open(wal, spec.commandLine(),
                tpcc.dataDir == null ? null : io.selcc.wal.Recovery.logDirectory(tpcc.dataDir));
        } catch (java.io.UncheckedIOException e) {
            throw new io.selcc.cli.CliFailure("cannot open the log: " + e.getMessage(), e);
        }
        boolean[] checkpointed = {false};
        try (log; Database db = TpccSetup.open(cluster, tpcc, null, partitions)) {
            if (stored != null) {
                DataDir.recover(db, tpcc.dataDir, out, err);
            } else {
                TpccSetup.load(db, loaders(cluster), tpcc, run.seed(), constants, out, partitions);
            }
            if (log.wal() != null) {
                db.startLogging(log.wal()); // after the load or the replay: neither is logged again
            }
            log.describe(out);
            CrashAgent crash = null;
            if (crashNode != null) {
                for (int n = 0; n < db.computeNodeCount(); n++) {
                    db.node(n); // a recovered database has opened node 0 only: the survivors must be there
                }
                String refusal = db.crashRefusal(crashNode);
                if (refusal != null) {
                    throw Flags.invalid(spec.commandLine(), "--crash-node", crashNode, refusal);
                }
                long after = crashAfter != null ? crashAfter.toNanos() : (run.durationNanos() + run.warmupNanos()) / 3;
                crash = new CrashAgent(db, crashNode, after);
            }
            io.selcc.twopc.PartitionedDatabase partitioned = null;
            if (partitionedMode) {
                io.selcc.twopc.PartitionedDatabase.Builder b = io.selcc.twopc.PartitionedDatabase.builder(db);
                if (log.directory() != null) {
                    // Beside the commit logs, forced as its commits are: each record with sync, none with async.
                    // In a data directory a recovery reads them (in-doubt branches) and removes them with the logs.
                    b.logDirectory(log.directory()).forceRecords(log.forces());
                }
                partitioned = b.build();
                out.printf("partitioned mode: %d partitions, warehouse w on compute node (w-1) mod %d; 2PC records %s%n",
                    partitions, partitions, log.directory() == null ? "kept in memory (--wal off)"
                        : (log.forces() ? "forced into " : "appended (not forced) to ") + log.directory());
            }
            try {
                return runWith(db, log, cluster, run, config, weights, stored, crash, partitioned, partitions, checkpointed,
                    out, err);
            } catch (RuntimeException | Error e) {
                if (partitioned != null) {
                    try {
                        partitioned.close(); // no branch thread outlives the run (prepared ones in doubt may refuse)
                    } catch (RuntimeException closing) {
                        e.addSuppressed(closing); // the run's failure is what the user must read
                    }
                }
                throw e;
            } finally {
                if (partitioned != null) {
                    partitioned.close(); // idempotent: closed already when the run ended or failed
                }
            }
        } finally {
            if (checkpointed[0]) {
                io.selcc.wal.Recovery.removeLogs(tpcc.dataDir); // the log is closed, the checkpoint covers it
            }
        }
    }

    private Integer runWith(Database db, WalSetup log, ClusterSettings cluster, RunSettings run, DriverConfig config,
                            Mix weights, java.util.Map<String, String> stored, CrashAgent crash,
                            io.selcc.twopc.PartitionedDatabase partitioned, int partitions, boolean[] checkpointed,
                            PrintWriter out, PrintWriter err) throws InterruptedException {
        {
            db.cluster().resetCounters();
            out.printf("running %s for %.1f s after %.1f s of warm-up, mix %s%s%n",
                TpccReport.terminalsLine(config, cluster.computeNodes()), run.durationNanos() / 1e9, run.warmupNanos() / 1e9, weights, waitTimes ? ", with keying/think times" : "");
            out.flush();
            java.io.PrintStream progress = TpccSetup.printStream(out);
            TpccDriver driver = new TpccDriver(db, config, progress);
            if (log.forces()) {
                driver.reportDurableNewOrders();
            }
            if (partitioned != null) {
                driver.partitioned(partitioned);
            }
            ModeReport.Start[] measured = {null};
            driver.atMeasureStart(() -> measured[0] = ModeReport.Start.of(db, log.wal(), partitioned));
            DriverResult result;
            if (crash != null) {
                crash.start();
            }
            try {
                if (checkpointEvery != null) {
                    Checkpointer checkpointer = new Checkpointer(db, tpcc.dataDir, log.wal(), stored,
                        checkpointEvery.toNanos(), progress, driver::stop);
                    checkpointer.start();
                    try (checkpointer) {
                        result = runDriver(driver, log.wal());
                    }
                } else {
                    result = runDriver(driver, log.wal());
                }
            } finally {
                if (crash != null) {
                    crash.close(); // a crash not due yet does not happen
                }
            }
            if (crash != null) {
                if (crash.crashed()) {
                    out.println(db.recoverCrashedNode(crashNode).describe());
                } else {
                    err.println("warning: the run ended before --crash-after: compute node " + crashNode + " did not crash");
                }
            }
            TpccReport.print(out, result);
            log.report(out, (run.durationNanos() + run.warmupNanos()) / 1e9);
            ModeReport modeReport = ModeReport.of(db, log.wal(), partitioned, mode, distribution,
                measured[0] != null ? measured[0] : ModeReport.Start.of(db, log.wal(), partitioned), result.committed());
            if (partitioned != null) {
                partitioned.close(); // every branch ended: the check reads a quiet database
            }
            modeReport.print(out);
            remember(result, modeReport, cluster, log.wal() == null ? 0 : log.wal().counters().forces());
            CheckReport check = tpcc.check ? TpccSetup.check(db, tpcc.warehouses, out, partitions) : null;
            writeReports(run, result, cluster, check, json -> {
                log.json(json);
                modeReport.json(json);
            }, out);
            if (stored != null) {
                if (partitioned != null) {
                    partitioned.closeAndRemoveLogs(); // before the checkpoint truncates the commit logs: see there
                }
                DataDir.checkpoint(db, tpcc.dataDir, log.wal(), stored, out);
                checkpointed[0] = true;
            }
            return exitCode(result, check, cluster, out, err);
        }
    }

    /**
     * The cluster settings of a run whose terminals sit as {@code --terminals} and {@code --placement} say:
     * a node's local concurrency (the lease's thread count, the cache's minimum) is its busiest node's
     * terminals. {@code --threads} is the loaders' (tpcc load): a run refuses it, naming the flag it means.
     */
    private ClusterSettings terminalSettings(ClusterSettings cluster, boolean partitionedMode) {
        picocli.CommandLine cl = spec.commandLine();
        Flags.require(!cl.getParseResult().hasMatchedOption("--threads"), cl, "--threads", cluster.threads(),
            "is not a tpcc run flag: terminals are placed per warehouse, use --terminals N (per warehouse)");
        Flags.require(terminalsPerWarehouse >= 1, cl, "--terminals", terminalsPerWarehouse, "must be >= 1");
        try {
            tpcc.lockWait = io.selcc.engine.cc.LockWaitPolicy.byName(lockWait);
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--lock-wait", lockWait, "is no-wait or wait-die");
        }
        if (tpcc.lockWait != io.selcc.engine.cc.LockWaitPolicy.NO_WAIT) {
            Flags.require("2pl".equals(tpcc.cc), cl, "--lock-wait", lockWait, "applies to --cc 2pl only");
            Flags.require(!partitionedMode, cl, "--lock-wait", lockWait,
                "is not offered in partitioned mode (each 2PC branch would draw its own age)");
        }
        Flags.require(terminalsPerWarehouse <= MAX_TERMINALS_PER_WAREHOUSE, cl, "--terminals", terminalsPerWarehouse,
            "at most " + MAX_TERMINALS_PER_WAREHOUSE + " per warehouse");
        Flags.require(placement == io.selcc.tpcc.driver.TerminalPlacement.Placement.HOME
                || (!partitionedMode && distribution == null), cl, "--placement", placement.label(),
            "partitioned mode and --distribution run each terminal on its warehouse's node: use home");
        io.selcc.tpcc.driver.TerminalPlacement terminals = io.selcc.tpcc.driver.TerminalPlacement.of(tpcc.warehouses,
            terminalsPerWarehouse, cluster.computeNodes(), placement);
        int busiest = terminals.busiestNode();
        Flags.require(busiest <= MAX_TERMINALS_PER_NODE, cl, "--terminals", terminalsPerWarehouse,
            "puts " + busiest + " terminals on one compute node; at most " + MAX_TERMINALS_PER_NODE
                + " (each holds a cache's worth of latches): fewer per warehouse, or more --compute-nodes");
        totalTerminals = terminals.terminals().size();
        long needed = (long) TpccSetup.MIN_CACHE_FRAMES_PER_TERMINAL * busiest;
        int frames = cl.getParseResult().hasMatchedOption("--cache") ? cluster.cacheFrames()
            : (int) Math.min(Integer.MAX_VALUE, Math.max(cluster.cacheFrames(), needed)); // the default grows to fit
        Flags.require(frames >= needed, cl, "--cache", cluster.cacheFrames() + " frames",
            "TPC-C needs at least " + TpccSetup.MIN_CACHE_FRAMES_PER_TERMINAL + " frames per terminal (" + busiest
                + " on the busiest compute node = " + needed + "): a transaction holds latches on up to a few hundred pages");
        return cluster.withThreads(Math.max(1, busiest), frames);
    }

    /** The settings the load before a run uses: the loaders' threads (one per node), not the terminals'. */
    private ClusterSettings loaders(ClusterSettings cluster) {
        return cluster.withThreads(clusterOptions.threads(), cluster.cacheFrames());
    }

    /** Keeps the run's figures for {@code tpcc compare}. */
    private void remember(DriverResult result, ModeReport modeReport, ClusterSettings cluster, long walForces) {
        lastResult = result;
        lastMode = modeReport;
        lastCluster = cluster;
        lastWalForces = walForces;
    }

    /** {@code --json} (the report with {@code extra} fields) and {@code --csv}, as asked. */
    private void writeReports(RunSettings run, DriverResult result, ClusterSettings cluster, CheckReport check,
                              java.util.function.Consumer<io.selcc.cli.JsonWriter> extra, PrintWriter out) {
        if (run.json() != null) {
            JsonFile.write(run.json(), TpccReport.json(result, cluster, tpcc, check, extra));
            out.println("wrote " + run.json());
        }
        if (run.csv() != null) {
            io.selcc.cli.CsvFile.append(run.csv(), TpccReport.CSV_HEADER, TpccReport.csvRows(result, cluster, tpcc, mode, wal));
            out.println("appended to " + run.csv());
        }
    }

    /** 1 if the run stopped early on full shared memory (said on err) or a check failed, else 0. */
    private int exitCode(DriverResult result, CheckReport check, ClusterSettings cluster, PrintWriter out,
                         PrintWriter err) {
        out.flush();
        if (result.sharedMemoryFull()) {
            // Stopped early, the results above cover the run until then; what committed is in the database.
            err.printf(Locale.ROOT, "selcc: shared memory is full: the run stopped after %.1f s of measurement;"
                + " raise --memory (now %s per memory node)%n", result.seconds(),
                TpccSetup.mebibytes(TpccSetup.memoryPerNode(cluster, tpcc)));
            err.flush();
            return 1;
        }
        return check == null || check.passed() ? 0 : 1;
    }

    /**
     * What compute nodes as processes ({@code --cluster}) do not run yet, and {@code --log-dir}'s rules.
     * ({@code --fabric tcp} with one of those keeps the compute nodes in this process instead.)
     */
    private void processChecks(ClusterSettings early, boolean partitionedMode) {
        if (early.separateProcesses()) {
            String why = inOneProcessBecause(partitionedMode);
            Flags.require(why == null, spec.commandLine(), "--cluster", early.clusterMap(),
                "compute nodes as processes do not run " + why + " yet");
            Flags.require(logDir != null || "off".equalsIgnoreCase(wal), spec.commandLine(), "--wal", wal,
                "with --cluster needs --log-dir: a directory every compute node's process can read (a survivor"
                    + " restores a dead node's commits from its log)");
        } else {
            Flags.require(logDir == null, spec.commandLine(), "--log-dir", logDir, "only with --cluster");
        }
        if (logDir != null) {
            Flags.require(!"off".equalsIgnoreCase(wal), spec.commandLine(), "--log-dir", logDir,
                "needs a log (--wal async or sync)");
        }
    }

    /** Why this run keeps its compute nodes in one process (a flag processes do not run yet), or null. */
    private String inOneProcessBecause(boolean partitionedMode) {
        if (partitionedMode) {
            return "--mode partitioned";
        }
        if (tpcc.dataDir != null) {
            return "--data-dir";
        }
        if (crashNode != null) {
            return "--crash-node (kill the process instead)";
        }
        return null;
    }

    /** With {@code --fabric tcp}: whether each compute node runs as a process of its own. */
    private boolean eachNodeAProcess() {
        return inOneProcessBecause(!"shared".equals(mode)) == null;
    }

    /**
     * With a data directory: the mode is the directory's (its checkpoint says whether it holds one table set
     * or one per compute node); a --mode given that differs is refused. A directory without a readable
     * checkpoint is left to {@link DataDir#forRecovery}, which names what is wrong with it.
     */
    private void modeOfDataDir() {
        if (tpcc.dataDir == null) {
            return;
        }
        String kept = DataDir.storedMode(tpcc.dataDir);
        if (kept == null || kept.equals(mode) || !java.util.List.of("shared", "partitioned").contains(mode)) {
            // (A --mode that is neither is refused as such by modeChecks.)
            return;
        }
        Flags.require(!spec.commandLine().getParseResult().hasMatchedOption("--mode"), spec.commandLine(), "--mode", mode,
            "differs from the " + kept + " database " + tpcc.dataDir + " holds (leave it out with --data-dir;"
                + " a database's mode is chosen by tpcc load --mode)");
        mode = kept;
    }

    /** Checks --mode and --distribution against the cluster; whether the mode is partitioned. */
    private boolean modeChecks(ClusterSettings early) {
        boolean partitionedMode = switch (mode) {
            case "shared" -> false;
            case "partitioned" -> true;
            default -> throw Flags.invalid(spec.commandLine(), "--mode", mode, "must be shared or partitioned");
        };
        if (distribution != null) {
            Flags.require(distribution >= 0 && distribution <= 100, spec.commandLine(), "--distribution", distribution,
                "must be a percentage, 0-100");
            Flags.require(distribution == 0 || early.computeNodes() >= 2, spec.commandLine(), "--distribution",
                distribution, "needs two or more compute nodes (--compute-nodes) to cross between");
        }
        if (partitionedMode) {
            Flags.require("2pl".equals(tpcc.cc), spec.commandLine(), "--mode", mode,
                "runs --cc 2pl only (a read-only branch releases at prepare; OCC and TO branches would validate"
                    + " at different moments), not " + tpcc.cc);
            Flags.require(checkpointEvery == null, spec.commandLine(), "--mode", mode,
                "does not checkpoint while its terminals run (--checkpoint-every): its two-phase-commit logs are not"
                    + " truncated with the commit logs; it checkpoints at the end");
            Flags.require(crashNode == null, spec.commandLine(), "--mode", mode, "cannot be combined with --crash-node");
        }
        return partitionedMode;
    }

    /** The checks that need the warehouse count (a data directory's, once it was read). */
    private void warehouseChecks(ClusterSettings cluster, boolean partitionedMode) {
        if (distribution != null) {
            Flags.require(tpcc.warehouses >= cluster.computeNodes(), spec.commandLine(), "--distribution", distribution,
                "needs a warehouse per compute node: --warehouses " + tpcc.warehouses + " < --compute-nodes "
                    + cluster.computeNodes());
        }
        if (partitionedMode) {
            Flags.require(tpcc.warehouses >= cluster.computeNodes(), spec.commandLine(), "--mode", mode,
                "needs a warehouse per compute node: --compute-nodes " + cluster.computeNodes() + " > --warehouses "
                    + tpcc.warehouses);
        }
    }

    // ---------------------------------------------------------------- compute nodes as processes

    /**
     * {@code --fabric tcp}: starts the memory nodes and compute nodes 1..N-1 as processes on localhost
     * (with a temporary shared log directory when logging) and runs as compute node 0.
     */
    private Integer launchProcesses(ClusterSettings cluster, RunSettings run, DriverConfig config, Mix weights,
                                    PrintWriter out, PrintWriter err) throws InterruptedException {
        java.util.List<String> args = new java.util.ArrayList<>(spec.commandLine().getParseResult().originalArgs());
        int at = args.indexOf("run");
        args = new java.util.ArrayList<>(args.subList(at + 1, args.size()));
        java.nio.file.Path temporaryLogs = null;
        if (!"off".equalsIgnoreCase(wal)) {
            try {
                temporaryLogs = java.nio.file.Files.createTempDirectory("selcc-wal-");
            } catch (java.io.IOException e) {
                throw new io.selcc.cli.CliFailure("cannot create a temporary log directory: " + e.getMessage(), e);
            }
            args.addAll(java.util.List.of("--log-dir", temporaryLogs.toString()));
            logDir = temporaryLogs;
        }
        try (var processes = io.selcc.cli.FabricLauncher.launchCluster(cluster, tpcc.memoryPerNode, args,
            java.util.List.of("tpcc", "run"))) {
            return runAsProcess(cluster.inCluster(processes.map(), 0), run, config, weights, out, err);
        } finally {
            if (temporaryLogs != null) {
                WalSetup.removeDirectory(temporaryLogs);
            }
        }
    }

    /**
     * One compute node of a run whose compute nodes are processes ({@code --cluster FILE --node ID}). Node 0
     * waits for the others, loads, starts its log and sends PREPARE; each other node checks it runs the same
     * workload, opens its node and starts its log (into the shared {@code --log-dir}), and answers; node 0
     * sends GO, every node runs its terminals, the others answer GO with what they measured, node 0 prints
     * the one report of all, runs {@code --check} while the others still answer for their lines, and sends
     * STOP. A node whose process dies meanwhile is fenced and its lines restored from its log (with a log);
     * its results are then missing from the report, which says so.
     */
    private Integer runAsProcess(ClusterSettings cluster, RunSettings run, DriverConfig config, Mix weights,
                                 PrintWriter out, PrintWriter err) throws InterruptedException {
        int me = cluster.node();
        if (me == 0 && logDir != null) {
            Flags.require(WalSetup.emptyOrAbsent(logDir), spec.commandLine(), "--log-dir", logDir,
                "holds files of an earlier run: give an empty directory (a repair would read its logs)");
        }
        WalSetup log;
        try {
            log = WalSetup.open(wal, spec.commandLine(), logDir);
        } catch (java.io.UncheckedIOException e) {
            throw new io.selcc.cli.CliFailure("cannot open the log: " + e.getMessage(), e);
        }
        if (log.wal() != null) {
            log.wal().shareWatermark(); // a commit is acknowledged once every process made the numbers up to it durable
        }
        try (log; Database db = TpccSetup.open(cluster, tpcc, null, 0)) {
            io.selcc.cli.ClusterRun control = io.selcc.cli.ClusterRun.join(db.cluster().fabric().endpoint(me),
                cluster.computeNodes());
            String workload = workload(cluster, config);
            if (me != 0) {
                return member(db, control, log, config, workload, me, out);
            }
            out.printf(Locale.ROOT, "compute node 0 of %d processes: waiting for compute nodes 1-%d%n",
                cluster.processes(), cluster.computeNodes() - 1);
            out.flush();
            control.awaitOthers();
            TpccSetup.load(db, loaders(cluster), tpcc, run.seed(), config.constants(), out, 0);
            if (log.wal() != null) {
                db.startLogging(log.wal()); // writes the load back first: memory is the repairs' base
            }
            log.describe(out);
            control.prepareOthers(workload.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (logDir != null) {
                for (int n = 1; n < cluster.computeNodes(); n++) {
                    java.nio.file.Path theirs = io.selcc.wal.Wal.nodeDirectory(logDir, n);
                    // A repair here reads a dead node's log from this directory: it must be the one the node writes.
                    Flags.require(java.nio.file.Files.isDirectory(theirs), spec.commandLine(), "--log-dir", logDir,
                        "is not shared: compute node " + n + " started its log, but " + theirs + " is not there as"
                            + " compute node 0 sees it (give every process the same directory on a shared file system)");
                }
            }
            db.cluster().resetCounters();
            out.printf("running %s on %d compute node processes for %.1f s after %.1f s of warm-up, mix %s%s%n",
                TpccReport.terminalsLine(config, cluster.computeNodes()), cluster.computeNodes(), run.durationNanos() / 1e9, run.warmupNanos() / 1e9,
                weights, waitTimes ? ", with keying/think times" : "");
            out.flush();
            io.selcc.fabric.PendingReply[] others = control.go(new byte[0]);
            db.watchPeers(); // a process that dies from here on is fenced and repaired at once
            NodeShare mine = runShare(db, log, config, TpccSetup.printStream(out));
            DriverResult result = mine.result();
            ModeReport modeReport = mine.mode();
            long[] walCounts = mine.walCounts();
            java.util.Set<Integer> gone = new java.util.TreeSet<>();
            for (int i = 0; i < others.length; i++) {
                int node = i + 1;
                byte[] payload;
                try {
                    payload = io.selcc.cli.ClusterRun.awaitResults(others[i]);
                } catch (io.selcc.fabric.NodeFailedException e) {
                    try {
                        db.peerGone(node); // fenced and repaired (here or by another process) before the check reads
                    } catch (IllegalStateException notRepaired) {
                        io.selcc.cli.ClusterRun.failIfAMemoryNodeIsLost(db.cluster(), 0);
                        throw new io.selcc.cli.CliFailure("compute node " + node + "'s process is gone and its lines"
                            + " could not be restored: " + notRepaired.getMessage(), notRepaired);
                    }
                    gone.add(node);
                    err.printf("warning: compute node %d's process died during the run: its terminals' results are"
                        + " missing from the report (counted as 0)%n", node);
                    result = io.selcc.tpcc.driver.DriverResults.merge(result,
                        io.selcc.tpcc.driver.DriverResults.missing(config, cluster.computeNodes(), node));
                    continue;
                }
                NodeShare theirs = NodeShare.decode(payload, config);
                result = io.selcc.tpcc.driver.DriverResults.merge(result, theirs.result());
                modeReport = modeReport.plus(theirs.mode());
                for (int c = 0; c < walCounts.length; c++) {
                    walCounts[c] += theirs.walCounts()[c];
                }
            }
            try {
                for (io.selcc.engine.CrashRecovery.Report repair : db.awaitCrashRepairs()) {
                    if (!mine.after().printed(repair.crashedNode())) {
                        out.println(repair.describe()); // done after this node's terminals stopped
                    }
                }
            } catch (IllegalStateException notRepaired) {
                throw new io.selcc.cli.CliFailure(notRepaired.getMessage(), notRepaired);
            }
            String afterRepair = mine.after().line();
            if (afterRepair != null) {
                out.println(afterRepair);
            }
            modeReport = modeReport.committing(result.committed());
            TpccReport.print(out, result);
            log.report(out, (run.durationNanos() + run.warmupNanos()) / 1e9, walCounts);
            modeReport.print(out);
            remember(result, modeReport, cluster, walCounts[1]);
            // While the others still answer for the lines they hold.
            CheckReport check = tpcc.check ? TpccSetup.check(db, tpcc.warehouses, out, 0) : null;
            ModeReport reportedMode = modeReport;
            writeReports(run, result, cluster, check, json -> {
                log.json(json, walCounts);
                reportedMode.json(json);
                json.field("computeNodesLost", gone.size());
                mine.after().json(json);
            }, out);
            db.stopWatchingPeers(); // the others stop now: their connections close in order
            control.stopOthers(gone);
            return exitCode(result, check, cluster, out, err);
        }
    }

    /** A compute node other than 0: see {@link #runAsProcess}. */
    private Integer member(Database db, io.selcc.cli.ClusterRun control, WalSetup log, DriverConfig config,
                           String workload, int me, PrintWriter out) throws InterruptedException {
        out.printf(Locale.ROOT, "compute node %d: joining compute node 0%n", me);
        out.flush();
        control.sayReady();
        io.selcc.cli.ClusterRun.Request prepare = control.awaitPrepare();
        String theirs = new String(prepare.payload(), java.nio.charset.StandardCharsets.UTF_8);
        if (!theirs.equals(workload)) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "compute node 0 runs another workload:"
                + " its flags give '" + theirs + "', this node's '" + workload + "' (start every process with the same flags)");
        }
        db.node(me); // finds the tables node 0 loaded
        if (log.wal() != null) {
            db.startLogging(log.wal());
        }
        prepare.prepared(new byte[0]);
        io.selcc.cli.ClusterRun.GoRequest go = control.awaitGo();
        db.cluster().resetCounters();
        db.watchPeers(); // a process that dies from here on is fenced and repaired at once
        NodeShare mine = runShare(db, log, config, TpccSetup.printStream(out));
        db.stopWatchingPeers(); // node 0 stops the run: the processes leave in order from here on
        go.done(mine.encode());
        var stop = control.awaitStop();
        io.selcc.cli.ClusterRun.acknowledge(stop);
        out.printf(Locale.ROOT, "compute node %d: %,d transactions in %.2f s sent to compute node 0, which reports the run%n",
            me, mine.result().committed(), mine.result().seconds());
        out.flush();
        return 0;
    }

    /** Runs this process's terminals; its results, mode counters and log counters. */
    private NodeShare runShare(Database db, WalSetup log, DriverConfig config, java.io.PrintStream progress)
        throws InterruptedException {
        TpccDriver driver = new TpccDriver(db, config, progress);
        if (log.forces()) {
            driver.reportDurableNewOrders();
        }
        ModeReport.Start[] measured = {null};
        driver.atMeasureStart(() -> measured[0] = ModeReport.Start.of(db, log.wal(), null));
        AfterRepair after = AfterRepair.watch(db, driver, progress);
        DriverResult result;
        try {
            result = runDriver(driver, log.wal());
        } catch (IllegalStateException e) {
            throw lostPeer(db, e);
        }
        ModeReport mode = ModeReport.of(db, log.wal(), null, this.mode, distribution,
            measured[0] != null ? measured[0] : ModeReport.Start.of(db, log.wal(), null), result.committed());
        io.selcc.wal.Wal.Counters c = log.wal() == null ? null : log.wal().counters();
        long[] walCounts = c == null ? new long[3] : new long[] {c.appends(), c.forces(), c.bytes()};
        return new NodeShare(result, mode, walCounts, after);
    }

    /**
     * A run that failed because a compute node's process died and its lines could not be restored (no log):
     * one line naming it; anything else keeps its trace.
     */
    private static RuntimeException lostPeer(Database db, IllegalStateException e) {
        for (int n = 0; n < db.computeNodeCount(); n++) {
            if (!db.cluster().hosts(n) && db.cluster().crashed(n)) {
                io.selcc.cli.ClusterRun.failIfAMemoryNodeIsLost(db.cluster(), db.cluster().liveNode());
                Throwable root = e;
                while (root.getCause() != null && root.getCause() != root
                    && !(root instanceof io.selcc.cache.RepairFailedException)) {
                    root = root.getCause(); // the repair's failure names the node and why; else the deepest cause
                }
                return new io.selcc.cli.CliFailure("compute node " + n + "'s process is gone and the run cannot go on: "
                    + root.getMessage(), e);
            }
        }
        return e;
    }

    /** The flags every process of one run must share (not the node id, cluster file, output or log directory). */
    private String workload(ClusterSettings cs, DriverConfig config) {
        return "cc=" + tpcc.cc + " warehouses=" + tpcc.warehouses + " access=" + cs.access() + " gclSize=" + cs.gclSize()
            + " terminals=" + config.terminalsPerWarehouse() + " placement=" + config.placement().label()
            + " lockWait=" + tpcc.lockWait.cliName()
            + " terminalThreads=" + config.terminalThreads().label() + " cache=" + cs.cacheFrames() + " fairness=" + cs.fairness() + " mix=" + config.mix()
            + " waitTimes=" + config.waitTimes() + " maxAttempts=" + config.retry().maxAttempts() + " wal=" + wal.toLowerCase(Locale.ROOT)
            + " distribution=" + distribution + " duration=" + config.durationNanos() + " warmup=" + config.warmupNanos()
            + " seed=" + config.seed();
    }

    /**
     * What one compute-node process measured, as its DONE payload: the driver's result
     * ({@link io.selcc.tpcc.driver.DriverResults}' bytes), then invalidations, round trips, messages and log
     * forces of the measured interval, then its log's records, forces and bytes (whole run), 7 longs in all.
     * {@code after} (how this process's terminals went on after a repair) stays in its process: null when
     * decoded.
     */
    private record NodeShare(DriverResult result, ModeReport mode, long[] walCounts, AfterRepair after) {
        byte[] encode() {
            io.selcc.fabric.WireWriter w = new io.selcc.fabric.WireWriter();
            w.putBytes(io.selcc.tpcc.driver.DriverResults.encode(result));
            w.putLong(mode.invalidations()).putLong(mode.roundTrips()).putLong(mode.messages()).putLong(mode.walForces());
            for (long c : walCounts) {
                w.putLong(c);
            }
            return w.toByteArray();
        }

        static NodeShare decode(byte[] bytes, DriverConfig config) {
            io.selcc.fabric.WireReader in = new io.selcc.fabric.WireReader(bytes);
            DriverResult result = io.selcc.tpcc.driver.DriverResults.decode(in.getBytes(), config);
            ModeReport mode = new ModeReport("shared", null, result.committed(), in.getLong(), in.getLong(), in.getLong(),
                in.getLong(), null);
            long[] wal = {in.getLong(), in.getLong(), in.getLong()};
            in.expectEnd("DONE");
            return new NodeShare(result, mode, wal, null);
        }
    }

    private DriverResult runDriver(TpccDriver driver, io.selcc.wal.Wal wal) throws InterruptedException {
        try {
            return driver.run();
        } catch (RuntimeException e) {
            throw failureOf(e, tpcc.dataDir, wal);
        }
    }
}
