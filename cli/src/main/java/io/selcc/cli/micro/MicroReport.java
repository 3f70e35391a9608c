package io.selcc.cli.micro;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.JsonWriter;
import io.selcc.cli.RunSettings;
import io.selcc.fabric.Counter;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;

/** The human-readable parameter line and summary, and the JSON report, of a micro-benchmark run. */
final class MicroReport {
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final double NANOS_PER_SECOND = 1e9;

    private MicroReport() {
    }

    static void printParameters(PrintWriter out, MicroConfig c) {
        ClusterSettings cs = c.cluster();
        RunSettings rs = c.run();
        out.printf(Locale.ROOT, "selcc micro: access=%s fabric=%s compute-nodes=%d memory-nodes=%d threads=%d in-flight=%d gcl-size=%d"
                + " gcls=%d cache=%d frames read-ratio=%d%% sharing=%d%% theta=%s locality=%d%% rtt=%dns gbps=%s"
                + " fairness=%s writer-nodes=%d duration=%ss warmup=%ss seed=%d%n",
            accessName(c), cs.fabric().label(), cs.computeNodes(), cs.memoryNodes(), cs.threads(), c.inFlight(), cs.gclSize(),
            c.gcls(), cs.cacheFrames(), c.readRatio(), c.sharing(), c.theta(), c.locality(), cs.rttNanos(), cs.gbps(), cs.fairness() ? "on" : "off",
            c.writerNodes(), rs.durationNanos() / NANOS_PER_SECOND, rs.warmupNanos() / NANOS_PER_SECOND, rs.seed());
        out.flush();
    }

    static void printSummary(PrintWriter out, MicroConfig c, MicroResult r) {
        out.printf(Locale.ROOT, "summary: access=%s measured=%.2f s%n", accessName(c), r.seconds());
        out.printf(Locale.ROOT, "  ops                %,16d%n", r.ops());
        out.printf(Locale.ROOT, "  ops/s              %,16.0f%n", r.opsPerSec());
        out.printf(Locale.ROOT, "  round trips/op     %16.4f%n", r.roundTripsPerOp());
        out.printf(Locale.ROOT, "  invalidations/op   %16.4f%n", r.invalidationsPerOp());
        out.printf(Locale.ROOT, "  cache hit ratio    %16.4f%n", r.cacheHitRatio());
        out.printf(Locale.ROOT, "  latency p50        %16.2f us%n", r.p50Micros());
        out.printf(Locale.ROOT, "  latency p99        %16.2f us%n", r.p99Micros());
        for (MicroResult.NodeResult n : r.nodes()) {
            out.printf(Locale.ROOT, "  node %-3d ops %,14d (reads %,d, writes %,d) %,14.0f ops/s%n",
                n.node(), n.ops(), n.reads(), n.writes(), r.perSecond(n.ops()));
        }
        out.flush();
    }

    /** The columns of {@code --csv}: the run's parameters, then one row's figures (type: read, write or all). */
    static final java.util.List<String> CSV_HEADER = java.util.List.of("benchmark", "access", "fabric", "processes",
        "computeNodes", "memoryNodes", "threads", "inFlight", "gclSize", "gcls", "readRatio", "sharing", "theta", "seed", "durationMillis",
        "measuredMillis", "type", "ops", "opsPerSec", "p50Micros", "p99Micros", "roundTripsPerOp", "invalidationsPerOp",
        "cacheHitRatio");

