package io.selcc.tpcc.run;

import io.selcc.cache.RepairFailedException;
import io.selcc.engine.CrashRecovery;
import io.selcc.engine.Database;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import io.selcc.fabric.tcp.ClusterRun;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.DriverResult;
import io.selcc.tpcc.driver.DriverResults;
import io.selcc.tpcc.driver.TpccDriver;
import io.selcc.wal.Wal;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * One compute node of a run whose compute nodes are processes. Node 0 waits for the others, loads,
 * starts its log and sends PREPARE (with the workload, which each other node checks is its own); each
 * other node opens its node and starts its log (into the shared {@link RunSpec#logDir}) and answers;
 * node 0 sends GO, every node runs its terminals, the others answer GO with what they measured, node 0
 * prints the one report of all, runs the check while the others still answer for their lines, and sends
 * STOP. A node whose process dies meanwhile is fenced and its lines restored from its log (with a log);
 * its results are then missing from the report, which says so.
 */
final class ClusterMember {
    private final RunSpec spec;
    private final PrintWriter out;
    private final PrintWriter err;
    private final int me;
    private final int computeNodes;

    ClusterMember(RunSpec spec, PrintWriter out, PrintWriter err) {
        this.spec = spec;
        this.out = out;
        this.err = err;
        this.me = spec.cluster().fabric().node();
        this.computeNodes = spec.cluster().computeNodes();
    }

    RunOutcome run() throws InterruptedException {
        Path logDir = spec.logDir();
        if (me == 0 && logDir != null && !RunLog.emptyOrAbsent(logDir)) {
            throw new InvalidRunException(new RunSpec.Violation("--log-dir", logDir,
                "holds files of an earlier run: give an empty directory (a repair would read its logs)"));
        }
        long memoryPerNode = TpccRun.memoryPerNode(spec, 0);
        DriverConfig config = TpccRun.driverConfig(spec, io.selcc.tpcc.TpccRandom.Constants.random(spec.seed()));
        RunLog log = RunLog.open(spec.log(), logDir);
        if (log.wal() != null) {
            log.wal().shareWatermark(); // a commit is acknowledged once every process made the numbers up to it durable
        }
        try (log; Database db = TpccRun.open(spec, memoryPerNode)) {
            ClusterRun control = ClusterRun.join(db.cluster().fabric().endpoint(me), computeNodes);
            return me == 0 ? coordinate(db, control, log, config, memoryPerNode)
                : member(db, control, log, config, memoryPerNode);
        }
    }

    /**
     * {@code work}'s result. With compute nodes as processes, node 0 does the work once every other node
     * joined and then stops them (it loads into the shared memory nodes and checks from there); another
     * node joins, waits for node 0's STOP and returns true. In one process: the work.
     */
    static boolean onNodeZero(RunSpec spec, Database db, PrintWriter out, java.util.function.BooleanSupplier work) {
        ClusterSpec.Placement where = spec.cluster().fabric();
        if (!where.separateProcesses()) {
            return work.getAsBoolean();
        }
        int computeNodes = spec.cluster().computeNodes();
        ClusterRun control = ClusterRun.join(db.cluster().fabric().endpoint(where.node()), computeNodes);
        try {
            if (where.node() != 0) {
                out.printf(Locale.ROOT, "compute node %d: joining compute node 0, which does the work%n", where.node());
                out.flush();
                control.sayReady();
                ClusterRun.acknowledge(control.awaitStop());
                return true;
            }
            out.printf(Locale.ROOT, "compute node 0 of %d processes: waiting for compute nodes 1-%d%n",
                where.processes(), computeNodes - 1);
            out.flush();
            control.awaitOthers();
            boolean passed = work.getAsBoolean();
            control.stopOthers();
            return passed;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RunFailedException("interrupted while the compute nodes' processes worked together", e);
        }
    }

    /** The flags every process of one run must share: the spec but where this process runs and its output. */
    private String workload() {
        ClusterSpec.Placement anywhere = new ClusterSpec.Placement(spec.cluster().fabric().label(),
            spec.cluster().fabric().processes(), 0, null);
        ClusterSpec cluster = spec.cluster().withFabric(anywhere).withCacheFrames(spec.cacheFrames()); // as it runs
        return spec.toBuilder().cluster(cluster).logDir(null).check(false).memoryPerNode(0).build().toString();
    }

    private RunOutcome coordinate(Database db, ClusterRun control, RunLog log, DriverConfig config, long memoryPerNode)
        throws InterruptedException {
        out.printf(Locale.ROOT, "compute node 0 of %d processes: waiting for compute nodes 1-%d%n",
            spec.cluster().fabric().processes(), computeNodes - 1);
        out.flush();
        control.awaitOthers();
        TpccDatabases.load(db, spec.warehouses(), spec.cluster().loaderThreads(), spec.seed(), config.constants(), 0,
            memoryPerNode, out);
        if (log.wal() != null) {
            db.startLogging(log.wal()); // writes the load back first: memory is the repairs' base
        }
        log.describe(out);
        control.prepareOthers(workload().getBytes(StandardCharsets.UTF_8));
        if (spec.logDir() != null) {
            for (int n = 1; n < computeNodes; n++) {
                Path theirs = Wal.nodeDirectory(spec.logDir(), n);
                // A repair here reads a dead node's log from this directory: it must be the one the node writes.
                if (!Files.isDirectory(theirs)) {
                    throw new InvalidRunException(new RunSpec.Violation("--log-dir", spec.logDir(), "is not shared:"
                        + " compute node " + n + " started its log, but " + theirs + " is not there as compute node 0"
                        + " sees it (give every process the same directory on a shared file system)"));
                }
            }
        }
        db.cluster().resetCounters();
        out.printf("running %s on %d compute node processes for %.1f s after %.1f s of warm-up, mix %s%s%n",
            RunReport.terminalsLine(config, computeNodes), computeNodes, spec.duration().toNanos() / 1e9,
            spec.warmup().toNanos() / 1e9, spec.mix(), spec.waitTimes() ? ", with keying/think times" : "");
        out.flush();
        PendingReply[] others = control.go(new byte[0]);
        db.watchPeers(); // a process that dies from here on is fenced and repaired at once
        NodeShare mine = runShare(db, log, config);
        DriverResult result = mine.result();
        ModeReport modeReport = mine.mode();
        LogFigures logFigures = new LogFigures(mine.log().mode(), mine.log().records(), mine.log().forces(),
            mine.log().bytes(), null); // commits' waits are measured per process: not summed
        Set<Integer> gone = new TreeSet<>();
        for (int i = 0; i < others.length; i++) {
            int node = i + 1;
            byte[] payload;
            try {
                payload = ClusterRun.awaitResults(others[i]);
            } catch (NodeFailedException e) {
                try {
                    db.peerGone(node); // fenced and repaired (here or by another process) before the check reads
                } catch (IllegalStateException notRepaired) {
                    ClusterRun.failIfAMemoryNodeIsLost(db.cluster(), 0);
                    throw new RunFailedException("compute node " + node + "'s process is gone and its lines"
                        + " could not be restored: " + notRepaired.getMessage(), notRepaired);
                }
                gone.add(node);
                err.printf("warning: compute node %d's process died during the run: its terminals' results are"
                    + " missing from the report (counted as 0)%n", node);
                result = DriverResults.merge(result, DriverResults.missing(config, computeNodes, node));
                continue;
            }
            NodeShare theirs = NodeShare.decode(payload, config, log.modeName());
            result = DriverResults.merge(result, theirs.result());
            modeReport = modeReport.plus(theirs.mode());
            logFigures = logFigures.plus(theirs.log());
        }
        for (CrashRecovery.Report repair : TpccRun.awaitRepairs(db)) {
            if (!mine.after().printed(repair.crashedNode())) {
                out.println(repair.describe()); // done after this node's terminals stopped
            }
        }
        RepairAftermath aftermath = mine.after().aftermath();
        if (aftermath != null) {
            out.println(aftermath.line());
        }
        modeReport = modeReport.committing(result.committed());
        RunReport.print(out, result);
        log.report(out, spec.wholeRun().toNanos() / 1e9, logFigures);
        modeReport.print(out);
        // While the others still answer for the lines they hold.
        CheckReport check = spec.check() ? TpccDatabases.check(db, spec.warehouses(), 0, out) : null;
        db.stopWatchingPeers(); // the others stop now: their connections close in order
        control.stopOthers(gone);
        return new RunOutcome(spec, result, modeReport, logFigures, check, gone, aftermath, spec.cacheFrames(),
            memoryPerNode, true);
    }

    /** A compute node other than 0: see the class comment. */
    private RunOutcome member(Database db, ClusterRun control, RunLog log, DriverConfig config, long memoryPerNode)
        throws InterruptedException {
        out.printf(Locale.ROOT, "compute node %d: joining compute node 0%n", me);
        out.flush();
        control.sayReady();
        ClusterRun.Request prepare = control.awaitPrepare();
        String theirs = new String(prepare.payload(), StandardCharsets.UTF_8);
        String workload = workload();
        if (!theirs.equals(workload)) {
            throw new InvalidRunException(new RunSpec.Violation("--cluster", "", "compute node 0 runs another"
                + " workload: its flags give '" + theirs + "', this node's '" + workload + "' (start every process"
                + " with the same flags)"));
        }
        db.node(me); // finds the tables node 0 loaded
        if (log.wal() != null) {
            db.startLogging(log.wal());
        }
        prepare.prepared(new byte[0]);
        ClusterRun.GoRequest go = control.awaitGo();
        db.cluster().resetCounters();
        db.watchPeers(); // a process that dies from here on is fenced and repaired at once
        NodeShare mine = runShare(db, log, config);
        db.stopWatchingPeers(); // node 0 stops the run: the processes leave in order from here on
        go.done(mine.encode());
        ClusterRun.acknowledge(control.awaitStop());
        out.printf(Locale.ROOT, "compute node %d: %,d transactions in %.2f s sent to compute node 0, which reports the run%n",
            me, mine.result().committed(), mine.result().seconds());
        out.flush();
        return new RunOutcome(spec, mine.result(), mine.mode(), mine.log(), null, Set.of(), mine.after().aftermath(),
            spec.cacheFrames(), memoryPerNode, false);
    }

    /** Runs this process's terminals; its results, mode counters and log counters. */
    private NodeShare runShare(Database db, RunLog log, DriverConfig config) throws InterruptedException {
        java.io.PrintStream progress = TpccDatabases.printStream(out);
        TpccDriver driver = new TpccDriver(db, config, progress);
        if (log.forces()) {
            driver.reportDurableNewOrders();
        }
        ModeReport.Start[] measured = {null};
        driver.atMeasureStart(() -> measured[0] = ModeReport.Start.of(db, log.wal(), null));
        AfterRepair after = AfterRepair.watch(db, driver, progress);
        DriverResult result;
        try {
            result = TpccRun.runDriver(driver, spec, log.wal());
        } catch (IllegalStateException e) {
            throw lostPeer(db, e);
        }
        ModeReport mode = ModeReport.of(db, log.wal(), null, spec.mode().label(), TpccRun.distribution(spec),
            measured[0] != null ? measured[0] : ModeReport.Start.of(db, log.wal(), null), result.committed());
        return new NodeShare(result, mode, log.figures(), after);
    }

    /**
     * A run that failed because a compute node's process died and its lines could not be restored (no log):
     * one line naming it; anything else keeps its trace.
     */
    private static RuntimeException lostPeer(Database db, IllegalStateException e) {
        for (int n = 0; n < db.computeNodeCount(); n++) {
            if (!db.cluster().hosts(n) && db.cluster().crashed(n)) {
                ClusterRun.failIfAMemoryNodeIsLost(db.cluster(), db.cluster().liveNode());
                Throwable root = e;
                while (root.getCause() != null && root.getCause() != root && !(root instanceof RepairFailedException)) {
                    root = root.getCause(); // the repair's failure names the node and why; else the deepest cause
                }
                return new RunFailedException("compute node " + n + "'s process is gone and the run cannot go on: "
                    + root.getMessage(), e);
            }
        }
        return e;
    }

    /**
     * What one compute-node process measured, as its DONE payload: the driver's result
     * ({@link DriverResults}' bytes), then invalidations, round trips, messages and log forces of the
     * measured interval, then its log's records, forces and bytes (whole run), 7 longs in all. {@code after}
     * (how this process's terminals went on after a repair) stays in its process: null when decoded.
     */
    private record NodeShare(DriverResult result, ModeReport mode, LogFigures log, AfterRepair after) {
        byte[] encode() {
            WireWriter w = new WireWriter();
            w.putBytes(DriverResults.encode(result));
            w.putLong(mode.invalidations()).putLong(mode.roundTrips()).putLong(mode.messages()).putLong(mode.walForces());
            w.putLong(log.records()).putLong(log.forces()).putLong(log.bytes());
            return w.toByteArray();
        }

        static NodeShare decode(byte[] bytes, DriverConfig config, String logMode) {
            WireReader in = new WireReader(bytes);
            DriverResult result = DriverResults.decode(in.getBytes(), config);
            ModeReport mode = new ModeReport("shared", null, result.committed(), in.getLong(), in.getLong(), in.getLong(),
                in.getLong(), null);
            LogFigures log = new LogFigures(logMode, in.getLong(), in.getLong(), in.getLong(), null);
            in.expectEnd("DONE");
            return new NodeShare(result, mode, log, null);
        }
    }
}
