package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.Flags;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConditionResult;
import io.selcc.tpcc.run.InvalidRunException;
import io.selcc.tpcc.run.RunSpec;
import io.selcc.tpcc.run.TpccRun;
import io.selcc.tpcc.run.TpccDatabases;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.util.Locale;

/** What {@code tpcc load} and {@code check} share: their flags checked, and mapped to a spec the library runs. */
final class TpccSetup {
    private TpccSetup() {
    }

    /**
     * Validates the flags every tpcc command shares (what a spec refuses, such as a cache too small for
     * TPC-C's latches, is the library's to say).
     */
    static ClusterSettings settings(ClusterOptions clusterOptions, TpccOptions options, CommandLine cl) {
        options.validate(cl);
        ClusterSettings cluster = clusterOptions.settings(cl, TpccDatabases.defaultCacheFrames(options.warehouses));
        return cluster;
    }

    /**
     * The spec of a load or a check with these flags: one terminal per warehouse (a load has none; the
     * cache it needs is the loaders'), {@code partitions} table sets when partitioned.
     */
    static RunSpec spec(ClusterSettings cluster, TpccOptions options, CommandLine cl, long seed, boolean check,
                        RunSpec.Mode mode) {
        return RunSpec.builder().cc(options.cc).warehouses(options.warehouses).mode(mode).dataDir(options.dataDir)
            .check(check).cluster(cluster.toSpec(cl.getParseResult().hasMatchedOption("--cache")))
            .terminalsPerWarehouse(1).seed(seed).memoryPerNode(options.memoryPerNode).build();
    }

    /** {@code work}'s result; what the library refuses is bad input naming its flag (exit 2). */
    static <T> T refusingBadInput(CommandLine cl, java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (InvalidRunException e) {
            TpccRunCommand.refuse(cl, e.violations());
            throw e;
        }
    }

    /**
     * {@code tpcc check --data-dir}: recovers the database kept in the directory and runs the checks;
     * reports New-Orders since the load, and with {@code json} writes what it found. Returns the exit code.
     */
    static int recoverAndCheck(RunSpec spec, CommandLine cl, java.nio.file.Path json) {
        PrintWriter out = cl.getOut();
        TpccRun.KeptCheck found = refusingBadInput(cl, () -> TpccRun.check(spec, out, cl.getErr()));
        CheckReport report = found.report();
        io.selcc.wal.Recovery.Summary recovered = found.recovered();
        out.printf(Locale.ROOT, "ordersSinceLoad %d%n", found.ordersSinceLoad());
        out.flush();
        if (json != null) {
            io.selcc.cli.JsonWriter w = new io.selcc.cli.JsonWriter().beginObject()
                .field("dataDir", spec.dataDir().toString())
                .field("warehouses", spec.warehouses())
                .field("ordersSinceLoad", found.ordersSinceLoad())
                .field("passed", report.passed())
                .field("checkpoint", recovered.checkpoint().getFileName().toString())
                .field("logRecordsRead", recovered.recordsRead())
                .field("transactionsReplayed", recovered.replayed())
                .field("lastReplayed", recovered.lastReplayed())
                .field("partitions", spec.partitions())
                .field("decidedTransactions", recovered.decided())
                .field("branchesApplied", recovered.branchesApplied())
                .field("branchesDiscarded", recovered.branchesDiscarded())
                .field("recoverySeconds", recovered.seconds());
            w.name("failures").beginArray();
            for (ConditionResult failed : report.failures()) {
                w.value(failed.condition().label());
            }
            w.endArray().endObject();
            io.selcc.cli.JsonFile.write(json, w.toString());
            out.println("wrote " + json);
            out.flush();
        }
        return report.passed() ? 0 : 1;
    }
}
