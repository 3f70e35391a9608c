package io.selcc.tpcc.run;

import io.selcc.cache.SharedMemoryFullException;
import io.selcc.engine.Database;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.fabric.OffHeap;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConditionResult;
import io.selcc.tpcc.check.ConsistencyChecker;
import io.selcc.tpcc.load.LoadReport;
import io.selcc.tpcc.load.TpccLoader;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * A TPC-C database: how much shared memory and cache it is given by default, how it is built, loaded and
 * checked. {@code tpcc load}, {@code check} and {@link TpccRun} build theirs here.
 */
public final class TpccDatabases {
    /** Tuple bytes of one warehouse's initial population, with ITEM's share, rounded up. */
    public static final long BYTES_PER_WAREHOUSE = 160L << 20;
    /** Room for what a run inserts (orders, order lines, history) and for the indexes. */
    public static final long HEADROOM_BYTES = 512L << 20;
    /**
     * Frames each terminal needs: a no-wait 2PL transaction holds its pages' latches until commit, and
     * Stock-Level latches up to a few hundred pages (order lines of 20 orders and their stock rows).
     */
    public static final int MIN_CACHE_FRAMES_PER_TERMINAL = 1024;
    /**
     * What a run may insert per second and compute node by default: a W=2 standard-mix run at
     * 44,000 txn/s on 2 nodes took 28 MiB/s in all (1,428 bytes per New-Order, docs/benchmarks.md).
     */
    static final long RUN_GROWTH_BYTES_PER_NODE_SECOND = 64L << 20;

    /** The memory nodes of a run in this JVM register at most this share of the machine's physical memory. */
    static final int REGISTERED_SHARE_OF_PHYSICAL_MEMORY_DIVISOR = 4;
    /**
     * What one core's terminals can insert per second at most: the fastest run measured here, New-Order +
     * Payment at 93,000 txn/s on 2 cores, took 1,470 bytes per New-Order, 33 MiB/s per core.
     */
    static final long RUN_GROWTH_BYTES_PER_CORE_SECOND = 40L << 20;
    /**
     * Runs shorter than this (warm-up included) register nothing: smoke runs, tests and the README's 13 s run,
     * whose seconds of figures are not worth the seconds a first touch of a virtual machine's memory takes to
     * register (about 2 s per GiB here) before the run.
     */
    static final double MIN_REGISTERED_RUN_SECONDS = 20;

    private TpccDatabases() {
    }

    /**
     * What each in-JVM memory node registers for a run of {@code seconds} (warm-up included), beyond what the
     * load took: the room the run's default memory leaves for its inserts ({@link #runMemoryPerNode}), or what
     * {@code cores} can insert in that time if less, at most a quarter of {@code physicalBytes}, shared among
     * the memory nodes; nothing for a run shorter than {@link #MIN_REGISTERED_RUN_SECONDS} (docs/decisions.md,
     * "Memory nodes register the memory a run will use").
     */
    public static long registeredForTheRun(ClusterSpec cluster, double seconds, int cores, long physicalBytes) {
        if (seconds < MIN_REGISTERED_RUN_SECONDS) {
            return 0;
        }
        long growth = Math.min(runGrowth(cluster, seconds),
            (long) Math.ceil(seconds) * RUN_GROWTH_BYTES_PER_CORE_SECOND * Math.max(1, cores)) / cluster.memoryNodes();
        long budget = physicalBytes / REGISTERED_SHARE_OF_PHYSICAL_MEMORY_DIVISOR / cluster.memoryNodes();
        return Math.max(0, Math.min(growth, budget));
    }

