package io.selcc.twopc;

import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.MessageKind;
import io.selcc.twopc.Messages.Decide;
import io.selcc.twopc.Messages.Inquire;
import io.selcc.twopc.Messages.Op;
import io.selcc.twopc.Messages.Prepare;

import io.selcc.wal.TwoPhaseLog;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Partitioned mode, the baseline fully-shared SELCC is compared with: each compute node owns a partition
 * of the data and touches only its own rows, through its own cache; work on another partition is
 * shipped to its owner as messages over the fabric and runs there under the owner's concurrency
 * control; a transaction that touched several partitions commits by two-phase commit.
 *
 * <p><b>The protocol</b> (presumed abort). The home node coordinates. At its own commit point (its
 * write latches held) it sends <em>prepare</em> to every remote branch at once; each installs the
 * after-images the prepare carries, reaches its own commit point, forces a prepare record with its
 * changes and votes yes, holding every lock; a branch that only read votes read-only, releases, and
 * drops out. All yes: the coordinator forces its commit decision (with its own branch's changes), commits
 * its branch, and sends commit to the yes voters, which install, write their commit record as any
 * commit does (forced with {@code --wal sync}), release their locks, and only then acknowledge. Any no,
 * or a lost answer: abort is sent, nothing logged. A prepared branch never decides alone: without a
 * decision it keeps its locks and asks the coordinator until it gets an answer.
 *
 * <p>Partitioned mode runs no-wait 2PL. OCC and TO branches validate (or check timestamps) each at its
 * own moment, and a read-only branch that drops out at prepare releases its reads before the others
 * decide: serializable under 2PL, where every lock is held until the prepare, not in general for the
 * other two.
 *
 * <p>Forced records per distributed transaction that commits with {@code k} remote branches that wrote:
 * {@code k} prepare records and one decision, plus each branch's commit record in its commit log.
 * Messages: one per remote operation, then {@code k'} prepares (every remote branch) and {@code k}
 * decisions; round trips: one per remote operation, one for the prepare wave, one for the decision wave.
 */
public final class PartitionedDatabase implements AutoCloseable {
    private final Database db;
    private final Coordinator[] coordinators;
    private final Participant[] participants;
    private final ExecutorService branchThreads;
    private final Counters counters = new Counters();
    private final TwoPcFaults faults;
    private final long timeoutNanos;
    /** Where the two-phase-commit logs are, or null when they live in memory. */
    private final Path logRoot;
    private volatile boolean closed;

    private PartitionedDatabase(Builder b) {
        this.db = b.database;
        this.faults = b.faults;
        this.logRoot = b.logRoot;
        if (!"2pl".equals(db.concurrencyControl())) {
            throw new IllegalArgumentException("partitioned mode runs 2pl only, not " + db.concurrencyControl()
                + ": an OCC or TO branch validates at its own moment, and a read-only branch releases at prepare");
        }
        if (db.lockWait() != io.selcc.engine.cc.LockWaitPolicy.NO_WAIT) {
            // Each branch begins on its node with an age of its own and a retry draws new ones: the one
            // order of ages that keeps wait-die free of deadlock and starvation would not hold across nodes.
            throw new IllegalArgumentException("partitioned mode runs 2pl no-wait only, not lock wait "
                + db.lockWait() + ": the branches of a transaction do not share a wait-die age yet");
        }
        // Every node opened every table (reading its root line), and a load's report reads every partition:
        // emptied caches hold no line of another node's partition, so no invalidation crosses nodes from here.
        db.writeBackCaches();
        int n = db.computeNodeCount();
        AtomicInteger threadNumber = new AtomicInteger();
        this.branchThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "twopc-branch-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.coordinators = new Coordinator[n];
        this.participants = new Participant[n];
        this.timeoutNanos = b.timeout.toNanos();
        try {
            for (int i = 0; i < n; i++) {
                coordinators[i] = new Coordinator(i, b.logRoot == null ? null : TwoPhaseLog.directory(b.logRoot, i), b.forcing);
                Coordinator c = coordinators[i];
                FabricEndpoint endpoint = db.cluster().fabric().endpoint(i);
                participants[i] = new Participant(db.node(i), endpoint, c::log, branchThreads, counters, faults, timeoutNanos);
                Participant p = participants[i];
                // The handler waits for the branch's thread: the in-JVM fabric runs it on the sender's thread,
                // a network fabric on a handler thread of this node.
                endpoint.register(MessageKind.TWO_PHASE_COMMIT, Messages.CODEC, (from, request, reply) ->
                    reply.reply(switch ((Messages.Request) request) {
                        case Op op -> p.onOp(from, op);
                        case Prepare prepare -> p.onPrepare(prepare);
                        case Decide decide -> p.onDecide(decide);
                        case Inquire inquire -> c.onInquire(inquire.gtid());
                    }));
            }
        } catch (RuntimeException | Error e) {
            closeLogs();
            branchThreads.shutdownNow();
            throw e;
        }
    }

    /**
     * Partitioned mode over {@code database}'s compute nodes (which the caller keeps and closes). Build it
     * after loading, while no transaction runs: building writes back and empties every cache.
     */
    public static Builder builder(Database database) {
        return new Builder(database);
    }

    /**
     * Begins a transaction whose home is {@code node}, on the calling thread (which must be one of that
     * node's: the home branch is an engine transaction of it).
     */
    public DistributedTransaction begin(int node) {
        if (closed) {
            throw new IllegalStateException("partitioned database closed");
        }
        if (node < 0 || node >= coordinators.length) {
            throw new IllegalArgumentException("no such compute node: " + node + " (nodes: " + coordinators.length + ")");
        }
        if (coordinators[node].isDown()) {
            throw new CoordinatorFailedException(node, coordinators[node].downBecause());
        }
        // The coordinator's own branch waits for no latch either: it may hold latches while its remote branches wait.
        return new DistributedTransaction(this, node, db.node(node).begin().asDistributedBranch(),
            coordinators[node].nextGlobalId());
    }

    /**
     * Runs {@code body} as a transaction whose home is {@code node} and commits it, retrying conflict
     * aborts with {@code policy}'s backoff, as {@link DatabaseNode#run(RetryPolicy, java.util.function.Function)}
     * does for a local one. The body may roll the home branch back itself ({@code local().abort()}: no retry,
     * the remote branches are rolled back too) or throw {@link AbortException} to have everything rolled
     * back and retried. Other exceptions roll back and propagate.
     */
    public <T> TxnResult<T> run(int node, RetryPolicy policy, java.util.function.Function<DistributedTransaction, T> body) {
        Map<AbortReason, Integer> aborts = new EnumMap<>(AbortReason.class);
        for (int attempt = 1; ; attempt++) {
            DistributedTransaction tx = begin(node);
            T value = null;
            CommitOutcome outcome;
            try {
                value = body.apply(tx);
                if (tx.isActive() && !tx.local().isActive()) {
                    outcome = tx.local().outcome(); // the body rolled its home branch back
                    tx.close();
                } else {
                    outcome = tx.isActive() ? tx.commit() : tx.outcome();
                    tx.close(); // ended: rolls back a home branch a rollback under a callback on local() left
                }
            } catch (AbortException e) {
                tx.close();
                outcome = CommitOutcome.aborted(e.reason());
            } catch (RuntimeException | Error e) {
                try {
                    tx.close();
                } catch (RuntimeException | Error cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            if (outcome.committed()) {
                return new TxnResult<>(value, outcome, attempt, aborts);
            }
            aborts.merge(outcome.reason(), 1, Integer::sum);
            if (!outcome.reason().isRetryable() || attempt >= policy.maxAttempts()) {
                return new TxnResult<>(null, outcome, attempt, aborts);
            }
            long pause = policy.backoffNanos(attempt);
            if (pause > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(pause);
            }
        }
    }

    public int nodeCount() {
        return coordinators.length;
    }

    public Database database() {
        return db;
    }

    /** What the protocol did so far, all nodes together. */
    public TwoPcStats stats() {
        long forces = 0;
        for (Coordinator c : coordinators) {
            forces += c.log().forces();
        }
        return counters.snapshot(forces);
    }

    /** Branches on {@code node} that voted yes and wait for their decision. */
    public int inDoubt(int node) {
        return participants[node].inDoubt();
    }

    /** Remote branches running on {@code node} now, prepared or not. */
    public int branches(int node) {
        return participants[node].branchCount();
    }

    /**
     * Waits until no remote branch runs on {@code node} (every one decided and ended), at most
     * {@code timeout}; whether none does. For tests and an orderly stop.
     */
    public boolean awaitIdle(int node, Duration timeout) throws InterruptedException {
        return participants[node].awaitIdle(timeout.toNanos());
    }

    /**
     * Brings back the coordinator of {@code node} after an injected death: it reads its decisions back
     * from its log and answers the participants that wait for them.
     */
    public void recoverCoordinator(int node) {
        coordinators[node].recover();
    }

    DatabaseNode node(int node) {
        return db.node(node);
    }

    Coordinator coordinator(int node) {
        return coordinators[node];
    }

    Counters counters() {
        return counters;
    }

    TwoPcFaults faults() {
        return faults;
    }

    /** One message and its reply: one round trip. */
    Object send(int from, int to, Object request) {
        counters.messages.increment();
        counters.roundTrips.increment();
        return db.cluster().fabric().endpoint(from).call(to, MessageKind.TWO_PHASE_COMMIT, request);
    }

    /** {@code count} messages sent together: one round trip. */
    Object[] sendAll(int from, int[] to, int count, Object[] requests) {
        Object[] replies = new Object[count];
        counters.messages.add(count);
        counters.roundTrips.increment();
        db.cluster().fabric().endpoint(from).callAll(to, count, MessageKind.TWO_PHASE_COMMIT, requests, replies);
        return replies;
    }

    /**
     * Stops: branches not prepared are rolled back, prepared ones learn their outcome from their
     * coordinators (they never decide alone), the branch threads end and the logs close. The database
     * itself stays open (its owner closes it).
     *
     * @throws IllegalStateException if prepared branches still wait after a while: their coordinator is
     *                               down ({@link #recoverCoordinator}); they keep their locks and their threads
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Participant p : participants) {
            if (p != null) {
                p.close();
            }
        }
        branchThreads.shutdown();
        boolean ended;
        try {
            ended = branchThreads.awaitTermination(Math.max(10_000_000_000L, 20 * timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = false;
        }
        if (!ended) {
            int inDoubt = 0;
            for (Participant p : participants) {
                inDoubt += p.inDoubt();
            }
            throw new IllegalStateException(inDoubt + " prepared branch(es) still wait for their coordinator's decision"
                + " and keep their locks: is a coordinator down? (recoverCoordinator)");
        }
        closeLogs();
    }

    /**
     * {@link #close}, then deletes the two-phase-commit logs: every branch ended, so each decided one's
     * commit record is in its commit log and the decisions are not needed any more. Call it before a
     * checkpoint that truncates the commit logs (a quiet database's final one): a recovery that found the
     * decisions but not their truncated branch records would take those branches for missing and apply
     * their old images over later writes.
     */
    public void closeAndRemoveLogs() {
        close();
        if (logRoot != null) {
            TwoPhaseLog.removeAll(logRoot);
        }
    }

    private void closeLogs() {
        for (Coordinator c : coordinators) {
            if (c != null) {
                c.close();
            }
        }
    }

    public static final class Builder {
        private final Database database;
        private Path logRoot;
        private boolean forcing = true;
        private Duration timeout = Duration.ofSeconds(2);
        private TwoPcFaults faults = TwoPcFaults.NONE;

        private Builder(Database database) {
            this.database = Objects.requireNonNull(database, "database");
        }

        /**
         * Keep each node's two-phase-commit log on disk under {@code directory} ({@code twopc-node-N}),
         * forced record by record (unless {@link #forceRecords} says not to: {@code --wal async}); without it
         * the logs live in memory and force nothing.
         */
        public Builder logDirectory(Path directory) {
            this.logRoot = directory;
            return this;
        }

        /**
         * How long a branch waits for its coordinator before acting: an unprepared one rolls back, a
         * prepared one asks for the outcome (and keeps asking, each time after this long).
         */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Whether an on-disk log forces each record (true, the default) or only appends it ({@code --wal async}). */
        public Builder forceRecords(boolean forcing) {
            this.forcing = forcing;
            return this;
        }

        public Builder faults(TwoPcFaults faults) {
            this.faults = Objects.requireNonNull(faults, "faults");
            return this;
        }

        public PartitionedDatabase build() {
            return new PartitionedDatabase(this);
        }
    }
}
