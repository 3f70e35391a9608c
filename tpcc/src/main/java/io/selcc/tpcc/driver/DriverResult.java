package io.selcc.tpcc.driver;

import io.selcc.tpcc.txn.TxnType;

import java.util.List;
import java.util.Map;

/**
 * What a run measured, per transaction type, over the measured interval only, and the inputs'
 * variability figures ([SPEC] 5.5.1.5).
 *
 * @param measuredNanos       from the end of the warm-up until the last terminal stopped
 * @param completedByTerminal transactions each terminal completed in the measured interval (committed or
 *                            rolled back), by terminal number ({@link TerminalPlacement})
 * @param sharedMemoryFull    the run stopped early because shared memory was full (the figures cover
 *                            the time until then)
 * @param sharedBytesGrown    shared memory (GCLs in use x GCL size) taken during the measured interval
 * @param terminalCpuNanos    CPU time the terminal threads used from their first measured transaction
 *                            until they stopped (0 where the JVM cannot measure thread CPU time); for
 *                            virtual terminals, what their carrier threads used over the measured interval
 * @param terminalAllocatedBytes heap bytes the terminals allocated in the measured interval: the sum of the
 *                            per-type figures for platform terminals; for virtual ones their carriers' (the
 *                            JDK counts allocation per platform thread, so the per-type figures stay 0)
 */
public record DriverResult(DriverConfig config, long measuredNanos, Map<TxnType, TypeStats> perType,
                           InputShares inputShares, List<Long> completedByTerminal, boolean sharedMemoryFull,
                           long sharedBytesGrown, long terminalCpuNanos, long terminalAllocatedBytes) {
    public DriverResult {
        completedByTerminal = List.copyOf(completedByTerminal);
    }

    public TypeStats stats(TxnType type) {
        return perType.get(type);
    }

    public long committed() {
        return perType.values().stream().mapToLong(TypeStats::committed).sum();
    }

    public long aborted() {
        return perType.values().stream().mapToLong(TypeStats::aborted).sum();
    }

    public long failed() {
        return perType.values().stream().mapToLong(TypeStats::failed).sum();
    }

    public double seconds() {
        return measuredNanos / 1e9;
    }

    /** Completed transactions of all types per second. */
    public double txnPerSec() {
        return measuredNanos == 0 ? 0 : committed() / seconds();
    }

    public double txnPerSec(TxnType type) {
        return measuredNanos == 0 ? 0 : perType.get(type).committed() / seconds();
    }

    /** New-Orders completed per minute, rollbacks included, truncated ([SPEC] 5.4). */
    public long tpmC() {
        return measuredNanos == 0 ? 0 : (long) (perType.get(TxnType.NEW_ORDER).committed() / (seconds() / 60));
    }

    /**
     * Terminal CPU time per measured transaction (retries included), in microseconds: unlike txn/s it
     * leaves out time a shared host took the cores away, so builds compare on a noisy machine.
     */
    public double terminalCpuMicrosPerTxn() {
        long ended = perType.values().stream().mapToLong(TypeStats::ended).sum();
        return ended == 0 ? 0 : terminalCpuNanos / 1e3 / ended;
    }

    /** Heap bytes the terminals allocated per measured transaction (retries included). */
    public double allocatedBytesPerTxn() {
        long ended = perType.values().stream().mapToLong(TypeStats::ended).sum();
        return ended == 0 ? 0 : (double) terminalAllocatedBytes / ended;
    }

    public double roundTripsPerTxn() {
        long ended = perType.values().stream().mapToLong(TypeStats::ended).sum();
        long roundTrips = perType.values().stream().mapToLong(s -> s.roundTrips).sum();
        return ended == 0 ? 0 : (double) roundTrips / ended;
    }

    public double messagesPerTxn() {
        long ended = perType.values().stream().mapToLong(TypeStats::ended).sum();
        long messages = perType.values().stream().mapToLong(s -> s.messages).sum();
        return ended == 0 ? 0 : (double) messages / ended;
    }

    /**
     * Shared memory taken during the run per New-Order completed: every type's growth (New-Order's
     * rows and index entries, Payment's history) over the New-Orders, the figure that says how long a
     * run the memory nodes last.
     */
    public double sharedBytesPerNewOrder() {
        long newOrders = perType.get(TxnType.NEW_ORDER).committed();
        return newOrders == 0 ? 0 : (double) sharedBytesGrown / newOrders;
    }

    /** Share of {@code type} among completed transactions, in percent. */
    public double share(TxnType type) {
        long all = committed();
        return all == 0 ? 0 : 100.0 * perType.get(type).committed() / all;
    }
}
