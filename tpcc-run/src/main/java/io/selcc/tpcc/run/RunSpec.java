package io.selcc.tpcc.run;

import io.selcc.engine.ConcurrencyControls;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.Mix;
import io.selcc.tpcc.driver.TerminalPlacement;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/**
 * Everything a TPC-C run needs, validated in one place ({@link #validate}) so that a test and the
 * command line refuse the same things with the same words. Every setting is named, in a {@link Violation},
 * as {@code tpcc run}'s flag for it. Build one with {@link #builder()}; its defaults are the command's.
 *
 * @param dataDir         a database kept in a directory (loaded by {@code tpcc load --data-dir}): the run
 *                        recovers it, logs into it and checkpoints it at the end; null: a fresh load in memory
 * @param log             the commit log; with a data directory, there, else in a temporary directory
 * @param distribution    percent of New-Orders with one line from another compute node's warehouse (the
 *                        others all local); empty: the spec's 1% remote lines
 * @param checkpointEvery with a data directory: a checkpoint every interval while the terminals run; null: at
 *                        the end only
 * @param crash           a compute node to crash during the run (fault test); null: none
 * @param memoryPerNode   shared memory per memory node in bytes; 0: twice the population plus room for the run
 * @param logDir          with compute nodes as processes and a log: the directory every process logs into;
 *                        null otherwise
 * @param activePerNode   at most this many of a compute node's terminals run a transaction at once, the others
 *                        queue ({@link DriverConfig#activePerNode}); {@link #AUTO_ACTIVE}: one when nothing
 *                        but the cores bounds the run and the nodes are at least as many, else unlimited
 *                        ({@link TpccRun#activePerNode}); {@link DriverConfig#UNLIMITED}: every terminal runs
 */
