package io.selcc.tpcc.check;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.NewOrder;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.load.TpccLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checker fails where it should: each test breaks one thing in a loaded database (TO, two nodes),
 * asserts exactly the expected conditions fail with details naming the place, and repairs it.
 */
class ConsistencyCheckerTest {
    private static Database db;
    private static DatabaseNode node;

    @BeforeAll
    static void load() {
        db = TpccSchema.define(Database.builder().cc("to").computeNodes(2).cacheFrames(16_384)
            .memoryPerNode(512L << 20)).build();
        new TpccLoader(db, 1, 99, TpccRandom.Constants.random(99), 2, null).load();
        node = db.node(1);
    }

    @AfterAll
    static void close() {
        if (db != null) {
            db.close();
        }
    }

    @AfterEach
    void repairedDatabaseIsConsistentAgain() {
        CheckReport report = check();
        assertTrue(report.passed(), () -> "after repair: " + report);
    }

    @Test
    void districtYtdChangeFailsConditions1And9() {
        change(District.TABLE, District.key(1, 3), r -> r.setMoney(District.D_YTD, r.getMoney(District.D_YTD) + 1_00));
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(1, 9));
            assertTrue(report.condition(1).detail().contains("w=1 W_YTD=300000.00 sum(D_YTD)=300001.00"),
                report.condition(1).detail());
            assertTrue(report.condition(9).detail().contains("w=1 d=3 D_YTD=30001.00"), report.condition(9).detail());
        } finally {
            change(District.TABLE, District.key(1, 3), r -> r.setMoney(District.D_YTD, r.getMoney(District.D_YTD) - 1_00));
        }
    }

    @Test
    void missingNewOrderInTheMiddleFailsConditions3And5And11() {
        delete(NewOrder.TABLE, NewOrder.key(1, 5, 2500));
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(3, 5, 11));
            assertTrue(report.condition(3).detail().contains("w=1 d=5 max(NO_O_ID)=3000 min(NO_O_ID)=2101 count(NEW-ORDER)=899"),
                report.condition(3).detail());
            assertTrue(report.condition(5).detail().contains("w=1 d=5 o=2500"), report.condition(5).detail());
            assertTrue(report.condition(11).detail().contains("w=1 d=5 count(ORDER)=3000 count(NEW-ORDER)=899"),
                report.condition(11).detail());
        } finally {
            insertNewOrder(1, 5, 2500);
        }
    }

    @Test
    void nextOrderIdChangeFailsCondition2() {
        change(District.TABLE, District.key(1, 10), r -> r.setInt(District.D_NEXT_O_ID, 3002));
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(2));
            assertTrue(report.condition(2).detail().contains("w=1 d=10 D_NEXT_O_ID=3002 max(O_ID)=3000"),
                report.condition(2).detail());
        } finally {
            change(District.TABLE, District.key(1, 10), r -> r.setInt(District.D_NEXT_O_ID, 3001));
        }
    }

    @Test
    void customerBalanceChangeFailsConditions10And12() {
        change(Customer.TABLE, Customer.key(1, 2, 17), r -> r.setMoney(Customer.C_BALANCE, r.getMoney(Customer.C_BALANCE) + 5));
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(10, 12));
            assertTrue(report.condition(10).detail().contains("w=1 d=2 c=17 C_BALANCE=-9.95"), report.condition(10).detail());
            assertTrue(report.condition(12).detail().contains("w=1 d=2 c=17"), report.condition(12).detail());
        } finally {
            change(Customer.TABLE, Customer.key(1, 2, 17), r -> r.setMoney(Customer.C_BALANCE, -10_00));
        }
    }

    @Test
    void undeliveredLineOfADeliveredOrderFailsConditions7And10And12() {
        long[] customer = new long[1];
        // Order 5's customer, for the detail of C10.
        node.table(TpccSchema.Order.TABLE).heap().scan((rid, r) -> {
            if (r.getInt(TpccSchema.Order.O_W_ID) == 1 && r.getInt(TpccSchema.Order.O_D_ID) == 4
                && r.getInt(TpccSchema.Order.O_ID) == 5) {
                customer[0] = r.getInt(TpccSchema.Order.O_C_ID);
            }
        });
        long[] deliveredAt = new long[1];
        change(OrderLine.TABLE, OrderLine.key(1, 4, 5, 1), r -> {
            deliveredAt[0] = r.getTimestamp(OrderLine.OL_DELIVERY_D);
            r.setMoney(OrderLine.OL_AMOUNT, 7_00);
            r.setNull(OrderLine.OL_DELIVERY_D);
        });
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(7));
            assertTrue(report.condition(7).detail().contains("w=1 d=4 o=5 ol_number=1"), report.condition(7).detail());
        } finally {
            change(OrderLine.TABLE, OrderLine.key(1, 4, 5, 1), r -> {
                r.setMoney(OrderLine.OL_AMOUNT, 0);
                r.setTimestamp(OrderLine.OL_DELIVERY_D, deliveredAt[0]);
            });
        }
        // A delivered line with a non-zero amount breaks the customer's balance (C10, C12).
        change(OrderLine.TABLE, OrderLine.key(1, 4, 5, 1), r -> r.setMoney(OrderLine.OL_AMOUNT, 7_00));
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(10, 12));
            assertTrue(report.condition(10).detail().contains("w=1 d=4 c=" + customer[0] + " "),
                report.condition(10).detail());
        } finally {
            change(OrderLine.TABLE, OrderLine.key(1, 4, 5, 1), r -> r.setMoney(OrderLine.OL_AMOUNT, 0));
        }
    }

    @Test
    void missingOrderLineFailsConditions4And6() {
        Table lines = node.table(OrderLine.TABLE);
        byte[] saved = new byte[lines.schema().tupleSize()];
        node.run(tx -> {
            tx.get(lines, OrderLine.key(1, 8, 3000, 1)).copyTo(saved);
            return null;
        });
        delete(OrderLine.TABLE, OrderLine.key(1, 8, 3000, 1));
        try {
            CheckReport report = check();
            assertFailed(report, Set.of(4, 6));
            assertTrue(report.condition(4).detail().startsWith("violations=1 first: w=1 d=8 "), report.condition(4).detail());
            assertTrue(report.condition(6).detail().contains("w=1 d=8 o=3000 "), report.condition(6).detail());
        } finally {
            assertTrue(node.run(tx -> tx.insert(lines, r -> r.copyColumnsFrom(copyOf(lines, saved)))).committed());
        }
    }

    // ------------------------------------------------------------------ helpers

    private static CheckReport check() {
        return new ConsistencyChecker(node, 1).check();
    }

    private static void assertFailed(CheckReport report, Set<Integer> expected) {
        List<Integer> failed = report.failures().stream().map(ConditionResult::number).toList();
        assertEquals(expected, Set.copyOf(failed), report::toString);
    }

    private static void change(String table, long key, java.util.function.Consumer<io.selcc.storage.TupleView> updater) {
        Table t = node.table(table);
        assertTrue(node.run(tx -> tx.update(t, key, updater)).value(), () -> "no row: table=" + table + " key=" + key);
    }

    private static void delete(String table, long key) {
        Table t = node.table(table);
        assertTrue(node.run(tx -> tx.delete(t, key)).value(), () -> "no row: table=" + table + " key=" + key);
    }

    private static void insertNewOrder(int w, int d, int o) {
        Table t = node.table(NewOrder.TABLE);
        Function<io.selcc.engine.Transaction, Boolean> body = tx -> tx.insert(t, r -> {
            r.setInt(NewOrder.NO_O_ID, o);
            r.setInt(NewOrder.NO_D_ID, d);
            r.setInt(NewOrder.NO_W_ID, w);
        });
        assertTrue(node.run(body).value());
    }

    private static io.selcc.storage.TupleView copyOf(Table table, byte[] image) {
        io.selcc.storage.TupleBuffer buffer = new io.selcc.storage.TupleBuffer(table.schema());
        io.selcc.storage.TupleView view = new io.selcc.storage.TupleView(table.schema()).wrap(buffer);
        view.copyFrom(image);
        return view;
    }
}
