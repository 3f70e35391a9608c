package io.selcc.tpcc.run;

import io.selcc.tpcc.txn.TpccTransactions;
import io.selcc.tpcc.txn.InputGenerator;
import io.selcc.tpcc.txn.NewOrderInput;
import io.selcc.tpcc.txn.PaymentInput;
import io.selcc.tpcc.txn.DeliveryInput;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.Database;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConsistencyChecker;
import io.selcc.tpcc.load.TpccLoader;
import io.selcc.twopc.DistributedTransaction;
import io.selcc.twopc.PartitionedDatabase;
import io.selcc.twopc.TwoPcStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The TPC-C profiles in partitioned mode: two compute nodes each own one warehouse in tables of their
 * own; New-Orders with a supply warehouse of the other node and Payments of the other node's customers
 * (by id and by last name) commit by two-phase commit, while both nodes run their terminals at once.
 * Afterwards the consistency conditions hold over both partitions, and no invalidation crossed nodes:
 * neither node ever cached a line of the other's partition.
 *
 * <p>Shown failing on a planted router that acknowledged remote customer updates without shipping them
 * (the consistency check failed).
 */
@Timeout(180)
class PartitionedTpccTest {
    private static final int NODES = 2;
    private static final int WAREHOUSES = 2;
    private static final int TRANSACTIONS_PER_NODE = 300;

    @Test
    void crossPartitionOrdersAndPaymentsKeepEveryConditionWithoutInvalidations() throws Exception {
        long seed = System.nanoTime();
        System.out.println("PartitionedTpccTest seed=" + seed);
        TpccRandom.Constants constants = TpccRandom.Constants.random(seed);
        try (Database db = TpccSchema.define(Database.builder().cc("2pl").computeNodes(NODES).cacheFrames(16_384)
                .memoryPerNode(768L << 20), NODES).build()) {
            new TpccLoader(db, WAREHOUSES, seed, constants, 1, null, NODES).load();
            try (PartitionedDatabase partitioned = PartitionedDatabase.builder(db).build()) {
                runBothNodes(db, partitioned, seed, constants);
            }
        }
    }

    private void runBothNodes(Database db, PartitionedDatabase partitioned, long seed, TpccRandom.Constants constants)
            throws Exception {
        // Building partitioned mode emptied the caches: the tables' root lines every node read at open
        // are no longer shared, so a partition's first new page invalidates no other node.
        CounterSnapshot before = invalidations(db);

        ExecutorService terminals = Executors.newFixedThreadPool(NODES);
        List<Future<int[]>> results = new ArrayList<>();
        for (int node = 0; node < NODES; node++) {
            int home = node;
            long terminalSeed = seed + node;
            results.add(terminals.submit(() -> terminal(db, partitioned, home, new TpccRandom(terminalSeed, constants))));
        }
        terminals.shutdown();
        int remoteOrders = 0;
        int remotePayments = 0;
        for (Future<int[]> f : results) {
            int[] r = f.get(150, TimeUnit.SECONDS); // a terminal's exception fails the test here
            assertEquals(TRANSACTIONS_PER_NODE, r[0], "the terminal finished its share");
            remoteOrders += r[1];
            remotePayments += r[2];
        }
        long crossed = invalidations(db).minus(before).invalidationsSent();
        TwoPcStats stats = partitioned.stats();
        System.out.println("PartitionedTpccTest remoteOrders=" + remoteOrders + " remotePayments=" + remotePayments
            + " " + stats);
        assertTrue(remoteOrders > 20 && remotePayments > 20, "cross-partition work happened");
        assertTrue(stats.distributedCommits() >= remoteOrders + remotePayments - 10, stats.toString());
        assertEquals(0, crossed, invalidations(db).minus(before).nonZero() + " invalidations between the partitions' nodes");

        CheckReport report = new ConsistencyChecker(db.node(0), WAREHOUSES, NODES).check();
        assertTrue(report.passed(), report.toString());
    }

    private static CounterSnapshot invalidations(Database db) {
        CounterSnapshot sum = CounterSnapshot.zero();
        for (int n = 0; n < db.computeNodeCount(); n++) {
            sum = sum.plus(db.node(n).computeNode().counters().snapshot());
        }
        return sum;
    }

    /** One terminal of warehouse {@code home + 1}: New-Order, Payment and Delivery, a third remote where they can be. */
    private static int[] terminal(Database db, PartitionedDatabase partitioned, int home, TpccRandom random) {
        TpccTransactions tpcc = new TpccTransactions(db.node(home), home);
        PartitionRouter router = new PartitionRouter(NODES, home);
        InputGenerator inputs = new InputGenerator(random, WAREHOUSES);
        int w = home + 1;
        int other = WAREHOUSES - home;
        int done = 0;
        int remoteOrders = 0;
        int remotePayments = 0;
        for (int i = 0; i < TRANSACTIONS_PER_NODE; i++) {
            long now = i * 1_000L;
            int kind = i % 3;
            boolean remote = random.uniform(0, 1) == 0;
            Function<DistributedTransaction, Object> body;
            if (kind == 0) {
                NewOrderInput in = inputs.newOrder(w, now);
                int[] supply = in.supplyWarehouses().clone();
                if (remote) {
                    supply[0] = other;
                }
                NewOrderInput order = new NewOrderInput(in.w(), in.d(), in.c(), in.itemIds(), supply, in.quantities(), now);
                body = tx -> tpcc.newOrder(tx.local(), router.bind(tx), order);
            } else if (kind == 1) {
                PaymentInput in = inputs.payment(w, now);
                PaymentInput payment = remote
                    ? new PaymentInput(in.w(), in.d(), other, in.customerD(), in.byLastName(), in.customerId(),
                        in.lastNameNumber(), in.amountCents(), now)
                    : in;
                body = tx -> tpcc.payment(tx.local(), router.bind(tx), payment);
            } else {
                DeliveryInput in = inputs.delivery(w, now);
                body = tx -> tpcc.delivery(tx.local(), in);
            }
            boolean distributed = run(partitioned, home, body);
            done++;
            if (distributed && kind == 0) {
                remoteOrders++;
            } else if (distributed && kind == 1) {
                remotePayments++;
            }
        }
        return new int[] {done, remoteOrders, remotePayments};
    }

    /** Runs {@code body} until it commits (or rolls back on purpose); whether the last attempt was distributed. */
    private static boolean run(PartitionedDatabase partitioned, int home, Function<DistributedTransaction, Object> body) {
        for (int attempt = 1; attempt <= 10_000; attempt++) {
            DistributedTransaction tx = partitioned.begin(home);
            try {
                body.apply(tx);
                if (!tx.local().isActive()) {
                    tx.close(); // New-Order's invalid item rolled the home branch back: roll back the rest
                    return tx.isDistributed();
                }
                CommitOutcome outcome = tx.commit();
                if (outcome.committed()) {
                    return tx.isDistributed();
                }
            } catch (AbortException e) {
                tx.close();
            }
        }
        throw new IllegalStateException("no commit in 10,000 attempts on node " + home);
    }
}
