package io.selcc.cli;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.Counter;
import io.selcc.fabric.tcp.ClusterMap;
import io.selcc.fabric.tcp.MemoryNodeServer;
import io.selcc.fabric.tcp.TcpFabric;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two databases, each hosting one compute node over its own TCP fabric, as two processes would: node 1's
 * finds the table node 0's created in the shared catalog, and transfers from both keep the total, under
 * no-wait 2PL, with conflicts between them. (Planted once: a requester that drops the granted line's
 * bytes made node 1 miss rows node 0 wrote.)
 */
class DatabaseAcrossProcessesTest {
    private static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").build();
    private static final int ACCOUNTS = 6;
    private static final long START = 100_00;

    private static Database open(ClusterMap map, int node) {
        Database.Builder b = Database.builder().cc("2pl")
            .table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0)).withOnePerPage());
        b.clusterSettings().fabric(TcpFabric.connect(map, Set.of(node), Duration.ofSeconds(30))).cacheFrames(64);
        return b.build();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void transfersFromTwoProcessesKeepTheTotal() throws Exception {
        long seed = System.nanoTime();
        System.out.println("DatabaseAcrossProcessesTest seed=" + seed);
        int transfers = 150;
        try (MemoryNodeServer memory = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 64 << 20)) {
            ClusterMap map = new ClusterMap(List.of(memory.address()),
                List.of(new InetSocketAddress("127.0.0.1", freePort()), new InetSocketAddress("127.0.0.1", freePort())));
            try (Database first = open(map, 0); Database second = open(map, 1)) {
                DatabaseNode n0 = first.node(0);
                Table t0 = n0.table("account");
                for (long id = 0; id < ACCOUNTS; id++) {
                    long key = id;
                    assertTrue(n0.run(tx -> tx.insert(t0, row -> {
                        row.setLong(0, key);
                        row.setMoney(1, START);
                    })).committed());
                }
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> first.node(1));
                assertTrue(e.getMessage().contains("another process"), e.getMessage());
                DatabaseNode n1 = second.node(1); // finds the table in the catalog node 0 created
                DatabaseNode[] nodes = {n0, n1};
                ExecutorService pool = Executors.newFixedThreadPool(2);
                List<Future<long[]>> done = new ArrayList<>();
                for (int n = 0; n < 2; n++) {
                    DatabaseNode node = nodes[n];
                    Table table = node.table("account");
                    SplittableRandom random = new SplittableRandom(seed + n);
                    done.add(pool.submit(() -> {
                        long aborts = 0;
                        for (int i = 0; i < transfers; i++) {
                            long from = random.nextInt(ACCOUNTS);
                            long to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                            long cents = 1 + random.nextInt(100);
                            TxnResult<Boolean> r = node.run(tx -> tx.update(table, from,
                                row -> row.setMoney(1, row.getMoney(1) - cents))
                                && tx.update(table, to, row -> row.setMoney(1, row.getMoney(1) + cents)));
                            assertTrue(r.committed() && r.value(), "transfer " + i + ": " + r);
                            aborts += r.attempts() - 1;
                        }
                        return new long[] {transfers, aborts};
                    }));
                }
                pool.shutdown();
                long aborts = 0;
                for (Future<long[]> f : done) {
                    long[] r = f.get(100, TimeUnit.SECONDS);
                    assertEquals(transfers, r[0], "the worker finished its share (seed=" + seed + ")");
                    aborts += r[1];
                }
                long total = n1.run(tx -> {
                    long sum = 0;
                    for (long id = 0; id < ACCOUNTS; id++) {
                        sum += tx.get(n1.table("account"), id).getMoney(1);
                    }
                    return sum;
                }).value();
                assertEquals(ACCOUNTS * START, total, "money made or lost across processes (seed=" + seed + ")");
                long invalidations = first.cluster().totalCounters().invalidationsSent()
                    + second.cluster().totalCounters().invalidationsSent();
                assertTrue(invalidations > 0, "the two processes contended for lines");
                System.out.println("DatabaseAcrossProcessesTest: " + aborts + " conflict retries, " + invalidations
                    + " invalidations, handovers " + (first.cluster().totalCounters().get(Counter.HANDOVERS)
                    + second.cluster().totalCounters().get(Counter.HANDOVERS)));
            }
        }
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
