package io.selcc.tpcc.run;

import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.DriverResult;
import io.selcc.tpcc.driver.InputShares;
import io.selcc.tpcc.driver.TypeStats;
import io.selcc.tpcc.txn.TxnType;

import java.io.PrintWriter;
import java.util.Locale;

/** The end-of-run table a run prints: per transaction type, then the run's totals. */
public final class RunReport {
    private RunReport() {
    }

    public static void print(PrintWriter out, DriverResult result) {
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
    public static double abortsPerCommit(long aborted, long committed) {
        return committed == 0 ? (aborted == 0 ? 0 : Double.POSITIVE_INFINITY) : (double) aborted / committed;
    }

    /** How the run's terminals sat: per warehouse, in all, where, on what kind of thread, over how many carriers. */
    public static String terminalsLine(DriverConfig config, int computeNodes) {
        io.selcc.tpcc.driver.TerminalPlacement placement = config.terminals(computeNodes);
        return String.format(Locale.ROOT, "%d terminal(s) (%d per warehouse, placement %s, per compute node %s) on %s threads%s%s",
            placement.terminals().size(), config.terminalsPerWarehouse(), config.placement().label(),
            java.util.Arrays.toString(placement.perNode()), config.terminalThreads().label(),
            config.terminalThreads() == DriverConfig.TerminalThreads.VIRTUAL ? " over " + carriers(config) + " carrier(s)" : "",
            config.activePerNode() == DriverConfig.UNLIMITED ? ""
                : ", taking turns: " + config.activePerNode() + " transaction(s) at once per compute node");
    }

    /** Platform threads that run the terminals: the virtual-thread scheduler's parallelism, or one per terminal. */
    public static int carriers(DriverConfig config) {
        return config.terminalThreads() == DriverConfig.TerminalThreads.VIRTUAL ? virtualCarriers() : -1;
    }

    /** The virtual-thread scheduler's parallelism: one carrier per core unless the JVM was told otherwise. */
    public static int virtualCarriers() {
        return Integer.getInteger("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
    }

}
