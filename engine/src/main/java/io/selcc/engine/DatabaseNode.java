package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.threads.PerThread;
import io.selcc.cache.ComputeNode;
import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.engine.index.BLinkTree;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.storage.HeapTable;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/** The database on one compute node: its tables and indexes, and transactions. Thread-safe. */
public final class DatabaseNode {
    private final ComputeNode node;
    private final ConcurrencyControl cc;
    private final Map<String, Table> tables;
    private final Map<String, Index> indexes;

    /** This node's commit log; null while the database logs nothing (see {@link Database#startLogging}). */
    private volatile CommitLog commitLog;
    /** Each thread's spare {@link Redo}, so a logging transaction allocates none. */
    private final PerThread<Redo[]> spareRedo = PerThread.withInitial(() -> new Redo[1]);

    /** Run when a bulk load on this node starts and when it closes; set by the database. */
    volatile Runnable bulkLoaded = () -> { };
    /**
     * Waits for a crash repair that is running, if any, and says whether it waited; set by the database.
     * A conflict while another node's lines are being repaired is most likely one of them.
     */
    volatile java.util.function.BooleanSupplier awaitRepairs = () -> false;
    /** Stops this node as a crash would, for a fault it cannot take back; set by the database ({@link Database#failStop}). */
    volatile Function<String, RuntimeException> failStop = reason -> new IllegalStateException(
        "compute node stopped: " + reason);
    /** Set when this node crashed ({@link Database#crash}): every later transaction on it fails. */
    volatile boolean crashed;

    /** See {@link #commitsInFlight()}. */
    private final CommitsInFlight inFlight;
    /** See {@link #transactionCounts()}. */
    private final TransactionCounts counts = new TransactionCounts();
    /** Global address of the commit sequence counter word. */
    private final long sequenceCounter;
    /** Global address of compute node 0's durability word ({@link DurabilityWord}; node n's is 8n further). */
    private final long durabilityWords;

    private DatabaseNode(ComputeNode node, ConcurrencyControl cc, Map<String, Table> tables, Map<String, Index> indexes,
                         CommitLog commitLog, CommitsInFlight inFlight, long sequenceCounter, long durabilityWords) {
        this.node = node;
        this.cc = cc;
        this.tables = tables;
        this.indexes = indexes;
        this.commitLog = commitLog;
        this.inFlight = inFlight;
        this.sequenceCounter = sequenceCounter;
        this.durabilityWords = durabilityWords;
    }

    /** How this node's transactions ended so far: commits, aborts by reason. */
    public TransactionCounts transactionCounts() {
        return counts;
    }

    /** The algorithm on this node (a crash repair asks it how to stamp what it restores). */
    ConcurrencyControl cc() {
        return cc;
    }

    static DatabaseNode open(ComputeNode node, ConcurrencyControlProvider provider, Map<String, TableDefinition> definitions,
                             List<IndexDefinition> indexDefinitions) {
        return open(node, -1, provider, LockWaitPolicy.NO_WAIT, definitions, indexDefinitions);
    }

    static DatabaseNode open(ComputeNode node, int computeNodeIndex, ConcurrencyControlProvider provider,
                             LockWaitPolicy lockWait, Map<String, TableDefinition> definitions,
                             List<IndexDefinition> indexDefinitions) {
        Map<String, Table> tables = new LinkedHashMap<>();
        Map<String, Index> indexes = new LinkedHashMap<>();
        long timestampCounter;
        long sequenceCounter;
        long durabilityWords;
        try (Catalog catalog = Catalog.open(node)) {
            int nextTableId = 1;
            for (TableDefinition definition : definitions.values()) {
                int tableId = nextTableId++;
                long root = catalog.findOrCreate(CatalogLayout.KIND_TABLE, definition.name(),
                    () -> HeapTable.create(node, tableId, definition.name(), definition.schema(),
                        definition.onePerPage(), definition.insertOnly()).rootAddress());
                HeapTable heap = HeapTable.open(node, root);
                if (!heap.schema().equals(definition.schema())) {
                    throw new IllegalStateException("schema differs from the stored one: table=" + definition.name()
                        + " stored=" + heap.schema() + " defined=" + definition.schema());
                }
                if (heap.insertOnly() != definition.insertOnly()) {
                    throw new IllegalStateException("insert-only differs from the stored table: table="
                        + definition.name() + " stored=" + heap.insertOnly() + " defined=" + definition.insertOnly());
                }
                long primaryRoot = catalog.findOrCreate(CatalogLayout.KIND_INDEX, definition.primaryIndexName(),
                    () -> BLinkTree.create(node, true).rootAddress());
                Table table = new Table(definition, heap, BLinkTree.open(node, primaryRoot));
                tables.put(definition.name(), table);
                indexes.put(table.primaryIndex().name(), table.primaryIndex());
            }
            for (IndexDefinition definition : indexDefinitions) {
                long root = catalog.findOrCreate(CatalogLayout.KIND_INDEX, definition.name(),
                    () -> BLinkTree.create(node, definition.unique()).rootAddress());
                Table table = tables.get(definition.table());
                Index index = new Index(definition, table, BLinkTree.open(node, root), false);
                if (indexes.putIfAbsent(definition.name(), index) != null) {
                    throw new IllegalArgumentException("index defined twice: index=" + definition.name());
                }
                table.addSecondary(index);
            }
            timestampCounter = catalog.counterWord(CatalogLayout.TIMESTAMP_COUNTER_WORD);
            sequenceCounter = catalog.counterWord(CatalogLayout.COMMIT_SEQUENCE_WORD);
            durabilityWords = catalog.durabilityWords();
        }
        ConcurrencyControl cc = provider.create(new CcEnvironment(node, timestampCounter, lockWait));
        return new DatabaseNode(node, cc, tables, indexes, null, new CommitsInFlight(), sequenceCounter, durabilityWords);
    }

