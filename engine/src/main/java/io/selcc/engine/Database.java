package io.selcc.engine;

import io.selcc.cache.AccessMode;
import io.selcc.cache.SelccCluster;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.fabric.LatencyModel;
import io.selcc.threads.Waits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A database over a SELCC cluster: the tables and indexes the application defines, and one
 * {@link DatabaseNode} per compute node. Opening a node finds each table and index in the catalog in
 * shared memory, creating it if no node did before, so every node sees the same data.
 *
 * <pre>{@code
 * try (Database db = Database.builder().computeNodes(2).cc("2pl").table(accounts).build()) {
 *     DatabaseNode n0 = db.node(0), n1 = db.node(1);
 *     n0.run(tx -> tx.insert(n0.table("account"), row -> { row.setLong(0, 1); row.setMoney(1, 100_00); }));
 *     n1.run(tx -> tx.get(n1.table("account"), 1).getMoney(1));   // 10000
 * }
 * }</pre>
 */
public final class Database implements AutoCloseable {
    private final SelccCluster cluster;
    private final ConcurrencyControlProvider cc;
    /** What 2PL does on a held lock ({@link Builder#lockWait}). */
    private final LockWaitPolicy lockWait;
    private final Map<String, TableDefinition> tables;
    private final List<IndexDefinition> indexes;
    private final DatabaseNode[] nodes;
    /** A copy of {@link #nodes} read without the monitor (replaced on every open): the crash repair reads it. */
    private volatile DatabaseNode[] opened;
    /** The compute nodes' commit logs (one group), or null: nothing is logged. Closed with the database. */
    private volatile CommitLog.Factory commitLogs;
    /** See {@link #loggingFrom()}; -1 until logging starts. Guarded by this. */
    private long loggingFrom = -1;

    /** Set when a bulk load closed, cleared by {@link #writeBackCaches}: loaded rows are in no log. */
    private volatile boolean loadedSinceWriteBack;
    /** Set by {@link #close} once it closes (it may refuse: transactions open). Guarded by this. */
    private boolean closed;
    /** The crash and repair coordination ({@link #crash}, {@link #recoverCrashedNode}, ...). */
    private final CrashRepairs repairs;

