package io.selcc.tpcc.load;

import io.selcc.tpcc.TpccScale;
import io.selcc.cache.SharedMemoryFullException;
import io.selcc.engine.BulkLoad;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.storage.TupleView;
import io.selcc.threads.EngineThread;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Loads the initial population of [SPEC] 4.3.3.1 into an empty database defined by
 * {@link TpccSchema#define}.
 *
 * <pre>
 *   units (item chunks, per warehouse: its row and stock chunks, per district: everything under it)
 *        |  one shared queue, biggest first
 *        v
 *   node 0: threadsPerNode threads ... node n-1: threadsPerNode threads
 *        each thread: take a unit, write its rows through the thread's bulk load
 * </pre>
 *
 * <p>Rows go in through {@link DatabaseNode#bulkLoad()}, not transactions: nothing else runs while the
 * database loads, and a bulk load writes each heap page once and puts index entries into the trees a
 * sorted batch at a time (see {@link BulkLoad}).
 *
 * <p>Every unit draws from its own stream seeded from the load's seed and the unit's ids, so the data is
 * the same for a seed whatever the number of nodes and threads. The only other input is the load's timestamp
 * (C_SINCE, O_ENTRY_D, H_DATE, OL_DELIVERY_D), taken once when {@link #load()} starts.
 *
 * <p>HISTORY rows loaded for district (w, d) use origin {@code LOAD_HISTORY_ORIGIN_BASE + (w << 5 | d)}
 * in {@link TpccSchema.History#id}; origins the run uses must stay below {@link #LOAD_HISTORY_ORIGIN_BASE}.
 *
 * <p>{@link #load()} is called once, by one thread; it starts and joins its own named loader threads.
 */
public final class TpccLoader {
    /** The first HISTORY origin the loader uses; run-time origins must be below it. */
    public static final long LOAD_HISTORY_ORIGIN_BASE = TpccSchema.History.LOADER_ORIGIN_BASE;

    private static final long PROGRESS_INTERVAL_MILLIS = 1_000;

    private final Database db;
    private final int warehouses;
    private final long seed;
    private final TpccRandom.Constants constants;
    private final int threadsPerNode;
    private final PrintStream progress;
    /** 0: fully-shared mode's one set of tables; else partitioned mode with this many partitions. */
    private final int partitions;
    private final LongAdder[] rows = new LongAdder[LoadTables.COUNT];

    /**
     * @param db             an empty database with the TPC-C schema
     * @param warehouses     warehouses to load, 1..{@link TpccSchema#MAX_WAREHOUSES}
     * @param seed           the seed of all random streams
     * @param constants      NURand constants; C_LAST uses {@code cLastLoad}
     * @param threadsPerNode loader threads per compute node, at least 1
     * @param progress       where to print progress lines (may be null for none)
     */
    public TpccLoader(Database db, int warehouses, long seed, TpccRandom.Constants constants, int threadsPerNode,
                      PrintStream progress) {
        this(db, warehouses, seed, constants, threadsPerNode, progress, 0);
    }

    /**
     * A loader for partitioned mode when {@code partitions} is above 0: compute node {@code p} loads the
     * tables of partition {@code p} ({@link TpccSchema#define(Database.Builder, int)}) with the warehouses
     * it owns ({@link TpccSchema#owner}) and its own copy of ITEM, so no node caches a line of another's
     * partition. The rows are the same as fully-shared mode's.
     */
    public TpccLoader(Database db, int warehouses, long seed, TpccRandom.Constants constants, int threadsPerNode,
                      PrintStream progress, int partitions) {
        if (partitions < 0 || partitions > 0 && partitions != db.computeNodeCount()) {
            throw new IllegalArgumentException("partitions must be 0 or the number of compute nodes ("
                + db.computeNodeCount() + "): partitions=" + partitions);
        }
        if (partitions > warehouses) {
            throw new IllegalArgumentException("more partitions than warehouses: partitions=" + partitions
                + " warehouses=" + warehouses);
        }
        this.partitions = partitions;
        if (warehouses < 1 || warehouses > TpccSchema.MAX_WAREHOUSES) {
            throw new IllegalArgumentException("warehouses out of range: warehouses=" + warehouses + " (1.."
                + TpccSchema.MAX_WAREHOUSES + ")");
        }
        if (threadsPerNode < 1) {
            throw new IllegalArgumentException("threadsPerNode must be >= 1: threadsPerNode=" + threadsPerNode);
        }
        this.db = Objects.requireNonNull(db, "db");
        this.warehouses = warehouses;
        this.seed = seed;
        this.constants = Objects.requireNonNull(constants, "constants");
        this.threadsPerNode = threadsPerNode;
        this.progress = progress;
        for (int t = 0; t < rows.length; t++) {
            rows[t] = new LongAdder();
        }
    }

    /**
     * Loads everything and returns when done; prints progress about once a second.
     *
     * @throws IllegalStateException if a row's key exists; the other threads stop after their current batch
     *                               and the database keeps what was written so far (a partial load)
     * @throws SharedMemoryFullException if the memory nodes have no room for the population
     */
    public LoadReport load() {
        long startNanos = System.nanoTime();
        long roundTripsBefore = db.cluster().totalCounters().get(io.selcc.fabric.Counter.ROUND_TRIPS);
        long loadTimeMicros = System.currentTimeMillis() * 1_000;
        PopulationGenerator generator = new PopulationGenerator(seed, constants, loadTimeMicros);
        int nodes = db.computeNodeCount();
        List<Queue<LoadUnit>> queues = new ArrayList<>();
        if (partitions == 0) {
            queues.add(new ConcurrentLinkedQueue<>(units(TpccSchema.SHARED)));
        } else {
            for (int p = 0; p < partitions; p++) {
                queues.add(new ConcurrentLinkedQueue<>(units(p)));
            }
        }
        // The compute nodes this process hosts load (with compute nodes as processes, node 0 alone: the
        // rows land in shared memory, where every node finds them).
        int[] hosted = java.util.stream.IntStream.range(0, nodes).filter(n -> db.cluster().hosts(n)).toArray();
        if (partitions > 0 && hosted.length != nodes) {
            throw new IllegalArgumentException("a partitioned load runs where every compute node is: hosted="
                + java.util.Arrays.toString(hosted) + " computeNodes=" + nodes);
        }
        int threads = hosted.length * threadsPerNode;
        CountDownLatch done = new CountDownLatch(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            DatabaseNode node = db.node(hosted[t % hosted.length]);
            int partition = partitions == 0 ? TpccSchema.SHARED : t % nodes;
            Queue<LoadUnit> units = queues.get(partitions == 0 ? 0 : partition);
            Worker worker = new Worker(node, partition, generator, units, failure);
            workers.add(EngineThread.start("tpcc-load-n" + hosted[t % hosted.length] + "-t" + (t / hosted.length), () -> {
                try {
                    worker.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }));
        }
        print("load: start warehouses=%d seed=%d cLastLoad=%d computeNodes=%d threadsPerNode=%d",
            warehouses, seed, constants.cLastLoad(), nodes, threadsPerNode);
        long lastRows = 0;
        long lastNanos = startNanos;
        try {
            while (!done.await(PROGRESS_INTERVAL_MILLIS, TimeUnit.MILLISECONDS)) {
                long now = System.nanoTime();
                long total = totalRows();
                print("load: %5.1f s %,d rows (%,.0f rows/s) %s", (now - startNanos) / 1e9, total,
                    (total - lastRows) / ((now - lastNanos) / 1e9), rowsPerTable());
                lastRows = total;
                lastNanos = now;
            }
            for (Thread worker : workers) {
                worker.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure.compareAndSet(null, e);
            queues.forEach(Queue::clear);
        }
        Throwable error = failure.get();
        if (error != null) {
            if (error instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (error instanceof Error fatal) {
                throw fatal;
            }
            throw new IllegalStateException("load failed: " + error, error);
        }
        long millis = (System.nanoTime() - startNanos) / 1_000_000;
        long memory = 0;
        for (int p = partitions == 0 ? TpccSchema.SHARED : 0; p < Math.max(partitions, 0); p++) {
            memory += heapBytes(db.liveNode(), p);
        }
        long shared = db.cluster().gclsInUse() * db.liveNode().computeNode().gclSize();
        long total = totalRows();
        // every thread of this process's nodes (loaders and evictors), exact: the loaders are joined
        long roundTrips = db.cluster().totalCounters().get(io.selcc.fabric.Counter.ROUND_TRIPS) - roundTripsBefore;
        print("load: done warehouses=%d rows=%,d in %.1f s (%,.0f rows/s); shared memory in use %.1f MiB: heap pages"
                + " %.1f MiB, indexes and catalog %.1f MiB; %,d round trips (%.4f per row)", warehouses, total, millis / 1e3,
            total / Math.max(millis / 1e3, 1e-3), shared / (double) (1 << 20), memory / (double) (1 << 20),
            (shared - memory) / (double) (1 << 20), roundTrips, roundTrips / (double) Math.max(total, 1));
        return new LoadReport(warehouses, rowsPerTable(), millis, memory, shared);
    }

    /** All units, biggest first so the small ones fill the tail. */
    List<LoadUnit> units() {
        return units(TpccSchema.SHARED);
    }

    /** The units of {@code partition}'s tables (every one for {@link TpccSchema#SHARED}), biggest first. */
    List<LoadUnit> units(int partition) {
        List<LoadUnit> units = new ArrayList<>();
        for (int chunk = 0; chunk < TpccScale.ITEMS / LoadUnit.CHUNK; chunk++) {
            units.add(new LoadUnit(LoadUnit.Kind.ITEMS, 0, 0, chunk));
        }
        for (int w = 1; w <= warehouses; w++) {
            if (partition != TpccSchema.SHARED && TpccSchema.owner(w, partitions) != partition) {
                continue;
            }
            units.add(new LoadUnit(LoadUnit.Kind.WAREHOUSE, w, 0, 0));
            for (int chunk = 0; chunk < TpccScale.ITEMS / LoadUnit.CHUNK; chunk++) {
                units.add(new LoadUnit(LoadUnit.Kind.STOCK, w, 0, chunk));
            }
            for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
                units.add(new LoadUnit(LoadUnit.Kind.DISTRICT, w, d, 0));
            }
        }
        units.sort(Comparator.comparingLong(LoadUnit::weight).reversed());
        return units;
    }

    private Map<String, Long> rowsPerTable() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int t = 0; t < LoadTables.COUNT; t++) {
            counts.put(LoadTables.NAMES[t], rows[t].sum());
        }
        return counts;
    }

    private long totalRows() {
        long total = 0;
        for (LongAdder adder : rows) {
            total += adder.sum();
        }
        return total;
    }

    private static long heapBytes(DatabaseNode node, int partition) {
        long pages = 0;
        for (String name : LoadTables.NAMES) {
            pages += node.table(TpccSchema.name(name, partition)).heap().pageCount();
        }
        return pages * node.computeNode().gclSize();
    }

    private void print(String format, Object... args) {
        if (progress != null) {
            progress.println(String.format(format, args));
        }
    }

    /** One loader thread: takes units until none is left (or another thread failed). */
    private final class Worker implements PopulationGenerator.RowSink {
        /** Rows counted locally before they go to the shared progress counters. */
        private static final int COUNT_BATCH = 4_096;

        private final DatabaseNode node;
        private final PopulationGenerator generator;
        private final Queue<LoadUnit> units;
        private final AtomicReference<Throwable> failure;
        private final Table[] tables = new Table[LoadTables.COUNT];
        private final long[] counted = new long[LoadTables.COUNT];
        private int uncounted;
        private BulkLoad load;
        private LoadUnit unit;

        Worker(DatabaseNode node, int partition, PopulationGenerator generator, Queue<LoadUnit> units,
               AtomicReference<Throwable> failure) {
            this.node = node;
            this.generator = generator;
            this.units = units;
            this.failure = failure;
            for (int t = 0; t < LoadTables.COUNT; t++) {
                tables[t] = node.table(TpccSchema.name(LoadTables.NAMES[t], partition));
            }
        }

        void run() {
            try (BulkLoad bulk = node.bulkLoad()) {
                load = bulk;
                for (unit = units.poll(); unit != null && failure.get() == null; unit = units.poll()) {
                    try {
                        generator.generate(unit, this);
                    } catch (SharedMemoryFullException e) {
                        throw new SharedMemoryFullException("shared memory is full at load unit " + unit + ": "
                            + e.getMessage(), e);
                    }
                }
            } finally {
                publishCounts();
            }
        }

        @Override
        public void insert(int table, Consumer<TupleView> writer) {
            load.insert(tables[table], writer);
            counted[table]++;
            if (++uncounted == COUNT_BATCH) {
                if (failure.get() != null) {
                    throw new IllegalStateException("load stopped: another loader thread failed");
                }
                publishCounts();
            }
        }

        private void publishCounts() {
            for (int t = 0; t < LoadTables.COUNT; t++) {
                rows[t].add(counted[t]);
                counted[t] = 0;
            }
            uncounted = 0;
        }
    }
}
