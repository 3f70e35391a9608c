package io.selcc.tpcc.driver;

import io.selcc.cache.AccessMode;
import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConsistencyChecker;
import io.selcc.tpcc.load.TpccLoader;
import io.selcc.tpcc.txn.TxnType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every concurrency control in both access modes: load one warehouse, run the standard mix from two
 * compute nodes for a short time, then all twelve consistency conditions must hold.
 */
class DriverConsistencyTest {
    static Stream<Arguments> combinations() {
        return Stream.of("2pl", "occ", "to").flatMap(cc ->
            Stream.of(AccessMode.SELCC, AccessMode.SEL).map(mode -> Arguments.of(cc, mode)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("combinations")
    void shortRunKeepsEveryConsistencyCondition(String cc, AccessMode mode) throws Exception {
        runAndCheck(cc, mode, 1, 1, 1_500_000_000L, 1234);
    }

    /** Longer, busier: 2 warehouses, 2 terminals per node, 20 s per combination (-Pstress). */
    @org.junit.jupiter.api.Tag("stress")
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("combinations")
    void longRunKeepsEveryConsistencyCondition(String cc, AccessMode mode) throws Exception {
        runAndCheck(cc, mode, 2, 2, 20_000_000_000L, 99);
    }

    private static void runAndCheck(String cc, AccessMode mode, int warehouses, int terminalsPerNode, long nanos,
                                    long seed) throws Exception {
        TpccRandom.Constants constants = TpccRandom.Constants.random(seed);
        Database.Builder builder = TpccSchema.define(Database.builder()).cc(cc).computeNodes(2).accessMode(mode)
            .threadsPerNode(terminalsPerNode).cacheFrames(65_536).memoryPerNode((long) warehouses << 30);
        try (Database db = builder.build()) {
            new TpccLoader(db, warehouses, seed, constants, terminalsPerNode, null).load();
            SplittableRandom jitter = new SplittableRandom(seed);
            RetryPolicy retry = new RetryPolicy(1000, 1_000, 1_000_000, () -> {
                synchronized (jitter) {
                    return jitter.nextLong();
                }
            });
            DriverConfig config = new DriverConfig(warehouses, terminalsPerNode, nanos, 0, seed, Mix.STANDARD, false,
                constants, retry);
            DriverResult result = new TpccDriver(db, config, null).run();
            assertTrue(result.stats(TxnType.NEW_ORDER).committed() > 0, "no New-Order completed (seed=" + seed + ")");
            CheckReport report = new ConsistencyChecker(db.node(0), warehouses).check();
            assertTrue(report.passed(), "consistency after the run (cc=" + cc + ", " + mode + ", seed=" + seed + "): "
                + report.conditions());
        }
    }
}
