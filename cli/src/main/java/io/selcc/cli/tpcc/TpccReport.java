package io.selcc.cli.tpcc;

import io.selcc.cli.JsonWriter;
import io.selcc.engine.cc.AbortReason;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.run.ClusterSpec;
import io.selcc.tpcc.run.LogFigures;
import io.selcc.tpcc.run.ModeReport;
import io.selcc.tpcc.run.RepairAftermath;
import io.selcc.tpcc.run.RunOutcome;
import io.selcc.tpcc.run.RunReport;
import io.selcc.tpcc.run.RunSpec;
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

    /** The columns of {@code --csv}: the run's parameters, then one row's figures (a transaction type, or all). */
    static final java.util.List<String> CSV_HEADER = java.util.List.of("benchmark", "cc", "access", "fabric", "processes",
        "warehouses", "computeNodes", "memoryNodes", "terminalsPerWarehouse", "terminals", "placement", "terminalThreads",
        "carriers", "activePerNode", "lockWait", "mode", "wal", "seed", "durationMillis", "measuredMillis",
        "tpmC", "type", "committed", "aborted", "abortsPerCommit", "failed", "rolledBack", "txnPerSec", "p50Micros", "p90Micros", "p99Micros",
        "maxMicros", "roundTripsPerTxn", "messagesPerTxn");

    /** One row per transaction type and one for all of them, BenchBase-style. */
    static java.util.List<java.util.List<Object>> csvRows(RunOutcome outcome) {
        DriverResult result = outcome.result();
        DriverConfig config = result.config();
        RunSpec spec = outcome.spec();
        ClusterSpec cluster = spec.cluster();
        java.util.List<Object> run = java.util.List.of("tpcc", spec.cc(), cluster.access().name().toLowerCase(Locale.ROOT),
            cluster.fabric().label(), cluster.fabric().processes(), config.warehouses(), cluster.computeNodes(),
            cluster.memoryNodes(), config.terminalsPerWarehouse(), config.terminals(cluster.computeNodes()).terminals().size(),
            config.placement().label(), config.terminalThreads().label(), RunReport.carriers(config),
            activePerNode(config), spec.lockWait().cliName(), spec.mode().label(), spec.log().label(), config.seed(),
            config.durationNanos() / 1_000_000, result.measuredNanos() / 1_000_000, result.tpmC());
        java.util.List<java.util.List<Object>> rows = new java.util.ArrayList<>();
        org.HdrHistogram.Histogram all = new org.HdrHistogram.Histogram(3);
        for (TxnType type : TxnType.values()) {
            TypeStats s = result.stats(type);
            all.add(s.latencyMicros());
            rows.add(row(run, type.jsonName(), s.committed(), s.aborted(), RunReport.abortsPerCommit(s.aborted(), s.committed()), s.failed(), s.rolledBack(), result.txnPerSec(type),
                s.percentileMicros(50), s.percentileMicros(90), s.percentileMicros(99),
                s.latencyMicros().getTotalCount() == 0 ? 0 : s.latencyMicros().getMaxValue(), s.roundTripsPerTxn(),
                s.messagesPerTxn()));
        }
        long rolledBack = result.perType().values().stream().mapToLong(TypeStats::rolledBack).sum();
        rows.add(row(run, "all", result.committed(), result.aborted(), RunReport.abortsPerCommit(result.aborted(), result.committed()),
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

    /** What ran where: the algorithm, the access mode, the warehouses, the fabric, the nodes and the terminals. */
    private static JsonWriter where(JsonWriter json, RunOutcome outcome) {
        RunSpec spec = outcome.spec();
        ClusterSpec cluster = spec.cluster();
        DriverConfig config = outcome.result().config();
        return json.field("cc", spec.cc())
            .field("access", cluster.access().name().toLowerCase(Locale.ROOT))
            .field("warehouses", config.warehouses())
            .field("fabric", cluster.fabric().label())
            .field("processes", cluster.fabric().processes())
            .field("computeNodes", cluster.computeNodes())
            .field("memoryNodes", cluster.memoryNodes())
            .field("terminalsPerWarehouse", config.terminalsPerWarehouse());
    }

    /** The run's parameters, as its report and {@code tpcc compare}'s name them. */
    static void parameters(JsonWriter json, RunOutcome outcome) {
        RunSpec spec = outcome.spec();
        ClusterSpec cluster = spec.cluster();
        DriverConfig config = outcome.result().config();
        where(json, outcome)
            .field("placement", config.placement().label())
            .field("terminalThreads", config.terminalThreads().label())
            .field("activePerNode", activePerNode(config))
            .field("lockWait", spec.lockWait().cliName())
            .field("gclSize", cluster.gclSize())
            .field("cacheFrames", outcome.cacheFrames())
            .field("rttNanos", cluster.rttNanos())
            .field("gbps", cluster.gbps())
            .field("wal", spec.log().label())
            .field("mix", config.mix().toString())
            .field("waitTimes", config.waitTimes())
            .field("durationMillis", config.durationNanos() / 1_000_000)
            .field("warmupMillis", config.warmupNanos() / 1_000_000)
            .field("seed", config.seed())
            .field("maxAttempts", config.retry().maxAttempts());
    }

    /** How many transactions a compute node ran at once at most: a number, or "unlimited". */
    private static String activePerNode(DriverConfig config) {
        return config.activePerNode() == DriverConfig.UNLIMITED ? "unlimited" : Integer.toString(config.activePerNode());
    }

    /** The report: the run's parameters and figures, its log's, its mode's and its repairs'. */
    static String json(RunOutcome outcome) {
        DriverResult result = outcome.result();
        RunSpec spec = outcome.spec();
        ClusterSpec cluster = spec.cluster();
        CheckReport check = outcome.check();
        DriverConfig config = result.config();
        JsonWriter json = new JsonWriter().beginObject();
        where(json.field("benchmark", "tpcc"), outcome)
            .field("terminals", config.terminals(cluster.computeNodes()).terminals().size())
            .field("placement", config.placement().label())
            .field("terminalThreads", config.terminalThreads().label())
            .field("carriers", RunReport.carriers(config))
            .field("activePerNode", activePerNode(config))
            .field("lockWait", spec.lockWait().cliName())
            .field("gclSize", cluster.gclSize())
            .field("cacheFrames", outcome.cacheFrames())
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
            .field("abortsPerCommit", RunReport.abortsPerCommit(result.aborted(), result.committed()))
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
        logJson(json, outcome.log());
        modeJson(json, outcome.mode());
        if (spec.cluster().fabric().separateProcesses()) {
            json.field("computeNodesLost", outcome.lostNodes().size());
        }
        if (outcome.afterRepair() != null) {
            afterRepairJson(json, outcome.afterRepair());
        }
        json.name("perType").beginObject();
        for (TxnType type : TxnType.values()) {
            TypeStats s = result.stats(type);
            json.name(type.jsonName()).beginObject()
                .field("committed", s.committed())
                .field("aborted", s.aborted())
                .field("abortsPerCommit", RunReport.abortsPerCommit(s.aborted(), s.committed()))
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

    /** {@code "wal": {mode, records, forces, bytes, recordsPerForce, durability waits when measured}}. */
    private static void logJson(JsonWriter json, LogFigures log) {
        json.name("wal").beginObject().field("mode", log.mode());
        if (!log.mode().equals("off")) {
            json.field("records", log.records()).field("forces", log.forces()).field("bytes", log.bytes())
                .field("recordsPerForce", log.recordsPerForce());
            if (log.durabilityWaitMicros() != null) {
                org.HdrHistogram.Histogram waits = log.durabilityWaitMicros();
                json.field("durabilityWaitP50Micros", waits.getValueAtPercentile(50))
                    .field("durabilityWaitP99Micros", waits.getValueAtPercentile(99))
                    .field("durabilityWaitMaxMicros", waits.getMaxValue());
            }
        }
        json.endObject();
    }

    /** The mode's fields: invalidations, round trips and messages per transaction, and 2PC's counts. */
    private static void modeJson(JsonWriter json, ModeReport mode) {
        json.field("mode", mode.mode());
        json.name("distribution");
        if (mode.distribution() == null) {
            json.value("spec");
        } else {
            json.value(mode.distribution());
        }
        json.field("invalidationsBetweenNodes", mode.invalidations())
            .field("roundTripsPerTxnAllNodes", mode.roundTripsPerTxn())
            .field("messagesPerTxnAllNodes", mode.messagesPerTxn())
            .field("forcedWritesPerTxn", mode.forcedWritesPerTxn());
        io.selcc.twopc.TwoPcStats twoPc = mode.twoPc();
        if (twoPc != null) {
            json.name("twoPhaseCommit").beginObject()
                .field("singlePartitionCommits", twoPc.singlePartitionCommits())
                .field("distributedCommits", twoPc.distributedCommits())
                .field("distributedAbortedAttempts", twoPc.distributedAborts())
                .field("messages", twoPc.messages())
                .field("roundTrips", twoPc.roundTrips())
                .field("prepareRecords", twoPc.prepareRecords())
                .field("decisionRecords", twoPc.decisionRecords())
                .field("logForces", twoPc.logForces())
                .field("inquiries", twoPc.inquiries())
                .field("unilateralAborts", twoPc.unilateralAborts())
                .field("messagesPerDistributedAttempt", ModeReport.per(twoPc.messages(), mode.distributedAttempts()))
                .field("roundTripsPerDistributedAttempt", ModeReport.per(twoPc.roundTrips(), mode.distributedAttempts()))
                .field("recordsPerDistributedCommit",
                    ModeReport.per(twoPc.prepareRecords() + twoPc.decisionRecords(), twoPc.distributedCommits()))
                .field("forcesPerDistributedCommit", mode.forcesPerDistributedCommit())
                .endObject();
        }
    }

    /**
     * {@code "afterRepair": {"computeNodes": [..], "newOrders": N, "newOrdersByDistrict": {"W": [d1..d10]}}}
     * for the warehouses in which this process's terminals committed a New-Order during the run.
     */
    private static void afterRepairJson(JsonWriter json, RepairAftermath after) {
        json.name("afterRepair").beginObject();
        json.name("computeNodes").beginArray();
        after.repairedNodes().forEach(json::value);
        json.endArray();
        json.field("newOrders", after.newOrders());
        json.name("newOrdersByDistrict").beginObject();
        for (int w = 1; w <= after.warehouses(); w++) {
            if (!after.served(w)) {
                continue;
            }
            json.name(Integer.toString(w)).beginArray();
            for (int d = 1; d <= io.selcc.tpcc.TpccScale.DISTRICTS; d++) {
                json.value(after.newOrdersSince(w, d));
            }
            json.endArray();
        }
        json.endObject().endObject();
    }
}