    /** One row per operation type (reads, writes; their latencies and costs are only known together) and one for all. */
    static java.util.List<java.util.List<Object>> csvRows(MicroConfig c, MicroResult r) {
        ClusterSettings cs = c.cluster();
        RunSettings rs = c.run();
        java.util.List<Object> run = java.util.List.of("micro", accessName(c), cs.fabric().label(), cs.processes(),
            cs.computeNodes(), cs.memoryNodes(), cs.threads(), c.inFlight(), cs.gclSize(), c.gcls(), c.readRatio(), c.sharing(), c.theta(),
            rs.seed(), rs.durationNanos() / NANOS_PER_MILLI, r.measuredNanos() / NANOS_PER_MILLI);
        long reads = r.nodes().stream().mapToLong(MicroResult.NodeResult::reads).sum();
        long writes = r.nodes().stream().mapToLong(MicroResult.NodeResult::writes).sum();
        double seconds = r.measuredNanos() / 1e9;
        java.util.List<java.util.List<Object>> rows = new java.util.ArrayList<>();
        rows.add(row(run, "read", reads, seconds == 0 ? 0.0 : reads / seconds, null, null, null, null, null));
        rows.add(row(run, "write", writes, seconds == 0 ? 0.0 : writes / seconds, null, null, null, null, null));
        rows.add(row(run, "all", r.ops(), r.opsPerSec(), r.p50Micros(), r.p99Micros(), r.roundTripsPerOp(),
            r.invalidationsPerOp(), r.cacheHitRatio()));
        return rows;
    }

    private static java.util.List<Object> row(java.util.List<Object> run, Object... figures) {
        java.util.List<Object> row = new java.util.ArrayList<>(run);
        row.addAll(java.util.Arrays.asList(figures));
        return row;
    }

    /** Parameters, then results; keys are stable, scripts read them. */
    static String json(MicroConfig c, MicroResult r) {
        ClusterSettings cs = c.cluster();
        RunSettings rs = c.run();
        JsonWriter w = new JsonWriter().beginObject()
            .field("benchmark", "micro")
            .field("access", accessName(c))
            .field("fabric", cs.fabric().label())
            .field("processes", cs.processes())
            .field("computeNodes", cs.computeNodes())
            .field("memoryNodes", cs.memoryNodes())
            .field("threads", cs.threads())
            .field("inFlight", c.inFlight())
            .field("gclSize", cs.gclSize())
            .field("gcls", c.gcls())
            .field("sharedGcls", r.sharedGcls())
            .field("privateGclsPerNode", r.privateGclsPerNode())
            .field("cacheFrames", cs.cacheFrames())
            .field("readRatio", c.readRatio())
            .field("sharing", c.sharing())
            .field("theta", c.theta())
            .field("locality", c.locality())
            .field("rttNanos", cs.rttNanos())
            .field("gbps", cs.gbps())
            .field("durationMillis", rs.durationNanos() / NANOS_PER_MILLI)
            .field("warmupMillis", rs.warmupNanos() / NANOS_PER_MILLI)
            .field("seed", rs.seed())
            .field("fairness", cs.fairness())
            .field("writerNodes", c.writerNodes())
            .field("measuredMillis", r.measuredNanos() / NANOS_PER_MILLI)
            .field("ops", r.ops())
            .field("opsPerSec", r.opsPerSec())
            .field("roundTripsPerOp", r.roundTripsPerOp())
            .field("invalidationsPerOp", r.invalidationsPerOp())
            .field("cacheHitRatio", r.cacheHitRatio())
            .field("p50Micros", r.p50Micros())
            .field("p99Micros", r.p99Micros());
        w.name("perNode").beginArray();
        for (MicroResult.NodeResult n : r.nodes()) {
            w.beginObject()
                .field("node", n.node())
                .field("ops", n.ops())
                .field("reads", n.reads())
                .field("writes", n.writes())
                .field("opsPerSec", r.perSecond(n.ops()))
                .endObject();
        }
        w.endArray();
        w.name("counters").beginObject();
        for (Map.Entry<Counter, Long> e : r.counters().nonZero().entrySet()) {
            w.field(e.getKey().name(), e.getValue());
        }
        w.endObject();
        return w.endObject().toString();
    }

    private static String accessName(MicroConfig c) {
        return c.cluster().access().name().toLowerCase(Locale.ROOT);
    }
}
