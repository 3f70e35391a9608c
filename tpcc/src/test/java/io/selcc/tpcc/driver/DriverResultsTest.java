package io.selcc.tpcc.driver;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.RetryPolicy;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.txn.TxnType;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A compute-node process's results as bytes and back, and two processes' results merged: every figure
 * survives the trip. Shown to fail with the decoder leaving the messages count out (every later field
 * shifted, and the decode then ran off its end).
 */
class DriverResultsTest {
    /** Two warehouses, one terminal each, at home: one terminal per node of two. */
    private static final DriverConfig CONFIG = new DriverConfig(2, 1, TerminalPlacement.Placement.HOME,
        DriverConfig.TerminalThreads.VIRTUAL, 1_000_000_000L, 0, 7, Mix.parse("45,43,4,4,4"),
        false, TpccRandom.Constants.random(7), new RetryPolicy(10, 1_000, 1_000_000, () -> 0L), -1,
        DriverConfig.UNLIMITED);

    /** A result with every field set from {@code seed} (printed by the test that fails). */
    private static DriverResult sample(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Map<TxnType, TypeStats> perType = new EnumMap<>(TxnType.class);
        for (TxnType type : TxnType.values()) {
            TypeStats s = new TypeStats();
            s.committed = 1 + random.nextInt(1000);
            s.rolledBack = random.nextInt(10);
            s.failed = random.nextInt(5);
            s.aborts.put(AbortReason.LOCK_CONFLICT, (long) random.nextInt(100));
            s.aborts.put(AbortReason.UPGRADE_CONFLICT, (long) random.nextInt(100));
            for (int i = 0; i < 50; i++) {
                s.latencyMicros.recordValue(1 + random.nextInt(1_000_000));
            }
            s.roundTrips = random.nextInt(100_000);
            s.messages = random.nextInt(100_000);
            s.gclAccesses = random.nextInt(100_000);
            s.bytesRead = random.nextInt(100_000_000);
            s.allocatedBytes = random.nextInt(100_000_000);
            s.skippedDistricts = random.nextInt(3);
            perType.put(type, s);
        }
        InputShares shares = new InputShares();
        shares.newOrders = random.nextInt(1000);
        shares.orderLines = random.nextInt(10_000);
        shares.remoteOrderLines = random.nextInt(100);
        shares.rollbacks = random.nextInt(10);
        shares.payments = random.nextInt(1000);
        shares.remotePayments = random.nextInt(150);
        shares.paymentsByName = random.nextInt(600);
        shares.orderStatuses = random.nextInt(100);
        shares.orderStatusesByName = random.nextInt(60);
        shares.deliveries = random.nextInt(100);
        shares.skippedDeliveries = random.nextInt(3);
        return new DriverResult(CONFIG, 1_000_000_000L + random.nextInt(1000), perType, shares,
            List.of((long) random.nextInt(500), (long) random.nextInt(500)), random.nextBoolean(), random.nextInt(1 << 20),
            random.nextInt(1_000_000_000), random.nextInt(1 << 30));
    }

    /** Every figure of a result, in one list, for comparisons. */
    private static List<Object> figures(DriverResult r) {
        List<Object> all = new java.util.ArrayList<>(List.of(r.measuredNanos(), r.sharedMemoryFull(), r.sharedBytesGrown(),
            r.terminalCpuNanos(), r.completedByTerminal(), r.terminalAllocatedBytes()));
        for (TxnType type : TxnType.values()) {
            TypeStats s = r.stats(type);
            all.addAll(List.of(type, s.committed, s.rolledBack, s.failed, Map.copyOf(s.aborts), s.latencyMicros.getTotalCount(),
                s.latencyMicros.getMaxValue(), s.latencyMicros.getValueAtPercentile(50), s.roundTrips, s.messages,
                s.gclAccesses, s.bytesRead, s.allocatedBytes, s.skippedDistricts));
        }
        InputShares i = r.inputShares();
        all.add(Arrays.asList(i.newOrders, i.orderLines, i.remoteOrderLines, i.rollbacks, i.payments, i.remotePayments,
            i.paymentsByName, i.orderStatuses, i.orderStatusesByName, i.deliveries, i.skippedDeliveries));
        return all;
    }

    @Test
    void aResultSurvivesTheTripAsBytes() {
        long seed = new SplittableRandom().nextLong();
        System.out.println("DriverResultsTest seed " + seed);
        DriverResult original = sample(seed);
        DriverResult back = DriverResults.decode(DriverResults.encode(original), CONFIG);
        assertEquals(figures(original), figures(back), "seed " + seed);
    }

    @Test
    void mergingSumsTheCountsAndTakesTheLongerTime() {
        long seed = new SplittableRandom().nextLong();
        System.out.println("DriverResultsTest seed " + seed);
        DriverResult first = sample(seed);
        DriverResult second = sample(seed + 1);
        DriverResult merged = DriverResults.merge(first, DriverResults.decode(DriverResults.encode(second), CONFIG));
        assertEquals(Math.max(first.measuredNanos(), second.measuredNanos()), merged.measuredNanos());
        assertEquals(first.committed() + second.committed(), merged.committed(), "seed " + seed);
        assertEquals(first.aborted() + second.aborted(), merged.aborted(), "seed " + seed);
        assertEquals(first.terminalCpuNanos() + second.terminalCpuNanos(), merged.terminalCpuNanos());
        assertEquals(first.sharedMemoryFull() || second.sharedMemoryFull(), merged.sharedMemoryFull());
        assertEquals(4, merged.completedByTerminal().size());
        assertEquals(second.completedByTerminal(), merged.completedByTerminal().subList(2, 4), "node 1's terminals last");
        for (TxnType type : TxnType.values()) {
            assertEquals(first.stats(type).latencyMicros().getTotalCount() + second.stats(type).latencyMicros().getTotalCount(),
                merged.stats(type).latencyMicros().getTotalCount(), type + ", seed " + seed);
            assertEquals(first.stats(type).roundTrips + second.stats(type).roundTrips, merged.stats(type).roundTrips);
        }
        assertEquals(first.inputShares().newOrders + second.inputShares().newOrders, merged.inputShares().newOrders);
    }

    @Test
    void aMissingNodeAddsZeroTerminalsAndNothingElse() {
        DriverResult first = sample(3);
        DriverResult merged = DriverResults.merge(first, DriverResults.missing(CONFIG, 2, 1));
        assertEquals(figures(first).subList(5, figures(first).size()), figures(merged).subList(5, figures(merged).size()),
            "every count as the first's");
        assertEquals(first.measuredNanos(), merged.measuredNanos());
        assertEquals(List.of(first.completedByTerminal().get(0), first.completedByTerminal().get(1), 0L),
            merged.completedByTerminal(), "one terminal per node in CONFIG: the missing node's counts 0");
    }

    @Test
    void bytesThatAreNotAResultAreRefused() {
        byte[] bytes = DriverResults.encode(sample(1));
        assertThrows(MalformedMessageException.class, () -> DriverResults.decode(Arrays.copyOf(bytes, bytes.length - 3),
            CONFIG));
        assertThrows(MalformedMessageException.class, () -> DriverResults.decode(Arrays.copyOf(bytes, bytes.length + 1),
            CONFIG));
    }
}
