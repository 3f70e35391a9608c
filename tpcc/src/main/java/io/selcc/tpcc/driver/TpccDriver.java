package io.selcc.tpcc.driver;

import io.selcc.cache.SharedMemoryFullException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.Counter;
import io.selcc.threads.EngineThread;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.txn.DeliveryInput;
import io.selcc.tpcc.txn.DeliveryResult;
import io.selcc.tpcc.txn.InputGenerator;
import io.selcc.tpcc.txn.NewOrderInput;
import io.selcc.tpcc.txn.OrderStatusInput;
import io.selcc.tpcc.txn.PaymentInput;
import io.selcc.tpcc.txn.StockLevelInput;
import io.selcc.tpcc.txn.TpccTransactions;
import io.selcc.tpcc.txn.TxnType;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Runs TPC-C terminals against a loaded database.
 *
 * <pre>
 *   compute node n: terminal threads n*T .. n*T+T-1 (only the nodes this process hosts run here)
 *   terminal i: home warehouse (i mod W) + 1, home district (i div W) mod 10 + 1 (Stock-Level)
 *   each: draw a type from its deck -> [keying time] -> run with retries -> [think time]
 * </pre>
 *
 * A transaction counts when it started after the warm-up, including those still running when the
 * interval's time is up: the run waits for them, and the measured time runs from the end of the
 * warm-up until the last terminal stopped. The start of the measured interval is fixed before any
 * terminal starts, so without a warm-up every transaction of the run counts (the New-Orders counted
 * are then exactly the orders the run added). Latency is the time of the whole {@code run} call,
 * retries included. Round trips and messages per transaction come from the terminal thread's own
 * counters, so they are exact.
 */
public final class TpccDriver {
    /**
     * Bytes the terminal thread allocates per transaction (input, retries and bookkeeping included):
     * HotSpot counts them exactly per thread (TLAB accounting), so the figure is a count, not a sample.
     */
    private static final com.sun.management.ThreadMXBean ALLOCATION =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    /**
     * Whether terminals measure their CPU time (twice per terminal, at the window's edges): CPU per
     * transaction leaves out time the host took the core away, which dominates throughput's spread here.
     */
    private static final boolean CPU_TIME = ALLOCATION.isCurrentThreadCpuTimeSupported();

    private static final long PROGRESS_NANOS = 1_000_000_000L;

    private final Database db;
    private final DriverConfig config;
    /** Each compute node's turns to run a transaction (empty when terminals do not queue), by node id. */
    private final List<Turns> turns = new ArrayList<>();
    private final PrintStream progress;
    private final LongSupplier clock;
    private volatile boolean stop;
    /** Set when a transaction found shared memory full: the run stops early with its results so far. */
    private volatile boolean sharedMemoryFull;
    /** Start of the measured interval (clock nanos), set before any terminal starts. */
    private volatile long measureFrom;
    private final Map<TxnType, LongAdder> liveCommits = new EnumMap<>(TxnType.class);
    /** New-Orders committed (rollbacks excluded) since the run started, warm-up included. */
    private final LongAdder newOrdersCommitted = new LongAdder();
    /** {@link #newOrdersCommitted} by district: index (w - 1) * DISTRICTS + d - 1. */
    private final LongAdder[] newOrdersByDistrict;
    /** Whether progress lines end with durable=N (a commit returns only once durable: --wal sync). */
    private boolean durableProgress;
    private final Map<TxnType, LongAdder> liveAborts = new EnumMap<>(TxnType.class);
    /** Called once when the measured interval starts (after the warm-up), on the driver's thread. */
    private Runnable atMeasureStart = () -> { };
    /** Partitioned mode: each node's terminals run in its partition and reach the others through it; null: shared. */
    private io.selcc.tpcc.txn.PartitionedExecution partitioned;

    /**
     * Ends each progress line with {@code durable=N}: the New-Orders (rollbacks excluded) committed since
     * the run started, warm-up included. Only meaningful when a commit returns once durable (a forcing
     * commit log): then each of them survives a crash. Call before {@link #run}.
     */
    public TpccDriver reportDurableNewOrders() {
        this.durableProgress = true;
        return this;
    }

