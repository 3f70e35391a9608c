package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.JsonWriter;
import io.selcc.engine.cc.AbortReason;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConditionResult;
import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.DriverResult;
import io.selcc.tpcc.driver.InputShares;
import io.selcc.tpcc.driver.TypeStats;
import io.selcc.tpcc.txn.TxnType;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/** The end-of-run table and the JSON report of {@code tpcc run}. */
final class TpccReport {
    private TpccReport() {
    }

    static void print(PrintWriter out, DriverResult result) {
        // Virtual terminals' allocation is known only in total (their carriers'): per type it says n/a.
        boolean perTypeAllocation = result.config().terminalThreads() == DriverConfig.TerminalThreads.PLATFORM;
        out.printf(Locale.ROOT, "%n%-12s %10s %9s %7s %8s %7s %10s %9s %9s %9s %9s %9s %8s %8s %12s%n", "type",
            "committed", "aborted", "ab/cmt", "failed", "mix %", "txn/s", "p50 us", "p90 us", "p99 us", "max us", "RT/txn",
            "msg/txn", "GCL/txn", "alloc B/txn");
        for (TxnType type : TxnType.values()) {
            TypeStats s = result.stats(type);
            out.printf(Locale.ROOT, "%-12s %,10d %,9d %7.3f %,8d %7.2f %,10.1f %,9.0f %,9.0f %,9.0f %,9d %9.2f %8.2f %8.1f %12s%n",
                type.jsonName(), s.committed(), s.aborted(), abortsPerCommit(s.aborted(), s.committed()), s.failed(),
                result.share(type), result.txnPerSec(type),
                s.percentileMicros(50), s.percentileMicros(90), s.percentileMicros(99),
                s.latencyMicros().getTotalCount() == 0 ? 0 : s.latencyMicros().getMaxValue(),
                s.roundTripsPerTxn(), s.messagesPerTxn(), s.gclAccessesPerTxn(),
                perTypeAllocation ? String.format(Locale.ROOT, "%,.0f", s.allocatedBytesPerTxn()) : "n/a");
        }
        for (TxnType type : TxnType.values()) {
            TypeStats s = result.stats(type);
            if (!s.aborts().isEmpty()) {
                out.printf(Locale.ROOT, "  %s aborts by reason: %s%n", type.jsonName(), s.aborts());
            }
        }
        TypeStats newOrder = result.stats(TxnType.NEW_ORDER);
        TypeStats delivery = result.stats(TxnType.DELIVERY);
        out.printf(Locale.ROOT, "New-Order rollbacks: %,d (%.2f%% of New-Orders, counted as completed);"
                + " Delivery: %,d district(s) skipped%n", newOrder.rolledBack(),
            newOrder.committed() == 0 ? 0 : 100.0 * newOrder.rolledBack() / newOrder.committed(),
            delivery.skippedDistricts());
        StringBuilder checks = new StringBuilder("input variability (5.5.1.5):");
        for (InputShares.Check check : result.inputShares().checks(result.config().warehouses(), result.config().crossPartitionPercent() >= 0)) {
            checks.append(String.format(Locale.ROOT, " %s %.2f%s;", check.name(), check.value(),
                check.sample() == 0 ? " (n/a)" : check.within() ? "" : " OUTSIDE [" + check.min() + ", " + check.max() + "]"));
        }
        out.println(checks);
        out.printf(Locale.ROOT, "shared memory taken during the run: %,.1f MiB, %,.0f bytes per New-Order%n",
            result.sharedBytesGrown() / (double) (1 << 20), result.sharedBytesPerNewOrder());
        out.printf(Locale.ROOT, "tpmC %,d   txn/s %,.1f   aborts/commit %.3f   round trips/txn %.2f   terminal CPU us/txn %.1f"
                + "   alloc B/txn %,.0f   measured %.1f s%n",
            result.tpmC(), result.txnPerSec(), abortsPerCommit(result.aborted(), result.committed()),
            result.roundTripsPerTxn(), result.terminalCpuMicrosPerTxn(), result.allocatedBytesPerTxn(), result.seconds());
        out.flush();
    }

    /** Conflict aborts (retried) per completed transaction; 0 when none completed. */
    static double abortsPerCommit(long aborted, long committed) {
        return committed == 0 ? (aborted == 0 ? 0 : Double.POSITIVE_INFINITY) : (double) aborted / committed;
    }

    /** How the run's terminals sat: per warehouse, in all, where, on what kind of thread, over how many carriers. */
    static String terminalsLine(DriverConfig config, int computeNodes) {
        io.selcc.tpcc.driver.TerminalPlacement placement = config.terminals(computeNodes);
        return String.format(Locale.ROOT, "%d terminal(s) (%d per warehouse, placement %s, per compute node %s) on %s threads%s",
            placement.terminals().size(), config.terminalsPerWarehouse(), config.placement().label(),
            java.util.Arrays.toString(placement.perNode()), config.terminalThreads().label(),
            config.terminalThreads() == DriverConfig.TerminalThreads.VIRTUAL ? " over " + carriers(config) + " carrier(s)" : "");
    }