    /**
     * Opens this node's log in {@code logs}; from now on every committing writer is logged. Numbers up to
     * {@code settledThrough} (the same for every node: where the database's logging started) need no log.
     * {@code computeNodes}: the cluster's compute nodes, whose durability words the log may read.
     */
    void startLogging(CommitLog.Factory logs, int computeNodeIndex, long settledThrough, int computeNodes) {
        if (commitLog != null) {
            throw new IllegalStateException("compute node " + computeNodeIndex + " logs already");
        }
        commitLog = logs.open(computeNodeIndex, settledThrough,
            () -> inFlight.draw(() -> node.faa(sequenceCounter, 1) + 1), new Words(computeNodes));
    }

    /**
     * This node's {@link CommitLog.SharedWords}: one batch per call over the durability GCL (the write
     * before the read, one memory node) and the counters GCL. Buffers off-heap, reused under the lock.
     */
    private final class Words implements CommitLog.SharedWords {
        private final int computeNodes;
        private final java.lang.foreign.MemorySegment buffer;
        private final io.selcc.fabric.VerbBatch batch = new io.selcc.fabric.VerbBatch();

        Words(int computeNodes) {
            if (computeNodes < 1 || computeNodes > io.selcc.fabric.Fabric.MAX_COMPUTE_NODES) {
                throw new IllegalArgumentException("computeNodes=" + computeNodes);
            }
            this.computeNodes = computeNodes;
            // Word 0: this node's, to write; words 1..n: every node's, as read.
            this.buffer = java.lang.foreign.Arena.ofAuto().allocate(8L * (computeNodes + 1), 8);
        }

        @Override
        public int computeNode() {
            return node.nodeId();
        }

        @Override
        public int computeNodes() {
            return computeNodes;
        }

        @Override
        public synchronized long publishAndRead(long mine, long[] words) {
            buffer.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, mine);
            batch.clear();
            batch.write(durabilityWords + 8L * node.nodeId(), buffer, 0, 8);
            return readInto(words);
        }

        @Override
        public synchronized long read(long[] words) {
            batch.clear();
            return readInto(words);
        }

