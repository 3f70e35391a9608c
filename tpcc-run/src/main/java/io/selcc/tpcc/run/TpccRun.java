package io.selcc.tpcc.run;

import io.selcc.engine.CommitLog;
import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.fabric.Fabric;
import io.selcc.fabric.LocalFabric;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.DriverResult;
import io.selcc.tpcc.driver.TerminalPlacement;
import io.selcc.tpcc.driver.TpccDriver;
import io.selcc.twopc.CoordinatorFailedException;
import io.selcc.twopc.PartitionedDatabase;
import io.selcc.wal.Recovery;
import io.selcc.wal.Wal;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A TPC-C run as a library call: {@link #run} loads (or, with a data directory, recovers), drives the
 * terminals for the warm-up and the measured interval, prints progress and the report, checks when
 * asked, checkpoints a kept database, and returns what it measured. {@code tpcc run} is this call with
 * its flags as the spec; a test can make one and assert on the outcome:
 *
 * <pre>{@code
 * RunOutcome outcome = TpccRun.run(RunSpec.builder().cc("occ").duration(Duration.ofSeconds(2)).check(true).build(),
 *     out, err);
 * assertTrue(outcome.passed());
 * }</pre>
 *
 * <p>With each compute node a process of its own ({@link ClusterSpec.Placement#separateProcesses()}),
 * every process calls {@link #run} with the same spec; see {@link ClusterMember}.
 */
public final class TpccRun {
    private TpccRun() {
    }

    /**
     * Runs {@code spec}, printing progress and the report to {@code out} and warnings to {@code err}.
     *
     * @throws InvalidRunException if the spec, or its data directory, refuses the run (nothing was started)
     * @throws RunFailedException  if the run failed for an expected reason (a log that cannot be written, a
     *                             compute node's process lost without a log to restore it from, ...)
     */
    public static RunOutcome run(RunSpec spec, PrintWriter out, PrintWriter err) throws InterruptedException {
        return run(spec, out, err, outcome -> { });
    }

    /**
     * {@link #run(RunSpec, PrintWriter, PrintWriter)}, handing the outcome to {@code measured} as soon as
     * it is final: before a kept database's final checkpoint, so that a report written there survives a
     * checkpoint that fails (a full disk).
     */
    public static RunOutcome run(RunSpec spec, PrintWriter out, PrintWriter err,
                                 java.util.function.Consumer<RunOutcome> measured) throws InterruptedException {
        refuse(spec.validate());
        if (spec.cluster().fabric().separateProcesses()) {
            RunOutcome outcome = new ClusterMember(spec, out, err).run();
            measured.accept(outcome);
            return outcome;
        }
        if (spec.dataDir() == null) {
            return inProcess(spec, null, out, err, measured);
        }
        try (DataDir.Kept kept = DataDir.open(spec.dataDir())) {
            refuseWhatTheDirectorySaysAgainst(spec, kept);
            RunOutcome outcome = inProcess(spec, kept, out, err, measured);
            Recovery.removeLogs(spec.dataDir()); // the log is closed, the final checkpoint covers it
            return outcome;
        }
    }

    /**
     * Loads {@code spec}'s population ({@link RunSpec#warehouses}, its mode's table sets, its seed) with
     * {@link ClusterSpec#loaderThreads} per compute node, checks it when the spec asks, and with a data
     * directory keeps it there for later runs ({@code tpcc load}). With compute nodes as processes, node 0
     * loads into the shared memory nodes once every other node joined, and the others wait until it is done.
     * Whether the checks passed.
     *
     * @throws InvalidRunException if the spec or the directory (not empty, in use) refuses it
     */
    public static boolean load(RunSpec spec, PrintWriter out) {
        refuse(spec.validateLoad());
        long memory = loadMemory(spec, 0);
        DataDir.Held held = spec.dataDir() == null ? null : DataDir.forLoad(spec.dataDir());
        try (Database db = openForLoad(spec, memory)) {
            return ClusterMember.onNodeZero(spec, db, out, () -> TpccDatabases.loadAndKeep(db, spec.warehouses(),
                spec.cluster().loaderThreads(), spec.seed(), spec.partitions(), memory, spec.check(), spec.dataDir(), out));
        } finally {
            if (held != null) {
                held.close();
            }
        }
    }

    /**
     * What checking the database kept in a directory found: the consistency checks' report, the New-Orders
     * committed since the load (count(ORDER) minus the load's), and what recovery did.
     */
    public record KeptCheck(CheckReport report, long ordersSinceLoad, Recovery.Summary recovered) {
    }

    /**
     * Recovers the database kept in {@code spec}'s data directory (its warehouses and mode are the
     * directory's) and runs the twelve consistency conditions and the index check on it ({@code tpcc check
     * --data-dir}), printing what it did.
     *
     * @throws InvalidRunException if the spec has no data directory, or the directory refuses it
     */
    public static KeptCheck check(RunSpec spec, PrintWriter out, PrintWriter err) {
        if (spec.dataDir() == null) {
            throw new InvalidRunException(new RunSpec.Violation("--data-dir", "", "a kept database's check needs one"));
        }
        try (DataDir.Kept kept = DataDir.open(spec.dataDir())) {
            RunSpec its = spec.toBuilder().warehouses(kept.warehouses())
                .mode(DataDir.mode(kept.properties())).build();
            refuse(its.validateLoad());
            long memory = loadMemory(its, kept.recoveredBytes());
            try (Database db = openForLoad(its, memory)) {
                Recovery.Summary recovered = DataDir.recover(db, kept.dir(), out, err);
                CheckReport report = TpccDatabases.check(db, its.warehouses(), kept.partitions(), out);
                return new KeptCheck(report, DataDir.ordersSinceLoad(db, its.warehouses(), kept.partitions()), recovered);
            }
        }
    }

    /**
     * A database for a load or a check: the loaders' threads, the cache as given or the warehouses' default
     * (raised to what the loaders need, as a run's is to what its terminals need).
     */
    private static Database openForLoad(RunSpec spec, long memoryPerNode) {
        int frames = spec.cluster().cacheFrames() > 0 ? spec.cluster().cacheFrames()
            : TpccDatabases.cacheFrames(spec.warehouses(), spec.cluster().loaderThreads());
        return TpccDatabases.open(spec.cluster(), spec.cc(), spec.lockWait(), spec.cluster().loaderThreads(), frames,
            memoryPerNode, spec.partitions());
    }

    /** Refuses a spec with {@code violations}; nothing if there are none. */
    private static void refuse(List<RunSpec.Violation> violations) {
        if (!violations.isEmpty()) {
            throw new InvalidRunException(violations);
        }
    }

    /** Shared memory per memory node of a load or a check: the spec's, or the population's default. */
    private static long loadMemory(RunSpec spec, long recoveredBytes) {
        return spec.memoryPerNode() > 0 ? spec.memoryPerNode()
            : TpccDatabases.memoryPerNode(spec.cluster(), spec.warehouses(), recoveredBytes);
    }

    /** A spec whose warehouses or mode differ from the kept database's. */
    private static void refuseWhatTheDirectorySaysAgainst(RunSpec spec, DataDir.Kept kept) {
        for (RunSpec.Violation differing : new RunSpec.Violation[] {
            DataDir.differingWarehouses(kept.dir(), kept.properties(), spec.warehouses()),
            DataDir.differingMode(kept.dir(), kept.properties(), spec.mode())}) {
            if (differing != null) {
                throw new InvalidRunException(differing);
            }
        }
        if (spec.partitioned() && kept.partitions() != spec.cluster().computeNodes()) {
            throw new InvalidRunException(new RunSpec.Violation("--compute-nodes", spec.cluster().computeNodes(),
                kept.dir() + " holds " + kept.partitions() + " partitions, one per compute node: run it with"
                    + " --compute-nodes " + kept.partitions()));
        }
    }

    /** The driver's configuration: the spec's, with the load's NURand constants and a jittered retry policy. */
    static DriverConfig driverConfig(RunSpec spec, TpccRandom.Constants constants) {
        SplittableRandom jitter = new SplittableRandom(spec.seed() ^ 0x5DEECE66DL);
        RetryPolicy retry = new RetryPolicy(spec.maxAttempts(), 1_000, 1_000_000, () -> {
            synchronized (jitter) {
                return jitter.nextLong();
            }
        });
        return new DriverConfig(spec.warehouses(), spec.terminalsPerWarehouse(), spec.placement(), spec.terminalThreads(),
            spec.duration().toNanos(), spec.warmup().toNanos(), spec.seed(), spec.mix(), spec.waitTimes(), constants,
            retry, spec.distribution().orElse(DriverConfig.SPEC_REMOTE_LINES), activePerNode(spec));
    }

    /**
     * How many of a compute node's terminals run a transaction at once: the spec's, or with
     * {@link RunSpec#AUTO_ACTIVE} one when there are at least as many compute nodes as cores that run
     * terminals, the run is shared, its terminals at home, and every node in this JVM with no latency model
     * and no log; unlimited otherwise. With nothing but the cores to wait for, transactions beyond the cores add
     * conflicts, not work (docs/decisions.md, "A compute node's terminals take turns"); a run that waits on
     * round trips or forces needs many in flight, and partitioned and spread runs were not measured with
     * turns (a partitioned transaction holds its turn while other partitions' branches run).
     */
    public static int activePerNode(RunSpec spec) {
        return activePerNode(spec, spec.terminalThreads() == DriverConfig.TerminalThreads.VIRTUAL
            ? RunReport.virtualCarriers() : Runtime.getRuntime().availableProcessors());
    }

    /** {@link #activePerNode(RunSpec)} on a machine with {@code cores} threads to run terminals. */
    static int activePerNode(RunSpec spec, int cores) {
        if (spec.activePerNode() != RunSpec.AUTO_ACTIVE) {
            return spec.activePerNode();
        }
        ClusterSpec cluster = spec.cluster();
        if (cluster.fabric().source() != null || cluster.fabric().separateProcesses() || !cluster.latency().isOff()
            || spec.log() != RunSpec.LogMode.OFF || spec.partitioned()
            || spec.placement() != TerminalPlacement.Placement.HOME) {
            return DriverConfig.UNLIMITED;
        }
        // One turn each, and only where the nodes at least match the carriers: a node with two turns or more
        // (one node on two cores) ran at 0.54-0.68x of its unlimited throughput, one turn alone at 0.3x. A turn
        // handed to a queued terminal while another carrier idles wakes that carrier, and a turn holder parked on
        // a latch another holder keeps leaves its carrier idle (docs/decisions.md).
        return cluster.computeNodes() >= cores ? 1 : DriverConfig.UNLIMITED;
    }

    /**
     * Shared memory per memory node of a run on a fresh load: the spec's, or the default for the population
     * and the run's length (what memory nodes started for the run are given).
     */
    public static long memoryPerNode(RunSpec spec) {
        return memoryPerNode(spec, 0);
    }

    /** Shared memory per memory node: the spec's, or the default for the population and the run's length. */
    static long memoryPerNode(RunSpec spec, long recoveredBytes) {
        return spec.memoryPerNode() > 0 ? spec.memoryPerNode() : TpccDatabases.runMemoryPerNode(spec.cluster(),
            spec.warehouses(), recoveredBytes, spec.wholeRun().toNanos() / 1e9);
    }

    /** The database of a run: the terminals' busiest node sets the threads per node and the cache's minimum. */
    static Database open(RunSpec spec, long memoryPerNode) {
        return TpccDatabases.open(spec.cluster(), spec.cc(), spec.lockWait(), Math.max(1, spec.busiestNode()),
            spec.cacheFrames(), memoryPerNode, spec.partitions());
    }

    private static RunOutcome inProcess(RunSpec spec, DataDir.Kept kept, PrintWriter out, PrintWriter err,
                                        java.util.function.Consumer<RunOutcome> measured) throws InterruptedException {
        warnIfCpuBound(spec, err);
        long memoryPerNode = memoryPerNode(spec, kept == null ? 0 : kept.recoveredBytes());
        TpccRandom.Constants constants = kept != null ? kept.constants() : TpccRandom.Constants.random(spec.seed());
        DriverConfig config = driverConfig(spec, constants);
        int partitions = spec.partitions();
        try (RunLog log = RunLog.open(spec.log(), kept == null ? null : Recovery.logDirectory(kept.dir()));
             Database db = open(spec, memoryPerNode)) {
            if (kept != null) {
                DataDir.recover(db, kept.dir(), out, err);
            } else {
                TpccDatabases.load(db, spec.warehouses(), spec.cluster().loaderThreads(), spec.seed(), constants,
                    partitions, memoryPerNode, out);
            }
            if (log.wal() != null) {
                db.startLogging(log.wal()); // after the load or the replay: neither is logged again
            }
            registerForTheRun(spec, db.cluster().fabric(), out);
            log.describe(out);
            CrashAgent crash = spec.crash() == null ? null : crashAgent(spec, db);
            PartitionedDatabase partitioned = spec.partitioned() ? partitioned(db, log, partitions, out) : null;
            try {
                return drive(spec, db, log, config, kept, crash, partitioned, memoryPerNode, out, err, measured);
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
        }
    }

    /**
     * In-JVM memory nodes register the memory the run will insert into, beyond what the load took, before the
     * terminals start, where nothing but the cores bounds the run (no log, no latency model: where commits wait
     * for forces or round trips, a page's first touch is not what a transaction waits for, and long logged runs
     * that a test kills early waited seconds for it), and the report says how much (docs/decisions.md, "Memory
     * nodes register the memory a run will use").
     */
    static void registerForTheRun(RunSpec spec, Fabric memory, PrintWriter out) {
        if (!(memory instanceof LocalFabric fabric)) {
            return; // memory nodes elsewhere (processes): they keep their own memory
        }
        if (spec.log() != RunSpec.LogMode.OFF || !spec.cluster().latency().isOff()) {
            return;
        }
        long bytes = TpccDatabases.registeredForTheRun(spec.cluster(), spec.wholeRun().toNanos() / 1e9,
            Runtime.getRuntime().availableProcessors(), TpccDatabases.physicalMemory());
        if (bytes == 0) {
            return;
        }
        long started = System.nanoTime();
        long registered = fabric.registerAhead(bytes);
        if (registered < 0) {
            out.printf(Locale.ROOT, "memory nodes could not register the run's room (%s each; needs Linux 5.14+"
                + " and native access): its pages are faulted in on first use%n", TpccDatabases.mebibytes(bytes));
        } else {
            out.printf(Locale.ROOT, "memory nodes registered %s for the run's inserts (made resident beyond"
                    + " the loaded data, over %d memory node(s)) in %.1f s%n", TpccDatabases.mebibytes(registered),
                spec.cluster().memoryNodes(), (System.nanoTime() - started) / 1e9);
        }
    }

    private static void warnIfCpuBound(RunSpec spec, PrintWriter err) {
        int terminals = spec.warehouses() * spec.terminalsPerWarehouse();
        if (spec.terminalThreads() == DriverConfig.TerminalThreads.PLATFORM && !spec.cluster().latency().isOff()
            && spec.cluster().computeNodes() * spec.busiestNode() > Runtime.getRuntime().availableProcessors()) {
            // Virtual terminals yield their carrier while a modelled round trip runs; platform ones spin.
            err.printf("warning: the latency model spins and %d terminals exceed %d processors: figures are CPU-bound%n",
                terminals, Runtime.getRuntime().availableProcessors());
        }
    }

    private static CrashAgent crashAgent(RunSpec spec, Database db) {
        int node = spec.crash().node();
        for (int n = 0; n < db.computeNodeCount(); n++) {
            db.node(n); // a recovered database has opened node 0 only: the survivors must be there
        }
        String refusal = db.crashRefusal(node);
        if (refusal != null) {
            throw new InvalidRunException(new RunSpec.Violation("--crash-node", node, refusal));
        }
        long after = spec.crash().after() != null ? spec.crash().after().toNanos() : spec.wholeRun().toNanos() / 3;
        return new CrashAgent(db, node, after);
    }

    private static PartitionedDatabase partitioned(Database db, RunLog log, int partitions, PrintWriter out) {
        PartitionedDatabase.Builder b = PartitionedDatabase.builder(db);
        if (log.directory() != null) {
            // Beside the commit logs, forced as its commits are: each record with sync, none with async.
            // In a data directory a recovery reads them (in-doubt branches) and removes them with the logs.
            b.logDirectory(log.directory()).forceRecords(log.forces());
        }
        PartitionedDatabase partitioned = b.build();
        out.printf("partitioned mode: %d partitions, warehouse w on compute node (w-1) mod %d; 2PC records %s%n",
            partitions, partitions, log.directory() == null ? "kept in memory (--wal off)"
                : (log.forces() ? "forced into " : "appended (not forced) to ") + log.directory());
        return partitioned;
    }

    /** The terminals' run, its report, the check and a kept database's final checkpoint. */
    private static RunOutcome drive(RunSpec spec, Database db, RunLog log, DriverConfig config, DataDir.Kept kept,
                                    CrashAgent crash, PartitionedDatabase partitioned, long memoryPerNode,
                                    PrintWriter out, PrintWriter err, java.util.function.Consumer<RunOutcome> measured)
        throws InterruptedException {
        db.cluster().resetCounters();
        out.printf("running %s for %.1f s after %.1f s of warm-up, mix %s%s%n",
            RunReport.terminalsLine(config, spec.cluster().computeNodes()), spec.duration().toNanos() / 1e9,
            spec.warmup().toNanos() / 1e9, spec.mix(), spec.waitTimes() ? ", with keying/think times" : "");
        out.flush();
        PrintStream progress = TpccDatabases.printStream(out);
        TpccDriver driver = new TpccDriver(db, config, progress);
        if (log.forces()) {
            driver.reportDurableNewOrders();
        }
        if (partitioned != null) {
            driver.partitioned(new TwoPhaseCommitExecution(partitioned));
        }
        ModeReport.Start[] measureStart = {null};
        driver.atMeasureStart(() -> measureStart[0] = ModeReport.Start.of(db, log.wal(), partitioned));
        DriverResult result;
        if (crash != null) {
            crash.start();
        }
        try {
            if (spec.checkpointEvery() != null) {
                Checkpointer checkpointer = new Checkpointer(db, kept.dir(), log.wal(), kept.properties(),
                    spec.checkpointEvery().toNanos(), progress, driver::stop);
                checkpointer.start();
                try (checkpointer) {
                    result = runDriver(driver, spec, log.wal());
                }
            } else {
                result = runDriver(driver, spec, log.wal());
            }
        } finally {
            if (crash != null) {
                crash.close(); // a crash not due yet does not happen
            }
        }
        if (crash != null) {
            if (crash.crashed()) {
                out.println(db.recoverCrashedNode(spec.crash().node()).describe());
            } else {
                err.println("warning: the run ended before --crash-after: compute node " + spec.crash().node()
                    + " did not crash");
            }
        }
        RunReport.print(out, result);
        log.report(out, spec.wholeRun().toNanos() / 1e9);
        ModeReport modeReport = ModeReport.of(db, log.wal(), partitioned, spec.mode().label(), distribution(spec),
            measureStart[0] != null ? measureStart[0] : ModeReport.Start.of(db, log.wal(), partitioned), result.committed());
        if (partitioned != null) {
            partitioned.close(); // every branch ended: the check reads a quiet database
        }
        modeReport.print(out);
        CheckReport check = spec.check() ? TpccDatabases.check(db, spec.warehouses(), spec.partitions(), out) : null;
        RunOutcome outcome = new RunOutcome(spec, result, modeReport, log.figures(), check, Set.of(), null,
            spec.cacheFrames(), memoryPerNode, true);
        measured.accept(outcome);
        if (kept != null) {
            if (partitioned != null) {
                partitioned.closeAndRemoveLogs(); // before the checkpoint truncates the commit logs: see there
            }
            DataDir.checkpoint(db, kept.dir(), log.wal(), kept.properties(), out);
        }
        return outcome;
    }

    /** The spec's distribution as the mode report names it (null: the spec's remote lines). */
    static Integer distribution(RunSpec spec) {
        return spec.distribution().isPresent() ? spec.distribution().getAsInt() : null;
    }

    static DriverResult runDriver(TpccDriver driver, RunSpec spec, Wal wal) throws InterruptedException {
        try {
            return driver.run();
        } catch (RuntimeException e) {
            throw failureOf(e, spec.dataDir(), wal);
        }
    }

    /**
     * A run that failed because its commit log did (a disk error, a full disk): an expected condition,
     * one line, naming why the log failed ({@code wal}'s failure, when it knows); anything else is a
     * bug and keeps its trace.
     */
    static RuntimeException failureOf(RuntimeException e, java.nio.file.Path dataDir, Wal wal) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CommitLog.NotDurableException || t instanceof TpccDriver.LogFailedException) {
                String why = wal != null && wal.failure() != null ? wal.failure() : t.getMessage();
                return new RunFailedException("the commit log failed, the run stopped: " + why
                    + (dataDir == null ? "" : "; " + dataDir + " keeps every acknowledged transaction"), e);
            }
            if (t instanceof CoordinatorFailedException && t.getCause() != null) {
                // Partitioned mode: a coordinator's two-phase-commit log failed (a disk error, a full disk).
                return new RunFailedException("a two-phase-commit log failed, the run stopped: " + t.getMessage()
                    + (dataDir == null ? "" : "; " + dataDir + " keeps every acknowledged transaction (a recovery"
                        + " settles the transactions left in doubt)"), e);
            }
        }
        return e;
    }

    /** The repairs done during the run, for a report printed after the terminals stopped. */
    static List<CrashRecovery.Report> awaitRepairs(Database db) {
        try {
            return db.awaitCrashRepairs();
        } catch (IllegalStateException notRepaired) {
            throw new RunFailedException(notRepaired.getMessage(), notRepaired);
        }
    }
}