    /** Platform threads that run the terminals: the virtual-thread scheduler's parallelism, or one per terminal. */
    static int carriers(DriverConfig config) {
        return config.terminalThreads() == DriverConfig.TerminalThreads.VIRTUAL
            ? Integer.getInteger("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors())
            : -1;
    }

    /** The columns of {@code --csv}: the run's parameters, then one row's figures (a transaction type, or all). */
    static final java.util.List<String> CSV_HEADER = java.util.List.of("benchmark", "cc", "access", "fabric", "processes",
        "warehouses", "computeNodes", "memoryNodes", "terminalsPerWarehouse", "terminals", "placement", "terminalThreads",
        "carriers", "lockWait", "mode", "wal", "seed", "durationMillis", "measuredMillis",
        "tpmC", "type", "committed", "aborted", "abortsPerCommit", "failed", "rolledBack", "txnPerSec", "p50Micros", "p90Micros", "p99Micros",
        "maxMicros", "roundTripsPerTxn", "messagesPerTxn");

    /** One row per transaction type and one for all of them, BenchBase-style. */
    static java.util.List<java.util.List<Object>> csvRows(DriverResult result, ClusterSettings cluster, TpccOptions tpcc,
                                                          String mode, String wal) {
        DriverConfig config = result.config();
        java.util.List<Object> run = java.util.List.of("tpcc", tpcc.cc, cluster.access().name().toLowerCase(Locale.ROOT),
            cluster.fabric().label(), cluster.processes(), config.warehouses(), cluster.computeNodes(), cluster.memoryNodes(),
            config.terminalsPerWarehouse(), config.terminals(cluster.computeNodes()).terminals().size(),
            config.placement().label(), config.terminalThreads().label(), carriers(config), tpcc.lockWait.cliName(), mode, wal.toLowerCase(Locale.ROOT), config.seed(), config.durationNanos() / 1_000_000,
            result.measuredNanos() / 1_000_000, result.tpmC());
        java.util.List<java.util.List<Object>> rows = new java.util.ArrayList<>();
        org.HdrHistogram.Histogram all = new org.HdrHistogram.Histogram(3);
        for (TxnType type : TxnType.values()) {
            TypeStats s = result.stats(type);
            all.add(s.latencyMicros());
            rows.add(row(run, type.jsonName(), s.committed(), s.aborted(), abortsPerCommit(s.aborted(), s.committed()), s.failed(), s.rolledBack(), result.txnPerSec(type),
                s.percentileMicros(50), s.percentileMicros(90), s.percentileMicros(99),
                s.latencyMicros().getTotalCount() == 0 ? 0 : s.latencyMicros().getMaxValue(), s.roundTripsPerTxn(),
                s.messagesPerTxn()));
        }
        long rolledBack = result.perType().values().stream().mapToLong(TypeStats::rolledBack).sum();
        rows.add(row(run, "all", result.committed(), result.aborted(), abortsPerCommit(result.aborted(), result.committed()),
            result.failed(), rolledBack, result.txnPerSec(),
            percentile(all, 50), percentile(all, 90), percentile(all, 99), all.getTotalCount() == 0 ? 0 : all.getMaxValue(),
            result.roundTripsPerTxn(), result.messagesPerTxn()));
        return rows;
    }

    private static double percentile(org.HdrHistogram.Histogram h, double p) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p);
    }

    private static java.util.List<Object> row(java.util.List<Object> run, Object... figures) {
        java.util.List<Object> row = new java.util.ArrayList<>(run);
        row.addAll(java.util.Arrays.asList(figures));
        return row;
    }

    static String json(DriverResult result, ClusterSettings cluster, TpccOptions tpcc, CheckReport check) {
        return json(result, cluster, tpcc, check, json -> { });
    }

    /** The report, with {@code extra} adding fields of its own (the commit log's) after the run's. */
    static String json(DriverResult result, ClusterSettings cluster, TpccOptions tpcc, CheckReport check,
                       java.util.function.Consumer<JsonWriter> extra) {
        DriverConfig config = result.config();
        JsonWriter json = new JsonWriter().beginObject();
        json.field("benchmark", "tpcc")
            .field("cc", tpcc.cc)
            .field("access", cluster.access().name().toLowerCase(Locale.ROOT))
            .field("warehouses", config.warehouses())
            .field("fabric", cluster.fabric().label())
            .field("processes", cluster.processes())
            .field("computeNodes", cluster.computeNodes())
            .field("memoryNodes", cluster.memoryNodes())
            .field("terminalsPerWarehouse", config.terminalsPerWarehouse())
            .field("terminals", config.terminals(cluster.computeNodes()).terminals().size())
            .field("placement", config.placement().label())
            .field("terminalThreads", config.terminalThreads().label())
            .field("carriers", carriers(config))
            .field("lockWait", tpcc.lockWait.cliName())
            .field("gclSize", cluster.gclSize())
            .field("cacheFrames", cluster.cacheFrames())
            .field("rttNanos", cluster.rttNanos())
            .field("gbps", cluster.gbps())
            .field("durationMillis", config.durationNanos() / 1_000_000)
            .field("warmupMillis", config.warmupNanos() / 1_000_000)
            .field("measuredMillis", result.measuredNanos() / 1_000_000)
            .field("seed", config.seed())
            .field("mix", config.mix().toString())
            .field("waitTimes", config.waitTimes())
            .field("maxAttempts", config.retry().maxAttempts());
        json.name("constants").beginObject()
            .field("cLastLoad", config.constants().cLastLoad())
            .field("cLastRun", config.constants().cLastRun())
            .field("cId", config.constants().cId())
            .field("olIId", config.constants().olIId())
            .endObject();
        json.name("terminalsByNode").beginArray();
        for (int n : config.terminals(cluster.computeNodes()).perNode()) {
            json.value(n);
        }
        json.endArray();
        json.field("committed", result.committed())
            .field("aborted", result.aborted())
            .field("abortsPerCommit", abortsPerCommit(result.aborted(), result.committed()))
            .field("failed", result.failed())
            .field("txnPerSec", result.txnPerSec())
            .field("tpmC", result.tpmC())
            .field("roundTripsPerTxn", result.roundTripsPerTxn())
            .field("terminalCpuMicrosPerTxn", result.terminalCpuMicrosPerTxn())
            .field("allocatedBytesPerTxn", result.allocatedBytesPerTxn())
            .field("sharedBytesGrown", result.sharedBytesGrown())
            .field("sharedBytesPerNewOrder", result.sharedBytesPerNewOrder())
            .field("stoppedBySharedMemoryFull", result.sharedMemoryFull());
        json.name("completedByTerminal").beginArray();
        result.completedByTerminal().forEach(json::value);
        json.endArray();
        extra.accept(json);
        json.name("perType").beginObject();
        for (TxnType type : TxnType.values()) {
            TypeStats s = result.stats(type);
            json.name(type.jsonName()).beginObject()
                .field("committed", s.committed())
                .field("aborted", s.aborted())
                .field("abortsPerCommit", abortsPerCommit(s.aborted(), s.committed()))
                .field("failed", s.failed())
                .field("rolledBack", s.rolledBack())
                .field("sharePercent", result.share(type))
                .field("txnPerSec", result.txnPerSec(type))
                .field("p50Micros", s.percentileMicros(50))
                .field("p90Micros", s.percentileMicros(90))
                .field("p99Micros", s.percentileMicros(99))
                .field("maxMicros", s.latencyMicros().getTotalCount() == 0 ? 0 : s.latencyMicros().getMaxValue())
                .field("roundTripsPerTxn", s.roundTripsPerTxn())
                .field("messagesPerTxn", s.messagesPerTxn())
                .field("gclAccessesPerTxn", s.gclAccessesPerTxn())
                .field("allocatedBytesPerTxn", config.terminalThreads() == DriverConfig.TerminalThreads.PLATFORM
                    ? s.allocatedBytesPerTxn() : Double.NaN); // virtual terminals: known in total only (null)
            json.name("abortsByReason").beginObject();
            for (Map.Entry<AbortReason, Long> reason : s.aborts().entrySet()) {
                json.field(reason.getKey().name(), reason.getValue());
            }
            json.endObject();
            if (type == TxnType.DELIVERY) {
                json.field("skippedDistricts", s.skippedDistricts());
            }
            json.endObject();
        }
        json.endObject();
        json.name("inputVariability").beginArray();
        for (InputShares.Check c : result.inputShares().checks(config.warehouses(), config.crossPartitionPercent() >= 0)) {
            json.beginObject().field("name", c.name()).field("value", c.value()).field("min", c.min())
                .field("max", c.max()).field("sample", c.sample()).field("within", c.within()).endObject();
        }
        json.endArray();
        if (check != null) {
            json.name("consistency").beginObject().field("passed", check.passed());
            json.name("conditions").beginArray();
            for (ConditionResult condition : check.conditions()) {
                json.beginObject().field("name", condition.condition().label());
                if (condition.condition().isSpecCondition()) {
                    json.field("number", condition.number());
                }
                json.field("passed", condition.passed())
                    .field("detail", condition.detail() == null ? "" : condition.detail()).endObject();
            }
            json.endArray().endObject();
        }
        return json.endObject().toString();
    }
}