    /**
     * Runs in partitioned mode over {@code partitions} (of this driver's database, loaded with one table
     * set per compute node): a terminal's home warehouse is one its node owns, its transactions begin
     * there, and rows of another node's warehouses are reached through {@code partitions}' router (two-phase
     * commit, in the baseline). Call before {@link #run}.
     */
    public TpccDriver partitioned(io.selcc.tpcc.txn.PartitionedExecution partitions) {
        if (partitions.database() != db) {
            throw new IllegalArgumentException("partitioned mode of another database");
        }
        if (config.warehouses() < db.computeNodeCount()) {
            throw new IllegalArgumentException("partitioned mode needs a warehouse per compute node: warehouses="
                + config.warehouses() + " computeNodes=" + db.computeNodeCount());
        }
        this.partitioned = partitions;
        return this;
    }

    /**
     * Runs {@code hook} once, on the driver's thread, when the measured interval starts (after the
     * warm-up): a caller snapshots there the counters it reports for the measured interval. Call before
     * {@link #run}.
     */
    public TpccDriver atMeasureStart(Runnable hook) {
        this.atMeasureStart = hook;
        return this;
    }

    /** The most transactions a compute node's terminals ran at once in the last run (0: they did not queue). */
    int mostRunningPerNode() {
        return turns.stream().mapToInt(Turns::mostRunning).max().orElse(0);
    }

    public TpccDriver(Database db, DriverConfig config, PrintStream progress) {
        this(db, config, progress, System::nanoTime);
    }

    public TpccDriver(Database db, DriverConfig config, PrintStream progress, LongSupplier nanoClock) {
        this.db = db;
        this.config = config;
        this.progress = progress;
        this.clock = nanoClock;
        for (TxnType type : TxnType.values()) {
            liveCommits.put(type, new LongAdder());
            liveAborts.put(type, new LongAdder());
        }
        this.newOrdersByDistrict = new LongAdder[config.warehouses() * io.selcc.tpcc.TpccScale.DISTRICTS];
        for (int i = 0; i < newOrdersByDistrict.length; i++) {
            newOrdersByDistrict[i] = new LongAdder();
        }
    }

