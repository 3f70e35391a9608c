package io.selcc.engine;

import io.selcc.cache.SelccCluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A database's crash and repair coordination, behind {@link Database}'s crash methods: crashing or
 * stopping a compute node of this process, telling why a crash could not be repaired, starting each
 * crashed or gone node's repair once ({@link CrashRecovery} on a thread of its own, or for another
 * process's node the claim in shared memory and the wait for whoever won it), waking the retries that
 * wait for a running repair's progress, and telling the listeners what a repair reached.
 *
 * <p>Thread-safe: the repairs started are guarded by their map; {@link #failStop} is called holding the
 * database's monitor.
 */
final class CrashRepairs {
    private static final System.Logger LOG = System.getLogger(Database.class.getName());
    private final Database db;
    private final SelccCluster cluster;
    /** Whether a crash repair may be running: read by every retry (see {@link #awaitRunningRepairs}). */
    private volatile boolean repairsRunning;
    /**
     * Completed (and replaced) whenever a crash repair released lines or ended: a retry that waits for a
     * running repair waits for this, at most {@link #REPAIR_WAIT_NANOS} (see {@link #awaitRunningRepairs}).
     */
    private volatile java.util.concurrent.CompletableFuture<Void> repairProgress = new java.util.concurrent.CompletableFuture<>();
    /** Told when a repair reaches a stage (see {@link #onRepairProgress}). */
    private final List<Database.RepairListener> repairListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Repairs of crashed nodes, by node: started once each. Guarded by itself. */
    private final Map<Integer, java.util.concurrent.CompletableFuture<CrashRecovery.Report>> crashRepairs =
        new LinkedHashMap<>();

    /** Only stores its arguments: the database calls it from its constructor. */
    CrashRepairs(Database db, SelccCluster cluster) {
        this.db = db;
        this.cluster = cluster;
    }

    /** See {@link Database#crash}. */
    void crash(int computeNode) {
        DatabaseNode victim = db.node(computeNode);
        String refusal = crashRefusal(computeNode);
        if (refusal != null) {
            throw new IllegalStateException(refusal);
        }
        cluster.crash(computeNode);
        victim.crashed = true;
        db.commitLog().seal(computeNode); // a commit of it in flight fails from here on; what it appended stays
    }

    /** See {@link Database#failStop}. Called holding the database's monitor. */
    io.selcc.fabric.NodeFailedException failStop(int computeNode, String reason) {
        DatabaseNode victim = db.node(computeNode);
        String message = "compute node " + computeNode + " stopped: " + reason;
        if (!victim.crashed) {
            String unrepairable = repairRefusal(computeNode);
            LOG.log(System.Logger.Level.ERROR, message + (unrepairable == null ? "; a survivor repairs it"
                : "; it cannot be repaired while the database runs: " + unrepairable));
            cluster.stop(computeNode); // any access mode: crash() refuses SEL, whose latches no repair can read
            victim.crashed = true;
            db.commitLog().seal(computeNode);
        }
        return new io.selcc.fabric.NodeFailedException(computeNode, message);
    }

    /** See {@link Database#crashRefusal}. */
    String crashRefusal(int computeNode) {
        DatabaseNode victim = db.node(computeNode);
        String refusal = repairRefusal(computeNode);
        if (refusal != null) {
            return refusal;
        }
        if (victim.crashed) {
            return "compute node " + computeNode + " crashed already";
        }
        return null;
    }

    /** Why a crash of {@code computeNode} could not be repaired now (see {@link #crashRefusal}), or null. */
    private String repairRefusal(int computeNode) {
        if (cluster.accessMode() != io.selcc.cache.AccessMode.SELCC) {
            return "a crashed compute node can be repaired only in SELCC mode (SEL's latch words count readers,"
                + " they do not name them)";
        }
        if (db.commitLog() == null) {
            return "a crashed compute node's committed work is restored from the logs: this database logs nothing"
                + " (start logging first)";
        }
        if (!db.commitLog().canReadBack()) {
            return "this database's commit log cannot be read back from a base a repair can start from: log files past"
                + " it were removed, or rows were bulk-loaded since the newest checkpoint began (take a checkpoint)";
        }
        if (db.loadedSinceWriteBack()) {
            return "rows were bulk-loaded since the caches were last written back, and are in no log: call"
                + " writeBackCaches() after loading";
        }
        if (!db.provider().survivesCrashedNodes()) {
            return "concurrency control " + db.provider().name() + " does not say it survives a crashed node"
                + " (ConcurrencyControlProvider.survivesCrashedNodes): uncommitted state it keeps on lines another"
                + " node may take over would be lost under a live transaction";
        }
        if (survivorOf(computeNode) < 0) {
            return "no other compute node is open to repair compute node " + computeNode;
        }
        return null;
    }

    /** See {@link Database#watchPeers}. */
    void watchPeers() {
        cluster.fabric().watchComputeNodes(this::peerFailed);
    }

    /** See {@link Database#stopWatchingPeers}. */
    void stopWatchingPeers() {
        cluster.fabric().watchComputeNodes(null);
    }

    /** A node learnt that {@code computeNode} cannot be reached: the first report starts its repair. */
    void peerFailed(int computeNode) {
        if (cluster.hosts(computeNode) && !cluster.crashed(computeNode)) {
            return;
        }
        startRepair(computeNode);
    }

    /**
     * Starts, once per node and on a thread of its own, the repair of {@code computeNode}: a crashed node
     * of this process ({@link #repairNow}), or one of another process that cannot be reached (its process
     * died, or its connection broke; {@link #repairGone}): fenced first (so nothing it may still send
     * lands), then repaired by the first process whose survivor claims it in shared memory (a CAS on the
     * node's repair claim word, see {@link CatalogLayout}); every other process waits until the claim
     * says done (its survivors meanwhile wait for the lines, which the repairer releases as it goes) or
     * failed. A repair that fails (nothing logged, say) fails every survivor here that meets one of its
     * lines, naming why.
     */
    private void startRepair(int computeNode) {
        boolean remote = !cluster.hosts(computeNode);
        synchronized (crashRepairs) {
            if (crashRepairs.containsKey(computeNode)) {
                return;
            }
            java.util.concurrent.CompletableFuture<CrashRecovery.Report> repair = new java.util.concurrent.CompletableFuture<>();
            crashRepairs.put(computeNode, repair);
            repairsRunning = true;
            io.selcc.threads.EngineThread.start("crash-repair-node-" + computeNode, true, () -> {
                CrashRecovery.Report report;
                try {
                    report = remote ? repairGone(computeNode) : repairNow(computeNode);
                } catch (Throwable t) {
                    // Survivors stop waiting for its lines.
                    cluster.repairFailed(computeNode, remote && t instanceof IllegalStateException ? t.getMessage()
                        : String.valueOf(t));
                    repair.completeExceptionally(t);
                    repairProgressed();
                    return;
                }
                repair.complete(report);
                repairReached(computeNode, CrashRecovery.Stage.DONE, report);
            });
        }
    }

    /** See {@link Database#onRepairProgress}. */
    void onRepairProgress(Database.RepairListener listener) {
        repairListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    private void repairReached(int computeNode, CrashRecovery.Stage stage, CrashRecovery.Report report) {
        repairProgressed();
        for (Database.RepairListener listener : repairListeners) {
            try {
                listener.reached(computeNode, stage, report);
            } catch (RuntimeException e) { // a listener's bug must not fail the repair the survivors wait for
                LOG.log(System.Logger.Level.ERROR, "a repair listener failed at " + stage + " of compute node "
                    + computeNode + "'s repair", e);
            }
        }
    }

    /** Wakes the retries waiting for a repair's progress (see {@link #awaitRunningRepairs}). */
    private void repairProgressed() {
        java.util.concurrent.CompletableFuture<Void> reached = repairProgress;
        repairProgress = new java.util.concurrent.CompletableFuture<>();
        reached.complete(null);
    }

    /** Between two reads of another process's repair claim: that process's progress has no signal here. */
    private static final long REPAIR_POLL_NANOS = 20_000_000L;

    /** {@link #startRepair}'s work for another process's node: fence, claim, repair here or wait for the process that claimed it. */
    private CrashRecovery.Report repairGone(int computeNode) {
        long start = System.nanoTime();
        cluster.fenceGone(computeNode);
        String refusal = repairRefusal(computeNode);
        if (refusal != null) {
            throw new IllegalStateException(refusal);
        }
        DatabaseNode here = db.opened()[survivorOf(computeNode)];
        long found = here.claimRepair(computeNode);
        if (found == 0) {
            boolean repaired = false;
            try {
                // Before the repair reads the logs: what the node drew is settled, and the other
                // processes' logs stop waiting for its durability word.
                db.commitLog().settleCrashed(computeNode);
                CrashRecovery.Report report = repairNow(computeNode);
                repaired = true;
                return report;
            } finally {
                here.finishRepair(computeNode, repaired);
            }
        }
        while (true) {
            int repairer = CatalogLayout.repairer(found);
            long state = CatalogLayout.repairState(found);
            if (state == CatalogLayout.REPAIR_DONE) {
                return CrashRecovery.Report.elsewhere(computeNode, repairer, (System.nanoTime() - start) / 1e9);
            }
            if (state == CatalogLayout.REPAIR_FAILED) {
                throw new IllegalStateException("compute node " + repairer + "'s process could not repair compute node "
                    + computeNode + " (its output says why)");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(REPAIR_POLL_NANOS);
            found = here.repairClaim(computeNode);
        }
    }

    /** See {@link Database#peerGone}. */
    CrashRecovery.Report peerGone(int computeNode) {
        if (computeNode < 0 || computeNode >= db.computeNodeCount() || cluster.hosts(computeNode)) {
            throw new IllegalArgumentException("not a compute node of another process: computeNode=" + computeNode);
        }
        startRepair(computeNode);
        return recoverCrashedNode(computeNode);
    }

    /** See {@link Database#recoverCrashedNode}. */
    CrashRecovery.Report recoverCrashedNode(int computeNode) {
        java.util.concurrent.CompletableFuture<CrashRecovery.Report> repair;
        boolean mine = false;
        synchronized (crashRepairs) {
            repair = crashRepairs.get(computeNode);
            if (repair == null && !cluster.crashed(computeNode)) {
                throw new IllegalStateException("compute node " + computeNode + " has not crashed");
            }
            if (repair == null && !cluster.hosts(computeNode)) {
                startRepair(computeNode); // another process's node: fenced and repaired as a gone one is
                repair = crashRepairs.get(computeNode);
            }
            if (repair == null) {
                repair = new java.util.concurrent.CompletableFuture<>();
                crashRepairs.put(computeNode, repair);
                repairsRunning = true;
                mine = true;
            }
        }
        if (mine) {
            CrashRecovery.Report report = null;
            try {
                report = repairNow(computeNode);
            } catch (RuntimeException | Error e) {
                cluster.repairFailed(computeNode, String.valueOf(e));
                repair.completeExceptionally(e);
                repairProgressed();
            }
            if (report != null) {
                repair.complete(report);
                repairReached(computeNode, CrashRecovery.Stage.DONE, report);
            }
        }
        try {
            return repair.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw new io.selcc.cache.RepairFailedException(computeNode, String.valueOf(e.getCause()), e.getCause());
        }
    }

    /**
     * The longest a retry waits for a running repair's progress before it tries again: lines the repair
     * already released, or that the transaction does not need, are not waited for longer.
     */
    static final long REPAIR_WAIT_NANOS = 20_000_000L;

    /**
     * If a crash repair is running: waits until it releases lines (or ends), at most
     * {@link #REPAIR_WAIT_NANOS}, and returns true (the retry that called it does not count the attempt:
     * it met one of the crashed node's lines, most likely). Before, a retry waited for the whole repair,
     * so every survivor that aborted once while a repair ran (for any reason) stood still until its end:
     * seconds, and over a network fabric the rest of a run.
     */
    boolean awaitRunningRepairs() {
        if (!repairsRunning) {
            return false;
        }
        java.util.concurrent.CompletableFuture<Void> progress = repairProgress; // before the look: no wake-up is missed
        boolean running = false;
        synchronized (crashRepairs) {
            for (java.util.concurrent.CompletableFuture<CrashRecovery.Report> repair : crashRepairs.values()) {
                running |= !repair.isDone();
            }
            if (!running) {
                repairsRunning = false; // set again, under this lock, when a repair starts
            }
        }
        if (!running) {
            return false;
        }
        try {
            progress.get(REPAIR_WAIT_NANOS, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            // nothing released meanwhile: the transaction tries again
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("repair progress never fails", e);
        }
        return true;
    }

    /** See {@link Database#awaitCrashRepairs}. */
    List<CrashRecovery.Report> awaitCrashRepairs() {
        List<Integer> crashed;
        synchronized (crashRepairs) {
            crashed = new ArrayList<>(crashRepairs.keySet());
        }
        List<CrashRecovery.Report> reports = new ArrayList<>();
        for (int node : crashed) {
            reports.add(recoverCrashedNode(node));
        }
        return reports;
    }

    private CrashRecovery.Report repairNow(int computeNode) {
        int survivor = survivorOf(computeNode);
        if (survivor < 0) {
            throw new IllegalStateException("no compute node left to repair compute node " + computeNode);
        }
        return CrashRecovery.run(cluster, db.commitLog(), db.opened()[survivor], computeNode,
            stage -> repairReached(computeNode, stage, null));
    }

    /**
     * The lowest open node other than {@code computeNode} that has not crashed, or -1. Without the
     * monitor: a node being opened may hold it while it waits for a crashed node's line.
     */
    private int survivorOf(int computeNode) {
        DatabaseNode[] open = db.opened();
        for (int i = 0; i < open.length; i++) {
            if (i != computeNode && open[i] != null && !open[i].crashed) {
                return i;
            }
        }
        return -1;
    }
}