    private Database(Builder builder, SelccCluster cluster, ConcurrencyControlProvider cc) {
        this.cluster = cluster;
        this.cc = cc;
        this.lockWait = builder.lockWait;
        this.tables = builder.tables;
        this.indexes = builder.indexes;
        this.commitLogs = builder.commitLogs;
        this.nodes = new DatabaseNode[cluster.computeNodeCount()];
        this.opened = nodes.clone();
        this.repairs = new CrashRepairs(this, cluster);
        cluster.onPeerFailure(repairs::peerFailed);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The database as seen from compute node {@code computeNode}, opened on first call. Thread-safe. */
    public synchronized DatabaseNode node(int computeNode) {
        if (computeNode < 0 || computeNode >= nodes.length) {
            throw new IllegalArgumentException("no such compute node: computeNode=" + computeNode
                + " computeNodes=" + nodes.length);
        }
        if (nodes[computeNode] == null) {
            if (closed) {
                throw new IllegalStateException("the database is closed");
            }
            nodes[computeNode] = DatabaseNode.open(cluster.node(computeNode), computeNode, cc, lockWait, tables, indexes);
            nodes[computeNode].bulkLoaded = () -> {
                loadedSinceWriteBack = true;
                CommitLog.Factory logs = commitLogs;
                if (logs != null) {
                    logs.bulkLoaded();
                }
            };
            nodes[computeNode].awaitRepairs = repairs::awaitRunningRepairs;
            nodes[computeNode].failStop = reason -> failStop(computeNode, reason);
            opened = nodes.clone();
            if (commitLogs != null) {
                nodes[computeNode].startLogging(commitLogs, computeNode, loggingFrom(), nodes.length);
            }
        }
        return nodes[computeNode];
    }

    /**
     * Starts logging every committed writer into {@code logs} (closed with the database), as
     * {@link Builder#commitLog} does from the start: for a database recovered from a checkpoint and a
     * log, whose replay must not be logged again. Call while no transaction runs: a transaction that
     * began before would commit its earlier writes into neither a checkpoint nor the log, so a running
     * one is refused (below) rather than waited for. A transaction that begins while this runs waits
     * until it returns.
     *
     * @throws IllegalStateException if the database logs already, or a transaction is running (the
     *                               message says how many, on which nodes; nothing was started)
     */
    public synchronized void startLogging(CommitLog.Factory logs) {
        if (commitLogs != null) {
            throw new IllegalStateException("the database logs already");
        }
        if (closed) {
            throw new IllegalStateException("the database is closed");
        }
        java.util.Objects.requireNonNull(logs, "logs");
        List<DatabaseNode> open = openedNodes(); // nodes open later log from their start (see node())
        for (DatabaseNode n : open) {
            n.commitsInFlight().holdBegins();
        }
        try {
            String running = openTransactions(false);
            if (running != null) {
                throw new IllegalStateException("cannot start logging while transactions run: " + running
                    + "; their writes before the start would be in no log. End them first.");
            }
            commitLogs = logs;
            writeBackCaches(); // from here on memory plus the log is everything (see CrashRecovery)
            for (int i = 0; i < nodes.length; i++) {
                if (nodes[i] != null) {
                    nodes[i].startLogging(logs, i, loggingFrom(), nodes.length);
                }
            }
        } finally {
            for (DatabaseNode n : open) {
                n.commitsInFlight().openBegins();
            }
        }
    }

    /**
     * The transactions that began and have not ended, as "N running (node i: n, ...)", or null if none;
     * call with the gate held (no new one starts). A crashed node's are left out with {@code skipCrashed}:
     * they ended with it (its latches were repaired, its threads stopped at their next access).
     */
    private String openTransactions(boolean skipCrashed) {
        int total = 0;
        StringBuilder perNode = new StringBuilder();
        for (int i = 0; i < nodes.length; i++) {
            int running = nodes[i] == null || (skipCrashed && nodes[i].crashed) ? 0 : nodes[i].commitsInFlight().running();
            if (running > 0) {
                total += running;
                perNode.append(perNode.isEmpty() ? "" : ", ").append("node ").append(i).append(": ")
                    .append(running);
            }
        }
        return total == 0 ? null : total + " running (" + perNode + ")";
    }

    /**
     * The commit sequence number logging started after: the counter when the first node began to log
     * (its recovered value, or 0), the same for every node. Not the counter when a later node opens:
     * by then other nodes may have drawn numbers that are not durable yet. Called holding this monitor.
     */
    private long loggingFrom() {
        if (loggingFrom < 0) {
            loggingFrom = firstOpened().commitSequenceCounter();
        }
        return loggingFrom;
    }

    private DatabaseNode firstOpened() {
        for (DatabaseNode n : nodes) {
            if (n != null) {
                return n;
            }
        }
        throw new IllegalStateException("no compute node is open");
    }

    /**
     * Where a checkpoint that starts scanning now must start its replay: every transaction with a
     * commit sequence number at or below the answer had finished installing its writes (so the scan
     * sees them), every later one is replayed from the log. Call before the scan.
     */
    public long checkpointStart() {
        while (true) {
            long drawn = liveNode().commitSequenceCounter();
            long lowest = Long.MAX_VALUE;
            boolean drawing = false;
            for (DatabaseNode opened : openedNodes()) {
                long l = opened.commitsInFlight().lowest();
                if (l == CommitsInFlight.DRAWING) {
                    drawing = true;
                    break;
                }
                lowest = Math.min(lowest, l);
            }
            if (!drawing) {
                return Math.min(drawn, lowest - 1);
            }
            // A thread between marking its slot and its fetch-and-add: one round trip, which a virtual
            // thread may need this carrier to finish.
            Waits.briefly();
        }
    }

    /** The highest commit sequence number drawn so far (0 before the first logged commit). */
    public long commitSequence() {
        return liveNode().commitSequenceCounter();
    }

    /**
     * Raises the commit sequence counter to at least {@code floor}: after recovery, so new commits
     * number after the replayed ones. Call before any transaction runs.
     */
    public void raiseCommitSequence(long floor) {
        liveNode().raiseCommitSequence(floor);
    }

    /**
     * The database as seen from the lowest compute node that has not crashed (opened if need be): for
     * database-wide reads and checks that any node can do.
     */
    public DatabaseNode liveNode() {
        return node(cluster.liveNode());
    }

    private synchronized java.util.List<DatabaseNode> openedNodes() {
        java.util.List<DatabaseNode> opened = new java.util.ArrayList<>();
        for (DatabaseNode n : nodes) {
            if (n != null) {
                opened.add(n);
            }
        }
        return opened;
    }

    /**
     * Writes every cache's dirty lines back to memory (evicting what no thread holds). After a bulk load
     * into a logging database, call it before the workload: a crashed node's lines are restored from
     * memory plus the log, and loaded rows are in no log. Call while no transaction runs.
     */
    public void writeBackCaches() {
        loadedSinceWriteBack = false;
        cluster.flushCaches();
    }

    // ---------------------------------------------------------------- a compute node that crashes (see CrashRepairs)

    /**
     * Crashes compute node {@code computeNode} abruptly, for fault tests: it is fenced off the fabric,
     * its cache is lost, its latch bits stay in memory, its log takes nothing more, and every later call
     * on it throws {@link io.selcc.fabric.NodeFailedException} (its threads stop at their next access).
     * The first survivor that asks it for a line starts the repair ({@link CrashRecovery}) on a thread
     * of its own; the survivors wait for the lines it held meanwhile and then go on.
     *
     * @throws IllegalStateException if the crash could not be repaired: the database logs nothing, the
     *                               algorithm keeps uncommitted state on lines other nodes may take over,
     *                               no other node is open, or the node crashed already
     */
    public void crash(int computeNode) {
        repairs.crash(computeNode);
    }

    /**
     * Stops compute node {@code computeNode} where it stands, as {@link #crash} does, because it met a
     * fault it cannot take back (a log append whose outcome is unknown): fenced, its cache lost, its log
     * sealed, repaired by a survivor from memory and the logs. Unlike {@link #crash} it is never refused:
     * a node that cannot be repaired (see {@link #crashRefusal}) stays down, and a survivor that needs
     * one of its lines fails naming why. Returns what the calling thread of that node throws.
     */
    synchronized io.selcc.fabric.NodeFailedException failStop(int computeNode, String reason) {
        return repairs.failStop(computeNode, reason);
    }

    /**
     * Why {@link #crash} would refuse to crash {@code computeNode} now (the survivors could not repair
     * it), or null if it would not: no log, an algorithm that keeps uncommitted state on lines other
     * nodes may take over, no other open node, or it crashed already.
     */
    public String crashRefusal(int computeNode) {
        return repairs.crashRefusal(computeNode);
    }

    /**
     * Watches the compute nodes of other processes ({@link io.selcc.fabric.Fabric#watchComputeNodes}): one
     * whose process dies is fenced and repaired at once, as when a survivor meets one of its lines, instead
     * of when a survivor first does (if ever: a node whose lines nobody here needs was noticed only at the
     * end, and TO's rows with its write intents stayed blocked until then). Call once the other processes
     * have their nodes open; {@link #stopWatchingPeers} before an orderly end, when processes leave.
     */
    public void watchPeers() {
        repairs.watchPeers();
    }

    /** Stops {@link #watchPeers}: compute nodes of other processes that go away from now on are not repaired for it. */
    public void stopWatchingPeers() {
        repairs.stopWatchingPeers();
    }

    /**
     * What a crash repair reached, for {@link #onRepairProgress}. Called on the repairing thread: a
     * listener must not wait for the repair (it would wait for itself).
     */
    @FunctionalInterface
    public interface RepairListener {
        /**
         * @param crashedNode the node being repaired
         * @param report      at {@link CrashRecovery.Stage#DONE}, what the repair did (in another process:
         *                    {@link CrashRecovery.Report#ranElsewhere}); null before
         */
        void reached(int crashedNode, CrashRecovery.Stage stage, CrashRecovery.Report report);
    }

    /**
     * Tells {@code listener} of every stage a crash repair of this database reaches from now on: the lost
     * heap pages released ({@link CrashRecovery.Stage#PAGES_RESTORED}, repairs in this process), the repair
     * done ({@link CrashRecovery.Stage#DONE}, also when another process repaired). A run reports there how
     * its survivors went on.
     */
    public void onRepairProgress(RepairListener listener) {
        repairs.onRepairProgress(listener);
    }

    /**
     * Compute node {@code computeNode}, in another process, is gone (its process died before it answered,
     * say): starts its repair as a survivor that met one of its lines would, and waits for it.
     *
     * @throws IllegalArgumentException if the node runs in this process ({@link #crash} is for those)
     * @throws IllegalStateException    if it could not be repaired (the message says why)
     */
    public CrashRecovery.Report peerGone(int computeNode) {
        return repairs.peerGone(computeNode);
    }

    /**
     * Repairs the lines of crashed node {@code computeNode} now, on the calling thread, unless a repair
     * started already (then waits for it). Survivors start it themselves when they meet the crash.
     *
     * @throws IllegalStateException if the node has not crashed, or the repair failed
     */
    public CrashRecovery.Report recoverCrashedNode(int computeNode) {
        return repairs.recoverCrashedNode(computeNode);
    }

    /** Waits for every repair started so far and returns their reports (see {@link #recoverCrashedNode}). */
    public List<CrashRecovery.Report> awaitCrashRepairs() {
        return repairs.awaitCrashRepairs();
    }

    /** The commit logs, or null: nothing is logged. */
    CommitLog.Factory commitLog() {
        return commitLogs;
    }

    /** Whether rows were bulk-loaded since the caches were last written back ({@link #writeBackCaches}). */
    boolean loadedSinceWriteBack() {
        return loadedSinceWriteBack;
    }

    /** The nodes opened so far, indexed by compute node (null: not open), read without the monitor. */
    DatabaseNode[] opened() {
        return opened;
    }

    public int computeNodeCount() {
        return nodes.length;
    }

    public SelccCluster cluster() {
        return cluster;
    }

    public String concurrencyControl() {
        return cc.name();
    }

    /** What 2PL does on a held lock, as the builder set it. */
    public LockWaitPolicy lockWait() {
        return lockWait;
    }

    /** The algorithm's provider, for tests that open a node with other definitions. */
    ConcurrencyControlProvider provider() {
        return cc;
    }

    /** How the transactions of every node opened so far ended: commits, aborts by reason. */
    public TransactionCounts.Snapshot transactionCounts() {
        TransactionCounts.Snapshot sum = TransactionCounts.Snapshot.ZERO;
        for (DatabaseNode n : openedNodes()) {
            sum = sum.plus(n.transactionCounts().snapshot());
        }
        return sum;
    }

    /** Whether {@link #close} was called: the memory the database ran on is gone. */
    public boolean isClosed() {
        return cluster.isClosed();
    }

    /**
     * Closes the database: forces and closes the commit logs, writes every cache back to memory,
     * releases every latch the nodes keep, and ends the cluster. A transaction that is still open holds
     * latches (a reader bit or a writer tag in a latch word), or under TO write intents in rows, which
     * would stay in shared memory for good, and its uncommitted changes cannot be rolled back from
     * another thread; so close refuses while one is open (on a compute node that has not crashed),
     * closing nothing: end each (commit, abort, or close it on its thread) and close again. A transaction
     * that begins while close decides waits; once closed, a begin throws. Closing twice does nothing.
     *
     * @throws IllegalStateException if a transaction is open; the message counts them per compute node
     *                               and the database stays open and usable
     */
    @Override
    public void close() {
        CommitLog.Factory commitLogs;
        synchronized (this) {
            if (closed) {
                return;
            }
            List<DatabaseNode> open = openedNodes();
            for (DatabaseNode n : open) {
                n.commitsInFlight().holdBegins();
            }
            String running = openTransactions(true);
            if (running != null) {
                for (DatabaseNode n : open) {
                    n.commitsInFlight().openBegins();
                }
                throw new IllegalStateException("cannot close the database while transactions are open: " + running
                    + "; they hold latches (or write intents) in shared memory that would stay there. Nothing was"
                    + " closed: end each one (commit, abort or close it) and close again.");
            }
            for (DatabaseNode n : open) {
                n.commitsInFlight().shut();
            }
            closed = true;
            commitLogs = this.commitLogs;
        }
        if (commitLogs != null) {
            commitLogs.close(); // a last force, before the memory the transactions ran on goes
        }
        cluster.close();
    }

    /** Configuration with defaults; {@link #build()} validates it and builds the cluster. */
    public static final class Builder {
        private final SelccCluster.Builder cluster = SelccCluster.builder();
        private final Map<String, TableDefinition> tables = new LinkedHashMap<>();
        private final List<IndexDefinition> indexes = new ArrayList<>();
        private String ccName;
        private LockWaitPolicy lockWait = LockWaitPolicy.NO_WAIT;
        private CommitLog.Factory commitLogs;

        public Builder computeNodes(int n) { cluster.computeNodes(n); return this; }
        public Builder memoryNodes(int n) { cluster.memoryNodes(n); return this; }
        public Builder memoryPerNode(long bytes) { cluster.memoryPerNode(bytes); return this; }
        public Builder gclSize(int bytes) { cluster.gclSize(bytes); return this; }
        public Builder cacheFrames(int frames) { cluster.cacheFrames(frames); return this; }
        public Builder accessMode(AccessMode mode) { cluster.accessMode(mode); return this; }
        public Builder latency(LatencyModel model) { cluster.latency(model); return this; }
        public Builder threadsPerNode(int threads) { cluster.threadsPerNode(threads); return this; }
        /** The concurrency-control algorithm by name ("2pl", "to", "occ"); must be on the class path. */
        public Builder cc(String name) { this.ccName = name; return this; }
        /**
         * What 2PL does on a held lock: {@link LockWaitPolicy#NO_WAIT} (the default) aborts,
         * {@link LockWaitPolicy#WAIT_DIE} waits when older than every holder. {@code build()} refuses a
         * policy the algorithm does not implement (OCC and TO lock nothing to wait for).
         */
        public Builder lockWait(LockWaitPolicy policy) {
            this.lockWait = java.util.Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Logs every committed transaction that changed rows into {@code logs} (the wal module's
         * {@code Wal}), one log per compute node; the database closes them. Without it nothing is logged.
         */
        public Builder commitLog(CommitLog.Factory logs) { this.commitLogs = logs; return this; }
        /** Direct access to the cluster settings not mirrored here. */
        public SelccCluster.Builder clusterSettings() { return cluster; }

        public Builder table(TableDefinition table) {
            if (tables.putIfAbsent(table.name(), table) != null) {
                throw new IllegalArgumentException("table defined twice: table=" + table.name());
            }
            return this;
        }

        public Builder index(IndexDefinition index) {
            indexes.add(index);
            return this;
        }

        public Database build() {
            for (IndexDefinition index : indexes) {
                if (!tables.containsKey(index.table())) {
                    throw new IllegalArgumentException("index on an unknown table: index=" + index.name()
                        + " table=" + index.table());
                }
            }
            if (ccName == null) {
                throw new IllegalArgumentException("no concurrency control chosen: call cc(name); available="
                    + ConcurrencyControls.available());
            }
            ConcurrencyControlProvider provider = ConcurrencyControls.byName(ccName);
            if (!provider.supports(lockWait)) {
                throw new IllegalArgumentException("concurrency control " + provider.name()
                    + " does not implement lock wait policy " + lockWait + " (only 2pl waits)");
            }
            return new Database(this, cluster.build(), provider);
        }
    }
}