    /** This machine's physical memory in bytes (0 where the JDK cannot tell: nothing is then registered). */
    static long physicalMemory() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return 0;
    }

    /** Default cache: half of one warehouse per compute node in 2 KiB frames, at least 16,384 frames. */
    public static long defaultCacheFrames(int warehouses) {
        return Math.max(16_384, BYTES_PER_WAREHOUSE * warehouses / 2 / 2048);
    }

    /** Frames per compute node when none are asked for: the default, raised to what {@code threadsPerNode} need. */
    public static int cacheFrames(int warehouses, int threadsPerNode) {
        long needed = (long) MIN_CACHE_FRAMES_PER_TERMINAL * threadsPerNode;
        return (int) Math.min(Integer.MAX_VALUE, Math.max(defaultCacheFrames(warehouses), needed));
    }

    /**
     * The default memory per memory node of a load or a check: twice the initial population, or, for a
     * recovered database, twice its checkpoint and logs ({@code recoveredBytes}) if that is more (rows in
     * pages and index entries take about 1.4 times their checkpoint bytes, and leaves split under ascending
     * keys stay part empty), plus the headroom, spread over the memory nodes.
     */
    public static long memoryPerNode(ClusterSpec cluster, int warehouses, long recoveredBytes) {
        return spread(cluster, baseMemory(warehouses, recoveredBytes));
    }

    /**
     * The default memory per memory node of a run: the load's plus room for what {@code seconds} of
     * running inserts, where memory nodes are mapped lazily (the room costs address space, not resident
     * memory, until used). Elsewhere the load's default.
     */
    public static long runMemoryPerNode(ClusterSpec cluster, int warehouses, long recoveredBytes, double seconds) {
        long total = baseMemory(warehouses, recoveredBytes);
        if (OffHeap.lazilyZeroed()) {
            total += runGrowth(cluster, seconds);
        }
        return spread(cluster, total);
    }

    /** The room a run of {@code seconds} leaves for its inserts, over all memory nodes. */
    private static long runGrowth(ClusterSpec cluster, double seconds) {
        return (long) Math.ceil(seconds) * RUN_GROWTH_BYTES_PER_NODE_SECOND * cluster.computeNodes();
    }

    private static long baseMemory(int warehouses, long recoveredBytes) {
        return Math.max(2 * BYTES_PER_WAREHOUSE * warehouses + HEADROOM_BYTES, 2 * recoveredBytes + HEADROOM_BYTES);
    }

    /** {@code totalBytes} spread over the memory nodes, plus one GCL each, 8-aligned. */
    private static long spread(ClusterSpec cluster, long totalBytes) {
        long perNode = totalBytes / cluster.memoryNodes() + cluster.gclSize();
        return perNode - perNode % 8;
    }

    /** "512MiB": a byte count for a message. */
    public static String mebibytes(long bytes) {
        return String.format(Locale.ROOT, "%.0fMiB", bytes / (double) (1 << 20));
    }

    /**
     * The database: the TPC-C schema (one table set per compute node when {@code partitions} > 0) on
     * {@code cluster} with {@code threadsPerNode} threads and {@code frames} cache frames per compute node.
     */
    public static Database open(ClusterSpec cluster, String cc, LockWaitPolicy lockWait, int threadsPerNode, int frames,
                                long memoryPerNode, int partitions) {
        Database.Builder builder = TpccSchema.define(Database.builder(), partitions).cc(cc).lockWait(lockWait);
        cluster.apply(builder.clusterSettings(), threadsPerNode, frames, memoryPerNode);
        return builder.build();
    }

    /**
     * Loads fully-shared mode's tables, or with {@code partitions} > 0 each compute node's partition, with
     * {@code threads} loaders per compute node, printing what it did.
     *
     * @throws RunFailedException when shared memory ({@code memoryPerNode} per memory node) fills up
     */
    public static LoadReport load(Database db, int warehouses, int threads, long seed, TpccRandom.Constants constants,
                                  int partitions, long memoryPerNode, PrintWriter out) {
        out.printf(Locale.ROOT, "loading %d warehouse(s) with cc=%s on %d compute node(s) x %d thread(s), seed %d,"
                + " C_LAST load/run %d/%d, C_ID %d, OL_I_ID %d%n", warehouses, db.concurrencyControl(), db.computeNodeCount(),
            threads, seed, constants.cLastLoad(), constants.cLastRun(), constants.cId(), constants.olIId());
        out.flush();
        LoadReport report;
        try {
            report = new TpccLoader(db, warehouses, seed, constants, threads, printStream(out), partitions).load();
        } catch (SharedMemoryFullException e) {
            throw new RunFailedException("shared memory is full while loading " + warehouses + " warehouse(s): raise"
                + " --memory (now " + mebibytes(memoryPerNode) + " per memory node)", e);
        }
        out.printf(Locale.ROOT, "loaded in %.1f s, %,d MiB of shared memory in use (heap pages %,d MiB, indexes %,d MiB);"
                + " rows %s%n", report.millis() / 1000.0, report.sharedBytesInUse() >> 20, report.memoryBytesUsed() >> 20,
            report.indexBytes() >> 20, report.rowsPerTable());
        out.flush();
        return report;
    }

    /**
     * Loads the population with a fresh seed's NURand constants and, when asked, checks it; with a data
     * directory ({@code keepIn}, null for none), keeps a population that passed as a checkpoint there, the
     * base of every later run. Whether the checks passed (true when none were asked for).
     */
    public static boolean loadAndKeep(Database db, int warehouses, int threads, long seed, int partitions,
                                      long memoryPerNode, boolean check, java.nio.file.Path keepIn, PrintWriter out) {
        TpccRandom.Constants constants = TpccRandom.Constants.random(seed);
        load(db, warehouses, threads, seed, constants, partitions, memoryPerNode, out);
        boolean passed = !check || check(db, warehouses, partitions, out).passed();
        if (keepIn != null && passed) {
            DataDir.checkpoint(db, keepIn, null, DataDir.properties(warehouses, seed, constants, partitions), out);
        }
        return passed;
    }

    /**
     * The twelve consistency conditions and the index/heap check over fully-shared mode's tables, or every
     * partition's when {@code partitions} > 0, each printed.
     */
    public static CheckReport check(Database db, int warehouses, int partitions, PrintWriter out) {
        CheckReport report = new ConsistencyChecker(db.liveNode(), warehouses, partitions).check();
        for (ConditionResult condition : report.conditions()) {
            String what = condition.condition().isSpecCondition()
                ? String.format(Locale.ROOT, "consistency condition %2d", condition.number())
                : "index/heap agreement    ";
            out.printf(Locale.ROOT, "%s: %s%s%n", what,
                condition.passed() ? "passed" : "FAILED", condition.detail() == null || condition.detail().isEmpty()
                    ? "" : " (" + condition.detail() + ")");
        }
        out.printf("consistency: %s%n", report.passed() ? "all conditions passed" : "FAILED");
        out.flush();
        return report;
    }

    /** A stream that prints through {@code out} (the loader's and the driver's progress lines). */
    public static PrintStream printStream(PrintWriter out) {
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                out.write(b);
            }

            @Override
            public void flush() {
                out.flush();
            }
        }, true);
    }
}
