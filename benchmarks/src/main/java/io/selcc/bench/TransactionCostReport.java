package io.selcc.bench;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.engine.index.BLinkTree;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;

import java.util.Locale;

/**
 * Exact costs of single-row transactions and index lookups in round trips (machine-independent),
 * printed as a table: warm (everything cached on the node) and cold (caches flushed first), on one
 * compute node, and with a second node touching the same row in between (coherence traffic).
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar io.selcc.bench.TransactionCostReport}.
 */
public final class TransactionCostReport {
    private TransactionCostReport() {
    }

    public static void main(String[] args) {
        System.out.printf(Locale.ROOT, "%-4s %-26s %12s %12s %12s%n", "cc", "transaction", "roundTrips", "messages", "bytesRead");
        for (String cc : new String[] {"2pl", "occ", "to"}) {
            try (Database db = Database.builder().cc(cc).computeNodes(2).cacheFrames(4096)
                .table(TableDefinition.of("account", TransactionBenchmark.ACCOUNT, row -> row.getLong(0))).build()) {
                DatabaseNode a = db.node(0);
                DatabaseNode b = db.node(1);
                Table table = a.table("account");
                a.run(tx -> {
                    for (long id = 1; id <= 1000; id++) {
                        long key = id;
                        tx.insert(table, row -> {
                            row.setLong(0, key);
                            row.setMoney(1, 100);
                        });
                    }
                    return null;
                });
                long key = 500;
                read(a, key); // warm
                report(cc, "read, warm", cost(a, tx -> tx.get(a.table("account"), key)));
                report(cc, "update, warm", cost(a, tx -> tx.update(a.table("account"), key, r -> r.setMoney(1, 1))));
                db.cluster().flushCaches();
                report(cc, "read, cold", cost(a, tx -> tx.get(a.table("account"), key)));
                db.cluster().flushCaches();
                report(cc, "update, cold", cost(a, tx -> tx.update(a.table("account"), key, r -> r.setMoney(1, 2))));
                cost(b, tx -> tx.update(b.table("account"), key, r -> r.setMoney(1, 3)));
                report(cc, "read after remote update", cost(a, tx -> tx.get(a.table("account"), key)));
                cost(b, tx -> tx.update(b.table("account"), key, r -> r.setMoney(1, 4)));
                report(cc, "update after remote update", cost(a, tx -> tx.update(a.table("account"), key, r -> r.setMoney(1, 5))));
            }
        }
        indexLookupCost();
    }

    private static void read(DatabaseNode node, long key) {
        node.run(tx -> tx.get(node.table("account"), key));
    }

    private static CounterSnapshot cost(DatabaseNode node, java.util.function.Consumer<Transaction> body) {
        Transaction tx = node.begin();
        body.accept(tx);
        if (!tx.commit().committed()) {
            throw new IllegalStateException("single-threaded transaction aborted");
        }
        return tx.counters();
    }

    private static void report(String cc, String what, CounterSnapshot c) {
        System.out.printf(Locale.ROOT, "%-4s %-26s %12d %12d %12d%n", cc, what, c.get(Counter.ROUND_TRIPS),
            c.get(Counter.MESSAGES_SENT), c.get(Counter.BYTES_READ));
    }

    /** Index lookup: ns per cached lookup (best of 5 rounds of 200k) and round trips of a cold one. */
    private static void indexLookupCost() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).cacheFrames(8192)
            .table(TableDefinition.of("account", TransactionBenchmark.ACCOUNT, row -> row.getLong(0))).build()) {
            ComputeNode node = db.node(0).computeNode();
            BLinkTree tree = BLinkTree.create(node, true);
            int keys = 100_000;
            for (long k = 0; k < keys; k++) {
                tree.insert(k * 7, k);
            }
            long best = Long.MAX_VALUE;
            long sink = 0;
            for (int round = 0; round < 5; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < 200_000; i++) {
                    sink += tree.lookup((i % keys) * 7L, -1);
                }
                best = Math.min(best, (System.nanoTime() - start) / 200_000);
            }
            db.cluster().flushCaches();
            CounterSnapshot before = node.counters().threadSnapshot();
            tree.lookup(12_345 * 7L, -1);
            long cold = node.counters().threadSnapshot().minus(before).get(Counter.ROUND_TRIPS);
            System.out.printf(Locale.ROOT, "index lookup (100k keys, 2 KiB nodes): %d ns cached, %d round trips cold (sink %d)%n",
                best, cold, sink % 10);
        }
    }
}
