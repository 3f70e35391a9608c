package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.tcp.ClusterMap;
import io.selcc.fabric.tcp.MemoryNodeServer;
import io.selcc.fabric.tcp.TcpFabric;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two databases, each hosting one compute node over its own TCP fabric (as two processes do), logging
 * into one directory with the durable watermark shared through memory ({@link Wal#shareWatermark}). Node
 * 0's forcer stalls; node 0 commits T0 (account 1 += 5), which is in memory but not forced; node 1 then
 * commits T1, which reads account 1 (T0's write) and copies it into account 2, so T1 is numbered after
 * T0. T1's record is forced in node 1's log, yet T1 is not acknowledged while node 0's durability word is
 * below T0: a crash of the machine then would lose T0 under an acknowledged T1. Once node 0's force
 * returns, both are acknowledged.
 *
 * <p>Shown to fail with the old rule (a process's log waited for its own records only:
 * {@code Wal.othersDrawNumbers} before issue 28), planted as the minimum taken over the node's own word
 * alone: T1 was acknowledged with node 0's word below T0.
 */
class CommitsAcrossProcessesTest {
    private static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").build();
    private static final long START = 100_00;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCommitThatReadAnotherProcesssUnforcedCommitWaitsForItsForce(@TempDir Path logs) throws Exception {
        StallingForcing stalling = new StallingForcing();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (MemoryNodeServer memory = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 64 << 20)) {
            ClusterMap map = new ClusterMap(List.of(memory.address()),
                List.of(new InetSocketAddress("127.0.0.1", freePort()), new InetSocketAddress("127.0.0.1", freePort())));
            Wal zeroLog = Wal.open(logs, Wal.Mode.SYNC, UnaryOperator.identity(), stalling).shareWatermark();
            Wal oneLog = Wal.open(logs, Wal.Mode.SYNC).shareWatermark();
            try (Database zero = open(map, 0); Database one = open(map, 1)) {
                DatabaseNode n0 = zero.node(0);
                Table t0 = n0.table("account");
                for (long id = 1; id <= 2; id++) {
                    long key = id;
                    assertTrue(n0.run(tx -> tx.insert(t0, row -> {
                        row.setLong(0, key);
                        row.setMoney(1, START);
                    })).committed());
                }
                DatabaseNode n1 = one.node(1);
                Table t1 = n1.table("account");
                zero.startLogging(zeroLog);
                one.startLogging(oneLog);
                try {
                    stalling.stall();
                    Future<TxnResult<Boolean>> first = pool.submit(() ->
                        n0.run(tx -> tx.update(t0, 1, row -> row.setMoney(1, row.getMoney(1) + 5))));
                    stalling.awaitStalled(); // T0 appended, its force blocked
                    long s0 = zero.commitSequence();
                    Future<TxnResult<Long>> second = pool.submit(() -> n1.run(tx -> {
                        long seen = tx.get(t1, 1).getMoney(1);
                        tx.update(t1, 2, row -> row.setMoney(1, seen));
                        return seen;
                    }));
                    SharedWatermark shared = oneLog.shared();
                    awaitTrue(() -> oneLog.counters().appends() == 1); // T1 committed in memory, its record appended
                    long exchanges = shared.exchangesForTest();
                    awaitTrue(() -> shared.exchangesForTest() >= exchanges + 10);
                    assertFalse(second.isDone(), "T1 was acknowledged while T0 (sequence " + s0 + "), whose write it"
                        + " read, was not forced: node 1's durable=" + oneLog.durable());
                    assertTrue(oneLog.durable() < s0, "durable=" + oneLog.durable());
                    stalling.release();
                    TxnResult<Long> t1Result = second.get(60, TimeUnit.SECONDS);
                    assertTrue(first.get(60, TimeUnit.SECONDS).committed());
                    assertTrue(t1Result.committed());
                    assertEquals(START + 5, t1Result.value(), "T1 read T0's write");
                    assertTrue(oneLog.durable() > s0, "acknowledged once node 0's word passed T0: " + oneLog.durable());
                    System.out.println("CommitsAcrossProcessesTest: T0=" + s0 + " T1 acknowledged at durable="
                        + oneLog.durable() + " after " + (shared.exchangesForTest() - exchanges) + " exchanges of node 1");
                } finally {
                    stalling.release();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Database open(ClusterMap map, int node) {
        Database.Builder b = Database.builder().cc("2pl")
            .table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0)).withOnePerPage());
        b.clusterSettings().fabric(TcpFabric.connect(map, Set.of(node), Duration.ofSeconds(30))).cacheFrames(64);
        return b.build();
    }

    /** Yields until {@code condition} holds; the test's timeout bounds it. */
    private static void awaitTrue(java.util.function.BooleanSupplier condition) {
        while (!condition.getAsBoolean()) {
            Thread.yield();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