    /**
     * The New-Orders this driver's terminals committed so far (rollbacks excluded, warm-up included), by
     * district: element (w - 1) * 10 + d - 1. Safe while the run goes on (a snapshot of live counters): a
     * run takes one when something happens (a compute node's repair ended) and reports what came after.
     */
    public long[] newOrdersByDistrict() {
        long[] counts = new long[newOrdersByDistrict.length];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = newOrdersByDistrict[i].sum();
        }
        return counts;
    }

    /**
     * A terminal's transaction aborted because the commit log refused it ({@link AbortReason#LOG_FAILED}):
     * no writer can commit any more, so the terminal fails and the run stops.
     */
    public static final class LogFailedException extends IllegalStateException {
        public LogFailedException(String message) {
            super(message);
        }
    }

    /**
     * Ends a running {@link #run} early, from another thread (an agent of the run that failed): each
     * terminal finishes its transaction and stops, and {@code run} returns the figures until then.
     */
    public void stop() {
        stop = true;
    }

    /** How long terminals may go on after the run failed before they are left behind ({@link #giveUpOnTerminalsAfter}). */
    private long giveUpNanos = 30_000_000_000L;

    /**
     * Once the run failed, a terminal that does not stop within {@code wait} is left behind and reported:
     * it waits on something the failure left (a transaction in doubt whose coordinator's log failed
     * keeps its latches until that coordinator recovers, which the run does not do). Default 30 s.
     */
    public void giveUpOnTerminalsAfter(java.time.Duration wait) {
        this.giveUpNanos = wait.toNanos();
    }

    /**
     * Waits for every terminal to stop; once a terminal failed, waits at most {@link #giveUpNanos} more and
     * reports those still running as failures (their threads are left: the caller is failing the run).
     */
    private void awaitTerminals(List<Thread> threads, Queue<Throwable> failures) throws InterruptedException {
        long giveUpAt = Long.MAX_VALUE;
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                thread.join(java.time.Duration.ofMillis(100)); // a bounded join: a failure may arrive meanwhile
                if (giveUpAt == Long.MAX_VALUE && !failures.isEmpty()) {
                    giveUpAt = clock.getAsLong() + giveUpNanos;
                }
                if (thread.isAlive() && clock.getAsLong() > giveUpAt) {
                    failures.add(new IllegalStateException("terminal " + thread.getName() + " did not stop within "
                        + giveUpNanos / 1_000_000_000 + " s after the run failed: it waits on what the failure left"
                        + " (a transaction in doubt, say, whose coordinator is down)"));
                    break;
                }
            }
        }
    }

    /**
     * Runs warm-up and the measured interval; blocks until every terminal stopped.
     *
     * @throws IllegalStateException if a terminal failed (with the first failure as cause and the
     *                               other terminals' failures suppressed; a commit the log refused is
     *                               a {@link LogFailedException}); the run stops at the first
     */
    public DriverResult run() throws InterruptedException {
        int nodes = db.computeNodeCount();
        if ((partitioned != null || config.crossPartitionPercent() >= 0) && config.warehouses() < nodes) {
            throw new IllegalArgumentException("terminals homed by partition need a warehouse per compute node:"
                + " warehouses=" + config.warehouses() + " computeNodes=" + nodes);
        }
        if ((partitioned != null || config.crossPartitionPercent() >= 0)
            && config.placement() != TerminalPlacement.Placement.HOME) {
            throw new IllegalArgumentException("terminals homed by partition run on their warehouse's node:"
                + " placement=" + config.placement().label());
        }
        List<Terminal> terminals = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        SplittableRandom seeds = new SplittableRandom(config.seed());
        TerminalPlacement placement = config.terminals(nodes);
        CarrierUsage carriers = config.terminalThreads() == DriverConfig.TerminalThreads.VIRTUAL ? new CarrierUsage() : null;
        turns.clear();
        if (config.activePerNode() != DriverConfig.UNLIMITED) {
            for (int node = 0; node < nodes; node++) {
                turns.add(new Turns(config.activePerNode()));
            }
        }
        // Fixed before the first terminal starts: a transaction that starts at or after it counts.
        long start = clock.getAsLong();
        long measuredStart = start + config.warmupNanos();
        measureFrom = measuredStart;
        for (TerminalPlacement.Terminal home : placement.terminals()) {
            SplittableRandom random = seeds.split(); // for every terminal: its stream is its own wherever it runs
            if (!db.cluster().hosts(home.node())) {
                continue; // a compute node in another process runs its own terminals
            }
            DatabaseNode node = db.node(home.node());
            Terminal terminal = new Terminal(node, home, random, carriers == null,
                turns.isEmpty() ? null : turns.get(home.node()));
            terminals.add(terminal);
            int nodeId = home.node();
            Runnable body = () -> {
                try {
                    terminal.loop();
                } catch (io.selcc.fabric.NodeFailedException e) {
                    if (e.node() != nodeId) {
                        failures.add(e); // a survivor never sees another node's crash: a bug
                        stop = true;
                    }
                    // Its own node crashed (Database.crash): the terminal stops with it, the others go on.
                } catch (SharedMemoryFullException e) {
                    sharedMemoryFull = true; // not a terminal failure: the run ends early, results kept
                    stop = true;
                } catch (Throwable e) {
                    failures.add(e);
                    stop = true;
                }
            };
            String name = "tpcc-terminal-" + home.index();
            threads.add(carriers != null ? EngineThread.startVirtual(name, body) : EngineThread.start(name, body));
        }
        long gclsAtStart = 0;
        try {
            phase("warmup", start, measuredStart);
            gclsAtStart = db.cluster().gclsInUse();
            if (carriers != null) {
                carriers.measureFrom();
            }
            atMeasureStart.run(); // what other counters count from here belongs to the measured interval
            phase("run", measuredStart, measuredStart + config.durationNanos());
        } finally {
            stop = true;
            turns.forEach(Turns::open); // a terminal queued for its turn finds the run stopped
            awaitTerminals(threads, failures);
        }
        long measuredEnd = clock.getAsLong();
        if (carriers != null) {
            carriers.measureTo();
        }
        if (!failures.isEmpty()) {
            Throwable first = failures.poll();
            IllegalStateException e = new IllegalStateException((failures.size() + 1) + " terminal(s) failed, first: "
                + first, first);
            failures.forEach(e::addSuppressed);
            throw e;
        }
        Map<TxnType, TypeStats> merged = new EnumMap<>(TxnType.class);
        for (TxnType type : TxnType.values()) {
            merged.put(type, new TypeStats());
        }
        InputShares shares = new InputShares();
        List<Long> completedByTerminal = new ArrayList<>();
        for (Terminal terminal : terminals) {
            terminal.stats.forEach((type, s) -> merged.get(type).merge(s));
            shares.merge(terminal.shares);
            completedByTerminal.add(terminal.stats.values().stream().mapToLong(TypeStats::committed).sum());
        }
        long sharedBytesGrown = (db.cluster().gclsInUse() - gclsAtStart) * db.liveNode().computeNode().gclSize();
        // Virtual terminals have no CPU time or allocation counts of their own (the JDK keeps them per
        // platform thread): what their carriers used over the measured interval stands for them.
        long terminalCpuNanos = carriers != null ? carriers.cpuNanos()
            : terminals.stream().mapToLong(t -> t.measuredCpuNanos).sum();
        long allocated = carriers != null ? carriers.allocatedBytes()
            : merged.values().stream().mapToLong(st -> st.allocatedBytes).sum();
        return new DriverResult(config, Math.max(0, measuredEnd - measuredStart), merged, shares, completedByTerminal,
            sharedMemoryFull, sharedBytesGrown, terminalCpuNanos, allocated);
    }

    /** Waits until {@code end}, printing a progress line each second. */
    private void phase(String name, long begin, long end) {
        long[] lastCommits = new long[TxnType.values().length];
        long[] lastAborts = new long[TxnType.values().length];
        for (TxnType type : TxnType.values()) {
            // From the phase's start: the run's first line once included every warm-up commit.
            lastCommits[type.ordinal()] = liveCommits.get(type).sum();
            lastAborts[type.ordinal()] = liveAborts.get(type).sum();
        }
        long tick = begin;
        while (!stop && clock.getAsLong() - end < 0) {
            long next = Math.min(tick + PROGRESS_NANOS, end);
            while (!stop && clock.getAsLong() - next < 0) {
                LockSupport.parkNanos(Math.min(next - clock.getAsLong(), 50_000_000L));
            }
            long now = clock.getAsLong();
            if (progress != null && now - begin > 0) {
                StringBuilder types = new StringBuilder();
                long total = 0;
                for (TxnType type : TxnType.values()) {
                    long commits = liveCommits.get(type).sum();
                    long aborts = liveAborts.get(type).sum();
                    types.append(String.format(Locale.ROOT, "  %s %d/s (%d ab/s)", type.jsonName(),
                        commits - lastCommits[type.ordinal()], aborts - lastAborts[type.ordinal()]));
                    total += commits - lastCommits[type.ordinal()];
                    lastCommits[type.ordinal()] = commits;
                    lastAborts[type.ordinal()] = aborts;
                }
                if (durableProgress) {
                    types.append("  durable=").append(newOrdersCommitted.sum());
                }
                progress.printf(Locale.ROOT, "%-6s %6.1f s %,9d txn/s%s%n", name, (now - begin) / 1e9, total, types);
            }
            tick = next;
        }
    }

    /** One emulated terminal: its home warehouse and district, deck, random stream and statistics. */
    private final class Terminal {
        private final DatabaseNode node;
        private final int homeW;
        private final int homeD;
        private final SplittableRandom random;
        private final Mix.Deck deck;
        private final InputGenerator inputs;
        private final TpccTransactions transactions;
        /** Partitioned mode: what runs this terminal's transactions across partitions; null in shared mode. */
        private final io.selcc.tpcc.txn.PartitionedExecution.Runner partitionedRunner;
        private final int nodeId;
        /** Its node's turns to run a transaction; null when terminals do not queue. */
        private final Turns turns;
        final Map<TxnType, TypeStats> stats = new EnumMap<>(TxnType.class);
        final InputShares shares = new InputShares();
        /** Whether this terminal measures its own thread's CPU time and allocation (a platform thread). */
        private final boolean ownCpuTime;
        /** This thread's CPU time when its first measured transaction began; -1 before. */
        private long cpuFrom = -1;
        /** CPU time this thread used from its first measured transaction until it stopped. */
        long measuredCpuNanos;
        /** This thread's counters before and after the current transaction (reused: no snapshot per transaction). */
        private final long[] countsBefore = new long[Counter.values().length];
        private final long[] countsAfter = new long[Counter.values().length];

        Terminal(DatabaseNode node, TerminalPlacement.Terminal home, SplittableRandom random, boolean ownCpuTime,
                 Turns turns) {
            this.node = node;
            this.turns = turns;
            this.nodeId = node.computeNode().nodeId();
            this.ownCpuTime = ownCpuTime && CPU_TIME;
            int nodes = db.computeNodeCount();
            this.homeW = home.homeWarehouse();
            this.homeD = home.homeDistrict();
            this.random = random;
            this.deck = new Mix.Deck(config.mix(), random.split());
            this.inputs = new InputGenerator(new TpccRandom(random.nextLong(), config.constants()), config.warehouses());
            if (config.crossPartitionPercent() >= 0) {
                inputs.crossPartition(nodes, config.crossPartitionPercent());
            }
            if (partitioned != null) {
                this.transactions = new TpccTransactions(node, nodeId);
                this.partitionedRunner = partitioned.terminal(nodeId);
            } else {
                this.transactions = new TpccTransactions(node);
                this.partitionedRunner = null;
            }
            for (TxnType type : TxnType.values()) {
                stats.put(type, new TypeStats());
            }
        }

        void loop() {
            try {
                runUntilStopped();
            } finally {
                if (cpuFrom >= 0) {
                    measuredCpuNanos = ALLOCATION.getCurrentThreadCpuTime() - cpuFrom;
                }
            }
        }

        private void runUntilStopped() {
            while (!stop) {
                TxnType type = deck.draw();
                if (config.waitTimes()) {
                    pause(WaitTimes.keyingNanos(type));
                }
                if (stop) {
                    return;
                }
                execute(type);
                if (config.waitTimes()) {
                    pause(WaitTimes.thinkNanos(type, random));
                }
            }
        }

        private void execute(TxnType type) {
            long nowMicros = System.currentTimeMillis() * 1000;
            long allocatedBefore = ownCpuTime ? ALLOCATION.getCurrentThreadAllocatedBytes() : 0;
            node.computeNode().counters().threadCounts(countsBefore);
            long started = clock.getAsLong();
            if (cpuFrom < 0 && started - measureFrom >= 0 && ownCpuTime) {
                cpuFrom = ALLOCATION.getCurrentThreadCpuTime();
            }
            // The input is keyed once; a retry after a conflict resubmits the same transaction.
            Object input = null;
            TxnResult<?> result = switch (type) {
                case NEW_ORDER -> {
                    NewOrderInput in = inputs.newOrder(homeW, nowMicros);
                    input = in;
                    yield run((tx, router) -> transactions.newOrder(tx, router, in));
                }
                case PAYMENT -> {
                    PaymentInput in = inputs.payment(homeW, nowMicros);
                    input = in;
                    yield run((tx, router) -> transactions.payment(tx, router, in));
                }
                case ORDER_STATUS -> {
                    OrderStatusInput in = inputs.orderStatus(homeW);
                    input = in;
                    yield run((tx, router) -> transactions.orderStatus(tx, in));
                }
                case DELIVERY -> {
                    DeliveryInput in = inputs.delivery(homeW, nowMicros);
                    yield run((tx, router) -> transactions.delivery(tx, in));
                }
                case STOCK_LEVEL -> {
                    StockLevelInput in = inputs.stockLevel(homeW, homeD);
                    yield run((tx, router) -> transactions.stockLevel(tx, in));
                }
            };
            if (result == null) {
                return; // stopped before its turn came
            }
            long ended = clock.getAsLong();
            if (result.outcome().reason() == AbortReason.SHARED_MEMORY_FULL) {
                sharedMemoryFull = true;
                stop = true;
            }
            if (result.outcome().reason() == AbortReason.LOG_FAILED && !db.cluster().crashed(node.computeNode().nodeId())) {
                // The log refused the commit (a full disk, say): every later writer would fail too. (A
                // crashed node's log is sealed: its terminal stops at its next access, as for any crash.)
                throw new LogFailedException(type + " on compute node " + node.computeNode().nodeId() + " could not be logged ("
                    + AbortReason.LOG_FAILED + ")");
            }
            long allocated = ownCpuTime ? ALLOCATION.getCurrentThreadAllocatedBytes() - allocatedBefore : 0;
            node.computeNode().counters().threadCounts(countsAfter);
            boolean rolledBack = result.outcome().reason() == AbortReason.USER_ABORT;
            boolean completed = result.committed() || rolledBack;
            int conflicts = 0;
            for (Map.Entry<AbortReason, Integer> abort : result.aborts().entrySet()) {
                if (abort.getKey().isRetryable()) {
                    conflicts += abort.getValue();
                }
            }
            if (completed) {
                liveCommits.get(type).increment();
                if (type == TxnType.NEW_ORDER && !rolledBack) {
                    newOrdersCommitted.increment(); // after the commit returned: acknowledged
                    if (input instanceof NewOrderInput in) {
                        newOrdersByDistrict[(in.w() - 1) * io.selcc.tpcc.TpccScale.DISTRICTS + in.d() - 1].increment();
                    }
                }
            }
            liveAborts.get(type).add(conflicts);
            if (started - measureFrom < 0) {
                return; // began during warm-up: not counted
            }
            TypeStats s = stats.get(type);
            if (completed) {
                s.committed++;
                if (rolledBack) {
                    s.rolledBack++;
                }
            } else {
                s.failed++;
            }
            result.aborts().forEach((reason, n) -> {
                if (reason.isRetryable()) {
                    s.aborts.merge(reason, (long) n, Long::sum);
                }
            });
            if (!rolledBack && result.value() instanceof DeliveryResult delivery) {
                s.skippedDistricts += delivery.skippedDistricts();
                shares.delivery(delivery.skippedDistricts());
            }
            switch (input) {
                case NewOrderInput in -> shares.newOrder(in);
                case PaymentInput in -> shares.payment(in);
                case OrderStatusInput in -> shares.orderStatus(in);
                case null, default -> { }
            }
            s.latencyMicros.recordValue(Math.max(0, (ended - started) / 1000));
            s.roundTrips += cost(Counter.ROUND_TRIPS);
            s.messages += cost(Counter.MESSAGES_SENT);
            // A failed optimistic read is retried latched, which counts a hit or a miss: one access, not two.
            s.gclAccesses += cost(Counter.CACHE_HITS) + cost(Counter.CACHE_MISSES) + cost(Counter.OPTIMISTIC_READS)
                - cost(Counter.OPTIMISTIC_FAILURES);
            s.bytesRead += cost(Counter.BYTES_READ);
            s.allocatedBytes += allocated;
        }

        /**
         * Runs a profile's body and commits it, retrying conflicts: on this node (the router is null: every
         * warehouse is local), or in partitioned mode as a transaction homed here whose other-partition rows
         * go through the router. With turns, in its node's turn; null when the run stopped while it queued.
         */
        private <T> TxnResult<T> run(java.util.function.BiFunction<io.selcc.engine.Transaction,
                                         io.selcc.tpcc.txn.WarehouseRouter, T> body) {
            if (turns != null && !turns.take(() -> stop)) {
                return null; // the run stopped while it queued: no transaction
            }
            try {
                return partitionedRunner == null ? node.run(config.retry(), tx -> body.apply(tx, null))
                    : partitionedRunner.run(config.retry(), body);
            } finally {
                if (turns != null) {
                    turns.give();
                }
            }
        }

        /** What the last transaction (its retries included) counted of {@code counter} on this thread. */
        private long cost(Counter counter) {
            return countsAfter[counter.ordinal()] - countsBefore[counter.ordinal()];
        }

        private void pause(long nanos) {
            long until = clock.getAsLong() + nanos;
            while (!stop && clock.getAsLong() - until < 0) {
                LockSupport.parkNanos(Math.min(until - clock.getAsLong(), 100_000_000L)); // emulated user, not sync
            }
        }
    }
}