public record RunSpec(String cc, int warehouses, Mode mode, LogMode log, Path dataDir, boolean check,
                      ClusterSpec cluster, int terminalsPerWarehouse, TerminalPlacement.Placement placement,
                      DriverConfig.TerminalThreads terminalThreads, LockWaitPolicy lockWait, Duration duration,
                      Duration warmup, long seed, Mix mix, boolean waitTimes, int maxAttempts, OptionalInt distribution,
                      Duration checkpointEvery, CrashPlan crash, long memoryPerNode, Path logDir,
                      int activePerNode) {

    /** {@link #activePerNode} chosen by the run ({@link TpccRun#activePerNode}). */
    public static final int AUTO_ACTIVE = -1;

    /** Terminals per warehouse a run takes at most (each terminal is a thread with its own per-thread state). */
    public static final int MAX_TERMINALS_PER_WAREHOUSE = 1000;
    /** Terminals one compute node runs at most (each needs its frames: the cache grows with them). */
    public static final int MAX_TERMINALS_PER_NODE = 10_000;
    /** The least shared memory per memory node a run is given. */
    public static final long MIN_MEMORY_BYTES = 64L << 20;

    /** Fully shared (every node through its SELCC cache) or partitioned (a table set per node, 2PC). */
    public enum Mode {
        SHARED, PARTITIONED;

        /** The name the command line and the reports use. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The commit log: none, appended before a commit is acknowledged (a killed process loses nothing
     * acknowledged), or forced before (one force covers every commit waiting then).
     */
    public enum LogMode {
        OFF, ASYNC, SYNC;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Crash compute node {@code node} abruptly {@code after} the warm-up starts (null: a third of warm-up and run). */
    public record CrashPlan(int node, Duration after) {
    }

    /** A setting the run refuses: the flag that sets it, the value given, and why. */
    public record Violation(String flag, Object value, String problem) {
        @Override
        public String toString() {
            return flag + " " + value + ": " + problem;
        }
    }

    public RunSpec {
        java.util.Objects.requireNonNull(cc, "cc");
        java.util.Objects.requireNonNull(mode, "mode");
        java.util.Objects.requireNonNull(log, "log");
        java.util.Objects.requireNonNull(cluster, "cluster");
        java.util.Objects.requireNonNull(placement, "placement");
        java.util.Objects.requireNonNull(terminalThreads, "terminalThreads");
        java.util.Objects.requireNonNull(lockWait, "lockWait");
        java.util.Objects.requireNonNull(duration, "duration");
        java.util.Objects.requireNonNull(warmup, "warmup");
        java.util.Objects.requireNonNull(mix, "mix");
        java.util.Objects.requireNonNull(distribution, "distribution");
    }

    /** Whether the run has one table set per compute node, with two-phase commit between them. */
    public boolean partitioned() {
        return mode == Mode.PARTITIONED;
    }

    /** Table sets: one per compute node in partitioned mode, else 0 (one shared set). */
    public int partitions() {
        return partitioned() ? cluster.computeNodes() : 0;
    }

    /** Warm-up and measured interval. */
    public Duration wholeRun() {
        return warmup.plus(duration);
    }

    /** This spec with {@code mode} and {@code distribution} (what {@code tpcc compare} varies). */
    public RunSpec with(Mode mode, OptionalInt distribution) {
        return toBuilder().mode(mode).distribution(distribution).build();
    }

    /** This spec with a data directory ({@code null}: none) and its log mode. */
    public RunSpec withDataDir(Path dataDir, LogMode log) {
        return toBuilder().dataDir(dataDir).log(log).build();
    }

    /** This spec with another cluster (access mode, latency model, ...). */
    public RunSpec withCluster(ClusterSpec cluster) {
        return toBuilder().cluster(cluster).build();
    }

    /** This spec with {@code cc}. */
    public RunSpec withCc(String cc) {
        return toBuilder().cc(cc).build();
    }

    /**
     * Every setting the run refuses (empty: it can start). What only the data directory can tell (its
     * warehouses and mode) is checked when the run opens it.
     */
    public List<Violation> validate() {
        List<Violation> v = new ArrayList<>();
        populationChecks(v);
        check(v, !duration.isZero() && !duration.isNegative(), "--duration", duration, "must be > 0");
        check(v, !warmup.isNegative(), "--warmup", warmup, "must be >= 0");
        modeChecks(v);
        processChecks(v);
        if (checkpointEvery != null) {
            check(v, dataDir != null, "--checkpoint-every", checkpointEvery, "needs --data-dir");
            check(v, !checkpointEvery.isZero() && !checkpointEvery.isNegative(), "--checkpoint-every", checkpointEvery,
                "must be > 0");
            // A checkpoint taken while transactions run is consistent only with the log replayed after it.
            check(v, log != LogMode.OFF, "--checkpoint-every", checkpointEvery, "needs a log (--wal async or sync)");
        }
        terminalChecks(v);
        warehouseChecks(v);
        if (crash != null) {
            check(v, crash.after() == null || !crash.after().isNegative(), "--crash-after", crash.after(), "must be >= 0");
            check(v, crash.node() >= 0 && crash.node() < cluster.computeNodes(), "--crash-node", crash.node(),
                "must name one of the " + cluster.computeNodes() + " compute nodes (0-based)");
            check(v, cluster.computeNodes() >= 2, "--crash-node", crash.node(),
                "needs another compute node to repair it (--compute-nodes >= 2)");
            check(v, log != LogMode.OFF, "--crash-node", crash.node(), "needs a log to restore it from (--wal async or sync)");
        }
        check(v, maxAttempts >= 1, "--max-attempts", maxAttempts, "must be >= 1");
        check(v, activePerNode >= AUTO_ACTIVE, "--active-per-node", activePerNode,
            "must be >= 1, auto or unlimited");
        return v;
    }

    /**
     * What a load refuses ({@code TpccRun.load}, {@code tpcc load}): the algorithm, the warehouses, the
     * memory, the cluster, the loaders' cache, a partitioned population without a warehouse per node, a data
     * directory with compute nodes as processes. Empty: it can start.
     */
    public List<Violation> validateLoad() {
        List<Violation> v = new ArrayList<>();
        populationChecks(v);
        long needed = (long) TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL * cluster.loaderThreads();
        check(v, cluster.cacheFrames() == 0 || cluster.cacheFrames() >= needed, "--cache", cluster.cacheFrames()
            + " frames", "TPC-C needs at least " + TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL + " frames per terminal"
            + " (--threads " + cluster.loaderThreads() + " = " + needed + "): a transaction holds latches on up to a few"
            + " hundred pages");
        check(v, !cluster.fabric().separateProcesses() || dataDir == null, "--data-dir", dataDir,
            "is not kept with compute nodes as processes (--cluster) yet");
        check(v, !partitioned() || warehouses >= cluster.computeNodes(), "--mode", mode.label(), "needs a warehouse per"
            + " compute node: --compute-nodes " + cluster.computeNodes() + " > --warehouses " + warehouses);
        return v;
    }

    /** The algorithm, the warehouses, the memory and the cluster: what a load and a run both need. */
    private void populationChecks(List<Violation> v) {
        check(v, ConcurrencyControls.available().contains(cc), "--cc", cc,
            "unknown concurrency control; available: " + ConcurrencyControls.available());
        check(v, warehouses >= 1 && warehouses <= TpccSchema.MAX_WAREHOUSES, "--warehouses", warehouses,
            "must be in [1, " + TpccSchema.MAX_WAREHOUSES + "]");
        check(v, memoryPerNode == 0 || memoryPerNode >= MIN_MEMORY_BYTES, "--memory", memoryPerNode + " bytes",
            "must be at least 64MiB");
        String nodes = io.selcc.cache.SelccCluster.computeNodesProblem(cluster.computeNodes());
        check(v, nodes == null, "--compute-nodes", cluster.computeNodes(), nodes);
        String memoryNodes = io.selcc.cache.SelccCluster.memoryNodesProblem(cluster.memoryNodes());
        check(v, memoryNodes == null, "--memory-nodes", cluster.memoryNodes(), memoryNodes);
        String gcl = io.selcc.cache.SelccCluster.gclSizeProblem(cluster.gclSize());
        check(v, gcl == null, "--gcl-size", cluster.gclSize(), gcl);
        check(v, cluster.loaderThreads() >= 1, "--threads", cluster.loaderThreads(), "must be >= 1");
        check(v, cluster.cacheFrames() >= 0, "--cache", cluster.cacheFrames(), "must be >= 0 (0: the default)");
        check(v, cluster.rttNanos() >= 0, "--rtt", cluster.rttNanos() + "ns", "must be >= 0");
        check(v, Double.isFinite(cluster.gbps()) && cluster.gbps() >= 0, "--gbps", cluster.gbps(),
            "must be a number >= 0; 0 = unlimited");
    }

    /** --mode and --distribution against the cluster and the warehouses. */
    private void modeChecks(List<Violation> v) {
        if (distribution.isPresent()) {
            int share = distribution.getAsInt();
            check(v, share >= 0 && share <= 100, "--distribution", share, "must be a percentage, 0-100");
            check(v, share == 0 || cluster.computeNodes() >= 2, "--distribution", share,
                "needs two or more compute nodes (--compute-nodes) to cross between");
        }
        if (partitioned()) {
            check(v, "2pl".equals(cc), "--mode", mode.label(), "runs --cc 2pl only (a read-only branch releases at"
                + " prepare; OCC and TO branches would validate at different moments), not " + cc);
            check(v, checkpointEvery == null, "--mode", mode.label(), "does not checkpoint while its terminals run"
                + " (--checkpoint-every): its two-phase-commit logs are not truncated with the commit logs; it"
                + " checkpoints at the end");
            check(v, crash == null, "--mode", mode.label(), "cannot be combined with --crash-node");
        }
    }

    /** What needs a warehouse per compute node: a cross-partition share, partitioned mode. */
    private void warehouseChecks(List<Violation> v) {
        distribution.ifPresent(share -> check(v, warehouses >= cluster.computeNodes(), "--distribution", share,
            "needs a warehouse per compute node: --warehouses " + warehouses + " < --compute-nodes "
                + cluster.computeNodes()));
        check(v, !partitioned() || warehouses >= cluster.computeNodes(), "--mode", mode.label(), "needs a warehouse per"
            + " compute node: --compute-nodes " + cluster.computeNodes() + " > --warehouses " + warehouses);
    }

    /** What compute nodes as processes do not run yet, and the shared log directory's rules. */
    private void processChecks(List<Violation> v) {
        if (cluster.fabric().separateProcesses()) {
            String why = inOneProcessBecause();
            check(v, why == null, "--cluster", "", "compute nodes as processes do not run " + why + " yet");
            check(v, logDir != null || log == LogMode.OFF, "--wal", log.label(), "with --cluster needs --log-dir: a"
                + " directory every compute node's process can read (a survivor restores a dead node's commits from its log)");
        } else {
            check(v, logDir == null, "--log-dir", logDir, "only with --cluster");
        }
        if (logDir != null) {
            check(v, log != LogMode.OFF, "--log-dir", logDir, "needs a log (--wal async or sync)");
        }
    }

    /**
     * Why this run keeps its compute nodes in one process (a setting that processes do not run yet), or
     * null: it can run each compute node as a process of its own.
     */
    public String inOneProcessBecause() {
        if (partitioned()) {
            return "--mode partitioned";
        }
        if (dataDir != null) {
            return "--data-dir";
        }
        if (crash != null) {
            return "--crash-node (kill the process instead)";
        }
        return null;
    }

    /** --terminals, --placement, --lock-wait and the cache the terminals need. */
    private void terminalChecks(List<Violation> v) {
        check(v, terminalsPerWarehouse >= 1, "--terminals", terminalsPerWarehouse, "must be >= 1");
        check(v, terminalsPerWarehouse <= MAX_TERMINALS_PER_WAREHOUSE, "--terminals", terminalsPerWarehouse,
            "at most " + MAX_TERMINALS_PER_WAREHOUSE + " per warehouse");
        if (lockWait != LockWaitPolicy.NO_WAIT) {
            check(v, "2pl".equals(cc), "--lock-wait", lockWait.cliName(), "applies to --cc 2pl only");
            check(v, !partitioned(), "--lock-wait", lockWait.cliName(),
                "is not offered in partitioned mode (each 2PC branch would draw its own age)");
        }
        check(v, placement == TerminalPlacement.Placement.HOME || (!partitioned() && distribution.isEmpty()),
            "--placement", placement.label(), "partitioned mode and --distribution run each terminal on its"
                + " warehouse's node: use home");
        if (terminalsPerWarehouse < 1 || terminalsPerWarehouse > MAX_TERMINALS_PER_WAREHOUSE || warehouses < 1
            || warehouses > TpccSchema.MAX_WAREHOUSES
            || io.selcc.cache.SelccCluster.computeNodesProblem(cluster.computeNodes()) != null) {
            return; // the placement below needs sane counts
        }
        int busiest = busiestNode();
        check(v, busiest <= MAX_TERMINALS_PER_NODE, "--terminals", terminalsPerWarehouse, "puts " + busiest
            + " terminals on one compute node; at most " + MAX_TERMINALS_PER_NODE + " (each holds a cache's worth of"
            + " latches): fewer per warehouse, or more --compute-nodes");
        long needed = (long) TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL * busiest;
        check(v, cluster.cacheFrames() == 0 || cluster.cacheFrames() >= needed, "--cache",
            cluster.cacheFrames() + " frames", "TPC-C needs at least " + TpccDatabases.MIN_CACHE_FRAMES_PER_TERMINAL
                + " frames per terminal (" + busiest + " on the busiest compute node = " + needed + "): a transaction"
                + " holds latches on up to a few hundred pages");
    }

    /** Terminals on the compute node that runs the most. */
    int busiestNode() {
        return TerminalPlacement.of(warehouses, terminalsPerWarehouse, cluster.computeNodes(), placement).busiestNode();
    }

    /** Cache frames per compute node: as given, or the default raised to what the busiest node's terminals need. */
    int cacheFrames() {
        if (cluster.cacheFrames() > 0) {
            return cluster.cacheFrames();
        }
        return TpccDatabases.cacheFrames(warehouses, busiestNode());
    }

    private static void check(List<Violation> violations, boolean holds, String flag, Object value, String problem) {
        if (!holds) {
            violations.add(new Violation(flag, value, problem));
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.cc = cc;
        b.warehouses = warehouses;
        b.mode = mode;
        b.log = log;
        b.dataDir = dataDir;
        b.check = check;
        b.cluster = cluster;
        b.terminalsPerWarehouse = terminalsPerWarehouse;
        b.placement = placement;
        b.terminalThreads = terminalThreads;
        b.lockWait = lockWait;
        b.duration = duration;
        b.warmup = warmup;
        b.seed = seed;
        b.mix = mix;
        b.waitTimes = waitTimes;
        b.maxAttempts = maxAttempts;
        b.distribution = distribution;
        b.checkpointEvery = checkpointEvery;
        b.crash = crash;
        b.memoryPerNode = memoryPerNode;
        b.logDir = logDir;
        b.activePerNode = activePerNode;
        return b;
    }

    /** A spec with {@code tpcc run}'s defaults: 2PL, one warehouse, two compute nodes in this JVM, 10 s. */
    public static final class Builder {
        private String cc = "2pl";
        private int warehouses = 1;
        private Mode mode = Mode.SHARED;
        private LogMode log = LogMode.OFF;
        private Path dataDir;
        private boolean check;
        private ClusterSpec cluster = ClusterSpec.inProcess(2);
        private int terminalsPerWarehouse = 2;
        private TerminalPlacement.Placement placement = TerminalPlacement.Placement.HOME;
        private DriverConfig.TerminalThreads terminalThreads = DriverConfig.TerminalThreads.VIRTUAL;
        private LockWaitPolicy lockWait = LockWaitPolicy.NO_WAIT;
        private Duration duration = Duration.ofSeconds(10);
        private Duration warmup = Duration.ZERO;
        private long seed = 42;
        private Mix mix = Mix.STANDARD;
        private boolean waitTimes;
        private int maxAttempts = 1000;
        private OptionalInt distribution = OptionalInt.empty();
        private Duration checkpointEvery;
        private CrashPlan crash;
        private long memoryPerNode;
        private Path logDir;
        private int activePerNode = AUTO_ACTIVE;

        private Builder() {
        }

        public Builder cc(String cc) { this.cc = cc; return this; }
        public Builder warehouses(int warehouses) { this.warehouses = warehouses; return this; }
        public Builder mode(Mode mode) { this.mode = mode; return this; }
        public Builder log(LogMode log) { this.log = log; return this; }
        public Builder dataDir(Path dataDir) { this.dataDir = dataDir; return this; }
        public Builder check(boolean check) { this.check = check; return this; }
        public Builder cluster(ClusterSpec cluster) { this.cluster = cluster; return this; }
        public Builder terminalsPerWarehouse(int n) { this.terminalsPerWarehouse = n; return this; }
        public Builder placement(TerminalPlacement.Placement placement) { this.placement = placement; return this; }
        public Builder terminalThreads(DriverConfig.TerminalThreads threads) { this.terminalThreads = threads; return this; }
        public Builder lockWait(LockWaitPolicy lockWait) { this.lockWait = lockWait; return this; }
        public Builder duration(Duration duration) { this.duration = duration; return this; }
        public Builder warmup(Duration warmup) { this.warmup = warmup; return this; }
        public Builder seed(long seed) { this.seed = seed; return this; }
        public Builder mix(Mix mix) { this.mix = mix; return this; }
        public Builder waitTimes(boolean waitTimes) { this.waitTimes = waitTimes; return this; }
        public Builder maxAttempts(int maxAttempts) { this.maxAttempts = maxAttempts; return this; }
        public Builder distribution(OptionalInt distribution) { this.distribution = distribution; return this; }
        public Builder checkpointEvery(Duration interval) { this.checkpointEvery = interval; return this; }
        public Builder crash(CrashPlan crash) { this.crash = crash; return this; }
        public Builder memoryPerNode(long bytes) { this.memoryPerNode = bytes; return this; }
        public Builder logDir(Path logDir) { this.logDir = logDir; return this; }
        public Builder activePerNode(int n) { this.activePerNode = n; return this; }

        /**
         * Runs the database kept in {@code dir} as {@code tpcc run --data-dir} does: its warehouses and its
         * mode (one table set per compute node: partitioned), logged with sync; a directory without a
         * readable checkpoint is refused when the run opens it.
         */
        public Builder keptDatabase(Path dir) {
            this.dataDir = dir;
            this.log = LogMode.SYNC;
            java.util.Map<String, String> kept = DataDir.peek(dir);
            if (kept != null) {
                this.warehouses = Integer.parseInt(kept.get(DataDir.WAREHOUSES));
                this.mode = DataDir.mode(kept);
            }
            return this;
        }

        public RunSpec build() {
            return new RunSpec(cc, warehouses, mode, log, dataDir, check, cluster, terminalsPerWarehouse, placement,
                terminalThreads, lockWait, duration, warmup, seed, mix, waitTimes, maxAttempts, distribution,
                checkpointEvery, crash, memoryPerNode, logDir, activePerNode);
        }
    }
}