        /** Adds the read of every word and of the counter to the batch, posts it (one round trip), copies the words out. */
        private long readInto(long[] words) {
            batch.read(durabilityWords, buffer, 8, 8 * computeNodes);
            int counter = batch.faa(sequenceCounter, 0);
            node.postWords(batch);
            for (int n = 0; n < computeNodes; n++) {
                words[n] = buffer.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8L * (n + 1));
            }
            return batch.result(counter);
        }

        @Override
        public long compareAndSet(int computeNode, long expected, long update) {
            if (computeNode < 0 || computeNode >= computeNodes) {
                throw new IllegalArgumentException("computeNode=" + computeNode + " computeNodes=" + computeNodes);
            }
            return node.cas(durabilityWords + 8L * computeNode, expected, update);
        }

        @Override
        public boolean fenced(int computeNode) {
            return node.peerCrashed(computeNode);
        }
    }

    /**
     * The commits between drawing their sequence number and the end of their install, and the
     * transactions running, per thread.
     */
    CommitsInFlight commitsInFlight() {
        return inFlight;
    }

    /** The global address of compute node {@code crashed}'s repair claim word (see {@link CatalogLayout}). */
    private long repairClaimWord(int crashed) {
        if (crashed < 0 || crashed >= io.selcc.fabric.Fabric.MAX_COMPUTE_NODES) {
            throw new IllegalArgumentException("no such compute node: " + crashed);
        }
        return sequenceCounter - CatalogLayout.COMMIT_SEQUENCE_WORD + CatalogLayout.REPAIR_CLAIMS_WORD + 8L * crashed;
    }

    /** Claims the repair of {@code crashed} for this node: 0 if it won, else the claim word it found. */
    long claimRepair(int crashed) {
        return node.cas(repairClaimWord(crashed), 0, CatalogLayout.repairClaim(CatalogLayout.REPAIR_CLAIMED,
            node.nodeId()));
    }

    /** Marks this node's claimed repair of {@code crashed} done or failed. */
    void finishRepair(int crashed, boolean repaired) {
        long claimed = CatalogLayout.repairClaim(CatalogLayout.REPAIR_CLAIMED, node.nodeId());
        node.cas(repairClaimWord(crashed), claimed, CatalogLayout.repairClaim(
            repaired ? CatalogLayout.REPAIR_DONE : CatalogLayout.REPAIR_FAILED, node.nodeId()));
    }

    /** {@code crashed}'s repair claim word now. */
    long repairClaim(int crashed) {
        return node.faa(repairClaimWord(crashed), 0);
    }

    /** The commit sequence counter's current value: the highest number drawn so far. */
    long commitSequenceCounter() {
        return node.faa(sequenceCounter, 0);
    }

    /** Raises the commit sequence counter to at least {@code floor} (recovery, before any transaction runs). */
    void raiseCommitSequence(long floor) {
        long now = node.faa(sequenceCounter, 0);
        if (now < floor) {
            node.faa(sequenceCounter, floor - now);
        }
    }

    /** This node's commit log, or null when the database logs nothing. */
    CommitLog commitLog() {
        return commitLog;
    }

    /**
     * A mark of every transaction appended to any node's commit log so far (0 when the database logs
     * nothing), for {@link #awaitMarkDurable}. For a two-phase-commit coordinator at its commit point:
     * what its branches read was appended before, and once that is durable, a recovery that applies the
     * decided transaction applies it on what it read.
     */
    public long appendedMark() {
        CommitLog log = commitLog;
        return log == null ? 0 : log.appendedMark();
    }

    /**
     * Returns once every transaction appended when {@code mark} was taken ({@link #appendedMark}) is
     * durable; at once when the database logs nothing.
     *
     * @throws CommitLog.NotDurableException if the log failed first
     */
    public void awaitMarkDurable(long mark) {
        CommitLog log = commitLog;
        if (log != null) {
            log.awaitMarkDurable(mark);
        }
    }

    /** A cleared {@link Redo} for a logging transaction of the calling thread; give it back with {@link #returnRedo}. */
    Redo takeRedo() {
        Redo[] spare = spareRedo.get();
        Redo redo = spare[0];
        if (redo == null) {
            return new Redo(); // a second transaction open on this thread
        }
        spare[0] = null;
        redo.clear();
        return redo;
    }

    void returnRedo(Redo redo) {
        spareRedo.get()[0] = redo;
    }

    public ComputeNode computeNode() {
        return node;
    }

    public String concurrencyControl() {
        return cc.name();
    }

    /** Every table, in definition order: the table with id {@code i} ({@code heap().tableId()}) is at {@code i - 1}. */
    public java.util.List<Table> tables() {
        return java.util.List.copyOf(tables.values());
    }

    public Table table(String name) {
        Table table = tables.get(name);
        if (table == null) {
            throw new IllegalArgumentException("unknown table: table=" + name + " known=" + tables.keySet());
        }
        return table;
    }

    public Index index(String name) {
        Index index = indexes.get(name);
        if (index == null) {
            throw new IllegalArgumentException("unknown index: index=" + name + " known=" + indexes.keySet());
        }
        return index;
    }

    /**
     * Starts a bulk load on the calling thread: rows written without transactions, for filling tables
     * before a workload runs (see {@link BulkLoad} for its contract). Close it when done.
     */
    public BulkLoad bulkLoad() {
        return new BulkLoad(bulkLoaded);
    }

    /**
     * Leaves this node's secondary indexes empty until {@link DeferredIndexes#build} files every row in
     * them (see {@link DeferredIndexes}): for loading rows that are consistent only as a whole, such as
     * a fuzzy checkpoint before its log replay.
     *
     * @throws IllegalStateException if a secondary index has entries, or the indexes are deferred already
     */
    public DeferredIndexes deferSecondaryIndexes() {
        return new DeferredIndexes(tables());
    }

    /**
     * Starts a transaction on the calling thread.
     *
     * @throws io.selcc.fabric.NodeFailedException if this compute node crashed ({@link Database#crash})
     */
    public Transaction begin() {
        return begin(cc.newAge(), 1);
    }

    /**
     * Starts attempt {@code attempt} of a transaction of wait-die age {@code age} (see
     * {@link ConcurrencyControl#begin(long, int)}).
     */
    private Transaction begin(long age, int attempt) {
        if (crashed) {
            throw new io.selcc.fabric.NodeFailedException(node.nodeId(), "compute node " + node.nodeId() + " has crashed");
        }
        CommitsInFlight.Slot slot = inFlight.began(); // waits while logging starts
        try {
            // Counted from before the algorithm starts: TO's timestamp FAA is part of the transaction.
            CounterSnapshot start = node.counters().threadSnapshot();
            return new Transaction(this, cc.begin(age, attempt), start, slot);
        } catch (RuntimeException | Error e) {
            inFlight.ended(slot);
            throw e;
        }
    }

    /** Runs {@code body} as a transaction, retrying conflict aborts with {@link RetryPolicy#defaults()}. */
    public <T> TxnResult<T> run(Function<Transaction, T> body) {
        return run(RetryPolicy.defaults(), body);
    }

    /**
     * Runs {@code body} as a transaction and commits it, retrying conflict aborts with backoff. The body
     * may end the transaction itself ({@link Transaction#abort()}: no retry), or throw {@link AbortException}
     * with a retryable reason to have it rolled back and retried. Other exceptions roll the transaction
     * back and propagate.
     */
    public <T> TxnResult<T> run(RetryPolicy policy, Function<Transaction, T> body) {
        Map<AbortReason, Integer> aborts = new EnumMap<>(AbortReason.class);
        long age = cc.newAge(); // every attempt keeps the first one's: under wait-die it grows oldest and wins
        for (int attempt = 1; ; attempt++) {
            Transaction tx = begin(age, attempt);
            T value = null;
            CommitOutcome outcome;
            try {
                value = body.apply(tx);
                outcome = tx.isActive() ? tx.commit() : tx.outcome();
            } catch (AbortException e) {
                // The algorithm rolled back already; an application that throws it itself (a stale read
                // it detected) may not have: roll back here so no latch outlives the attempt.
                tx.abortQuietly(e.reason());
                outcome = CommitOutcome.aborted(e.reason());
            } catch (RuntimeException | Error e) {
                try {
                    tx.abortQuietly();
                } catch (RuntimeException | Error cleanup) {
                    e.addSuppressed(cleanup); // the first failure is the one to report
                }
                throw e;
            }
            if (outcome.committed()) {
                return new TxnResult<>(value, outcome, attempt, aborts);
            }
            if (crashed) {
                // This node crashed meanwhile (its log refused the commit, say): it is gone, not aborted.
                throw new io.selcc.fabric.NodeFailedException(node.nodeId(), "compute node " + node.nodeId()
                    + " has crashed");
            }
            aborts.merge(outcome.reason(), 1, Integer::sum);
            if (!outcome.reason().isRetryable()) {
                return new TxnResult<>(null, outcome, attempt, aborts);
            }
            if (awaitRepairs.getAsBoolean()) {
                attempt--; // it met a crashed node's line, most likely: an attempt the repair took, not a conflict
                continue;
            }
            if (attempt >= policy.maxAttempts()) {
                return new TxnResult<>(null, outcome, attempt, aborts);
            }
            long pause = policy.backoffNanos(attempt, node.roundTripNanos());
            if (pause > 0) {
                backOff(pause);
            }
        }
    }

    /**
     * Parks about {@code nanos}. A conflict found through an in-JVM message leaves this thread a
     * permit (the receiver's handler ran here and completed the reply), and the first park returns at
     * once: the backoff then did nothing, and a dying virtual thread kept its carrier from the older
     * transaction it died for (WaitDieBankTest saw 100,000 attempts in two seconds). At most three parks.
     */
    private static void backOff(long nanos) {
        long until = System.nanoTime() + nanos;
        for (int parks = 0; parks < 3; parks++) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return;
            }
            LockSupport.parkNanos(left);
        }
    }
}
