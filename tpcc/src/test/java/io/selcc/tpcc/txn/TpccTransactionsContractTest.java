package io.selcc.tpcc.txn;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Transaction;
import io.selcc.storage.TupleView;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.History;
import io.selcc.tpcc.TpccSchema.NewOrder;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.TpccSchema.Stock;
import io.selcc.tpcc.TpccSchema.Warehouse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.selcc.tpcc.txn.TinyTpcc.read;
import static io.selcc.tpcc.txn.TinyTpcc.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each transaction alone on {@link TinyTpcc}, against effects computed by hand. Subclassed once per
 * concurrency-control algorithm.
 */
abstract class TpccTransactionsContractTest {
    private Database db;
    private DatabaseNode node;
    private TpccTransactions txns;

    abstract String cc();

    @BeforeEach
    void setUp() {
        db = TinyTpcc.open(cc());
        node = db.node(0);
        TinyTpcc.load(node);
        txns = new TpccTransactions(node);
    }

    @AfterEach
    void tearDown() {
        db.close();
    }

    // ================================================================ New-Order

    @Test
    void newOrderWritesOrderLinesStockAndTotal() {
        // item1 x5 home (50 -> 45), item2 x5 home (12 < 15 -> 12 - 5 + 91 = 98), item4 x3 from w2 (30 -> 27)
        NewOrderInput in = new NewOrderInput(1, 1, 1, new int[] {1, 2, 4}, new int[] {1, 1, 2}, new int[] {5, 5, 3}, 7_777);
        NewOrderResult r = run(node, tx -> txns.newOrder(tx, in));

        assertFalse(r.rolledBack());
        assertEquals(4, r.orderId());
        assertEquals("BARBARBAR", r.customerLast());
        assertEquals("GC", r.customerCredit());
        assertEquals(1000, r.customerDiscount());
        assertEquals(1000, r.warehouseTax());
        assertEquals(500, r.districtTax());
        // Σ OL_AMOUNT = 50.00 + 12.50 + 15.00 = 77.50; × 0.90 × 1.15 = 80.2125 -> 80.21
        assertEquals(80_21, r.totalCents());
        assertEquals(3, r.lineCount());
        assertEquals(List.of(
            new NewOrderResult.Line(1, 1, "item1", 5, 45, 'B', 10_00, 50_00),
            new NewOrderResult.Line(1, 2, "item2", 5, 98, 'G', 2_50, 12_50),
            new NewOrderResult.Line(2, 4, "item4", 3, 27, 'G', 5_00, 15_00)), r.lines());

        assertEquals(5, read(node, District.TABLE, District.key(1, 1)).getInt(District.D_NEXT_O_ID));
        TupleView order = read(node, Order.TABLE, Order.key(1, 1, 4));
        assertNotNull(order);
        assertEquals(1, order.getInt(Order.O_C_ID));
        assertEquals(7_777, order.getTimestamp(Order.O_ENTRY_D));
        assertTrue(order.isNull(Order.O_CARRIER_ID));
        assertEquals(3, order.getInt(Order.O_OL_CNT));
        assertEquals(0, order.getInt(Order.O_ALL_LOCAL));
        assertNotNull(read(node, NewOrder.TABLE, NewOrder.key(1, 1, 4)));

        int[] items = {1, 2, 4};
        int[] supply = {1, 1, 2};
        int[] quantities = {5, 5, 3};
        long[] amounts = {50_00, 12_50, 15_00};
        for (int n = 1; n <= 3; n++) {
            TupleView line = read(node, OrderLine.TABLE, OrderLine.key(1, 1, 4, n));
            assertNotNull(line, "line " + n);
            assertEquals(items[n - 1], line.getInt(OrderLine.OL_I_ID));
            assertEquals(supply[n - 1], line.getInt(OrderLine.OL_SUPPLY_W_ID));
            assertEquals(quantities[n - 1], line.getInt(OrderLine.OL_QUANTITY));
            assertEquals(amounts[n - 1], line.getMoney(OrderLine.OL_AMOUNT));
            assertTrue(line.isNull(OrderLine.OL_DELIVERY_D));
            assertEquals(TinyTpcc.distInfo(supply[n - 1], items[n - 1], 1), line.getString(OrderLine.OL_DIST_INFO));
        }
        assertNull(read(node, OrderLine.TABLE, OrderLine.key(1, 1, 4, 4)));

        assertStock(1, 1, 45, 5, 1, 0);
        assertStock(1, 2, 98, 5, 1, 0);
        assertStock(2, 4, 27, 3, 1, 1);
        assertStock(1, 4, 9, 0, 0, 0);  // the home stock of the remote line is untouched

        // The new order is now the customer's last (by-customer index maintained).
        OrderStatusResult status = run(node, tx -> txns.orderStatus(tx, new OrderStatusInput(1, 1, false, 1, -1)));
        assertEquals(4, status.orderId());
        assertEquals(3, status.lineCount());
    }

    /**
     * [SPEC] 2.4.2.2: 'B' only when I_DATA and S_DATA both contain "ORIGINAL". Item 1 (original) is
     * ordered from a stock row whose S_DATA lost it, item 2 (not original) from one that gained it: both
     * 'G'. Fails if the stock search is skipped for an original item (item 1 would show 'B').
     */
    @Test
    void brandGenericNeedsOriginalInBothTheItemAndItsStock() {
        run(node, tx -> tx.update(node.table(Stock.TABLE), Stock.key(1, 1),
            row -> row.setString(Stock.S_DATA, "plain stock data")));
        run(node, tx -> tx.update(node.table(Stock.TABLE), Stock.key(1, 2),
            row -> row.setString(Stock.S_DATA, "stockORIGINALdata")));
        NewOrderInput in = new NewOrderInput(1, 1, 1, new int[] {1, 2}, new int[] {1, 1}, new int[] {1, 1}, 1);
        NewOrderResult r = run(node, tx -> txns.newOrder(tx, in));
        assertEquals(List.of('G', 'G'), r.lines().stream().map(NewOrderResult.Line::brandGeneric).toList());
        // Item 1 from w2, whose S_DATA still has it: 'B', so the lines above were judged, not defaulted.
        NewOrderInput remote = new NewOrderInput(1, 1, 1, new int[] {1}, new int[] {2}, new int[] {1}, 2);
        assertEquals('B', run(node, tx -> txns.newOrder(tx, remote)).lines().get(0).brandGeneric());
    }

    @Test
    void newOrderAllHomeIsAllLocalAndRefillsAtTheBoundary() {
        // item3: S_QUANTITY 15 >= 5 + 10 -> 10 (boundary: no refill); item6: 11 < 2 + 10 -> 11 - 2 + 91 = 100
        NewOrderInput in = new NewOrderInput(1, 2, 3, new int[] {3, 6}, new int[] {1, 1}, new int[] {5, 2}, 1);
        NewOrderResult r = run(node, tx -> txns.newOrder(tx, in));
        assertEquals(2, r.orderId());
        assertEquals(1, read(node, Order.TABLE, Order.key(1, 2, 2)).getInt(Order.O_ALL_LOCAL));
        assertStock(1, 3, 10, 5, 1, 0);
        assertStock(1, 6, 100, 2, 1, 0);
        // Σ = 5 × 99.99 + 2 × 123.45 = 746.85; discount 0, tax 10% + 5% -> 858.8775 -> 858.88
        assertEquals(858_88, r.totalCents());
        assertEquals(3, read(node, District.TABLE, District.key(1, 2)).getInt(District.D_NEXT_O_ID));
    }

    @Test
    void newOrderWithAnUnusedItemRollsBackEverything() {
        NewOrderInput in = new NewOrderInput(1, 1, 1, new int[] {1, 2, InputGenerator.UNUSED_ITEM_ID},
            new int[] {1, 2, 1}, new int[] {5, 4, 1}, 9);
        Transaction tx = node.begin();
        NewOrderResult r = txns.newOrder(tx, in);
        assertFalse(tx.isActive(), "the body ends the transaction");
        assertEquals(AbortReason.USER_ABORT, tx.outcome().reason());

        assertTrue(r.rolledBack());
        assertEquals(4, r.orderId());
        assertEquals("BARBARBAR", r.customerLast());
        assertEquals(2, r.lines().size(), "valid items are processed before the rollback");

        assertEquals(4, read(node, District.TABLE, District.key(1, 1)).getInt(District.D_NEXT_O_ID));
        assertNull(read(node, Order.TABLE, Order.key(1, 1, 4)));
        assertNull(read(node, NewOrder.TABLE, NewOrder.key(1, 1, 4)));
        assertNull(read(node, OrderLine.TABLE, OrderLine.key(1, 1, 4, 1)));
        assertStock(1, 1, 50, 0, 0, 0);
        assertStock(2, 2, 30, 0, 0, 0);
        OrderStatusResult status = run(node, t -> txns.orderStatus(t, new OrderStatusInput(1, 1, false, 1, -1)));
        assertEquals(2, status.orderId(), "the rolled-back order is not in the by-customer index");

        // The next committed order gets the id the rolled-back one read.
        NewOrderResult next = run(node, t -> txns.newOrder(t,
            new NewOrderInput(1, 1, 1, new int[] {5}, new int[] {1}, new int[] {1}, 10)));
        assertEquals(4, next.orderId());
    }

    // ================================================================ Payment

    @Test
    void paymentByIdUpdatesYtdsCustomerAndHistory() {
        PaymentInput in = new PaymentInput(1, 1, 1, 1, false, 1, -1, 123_45, 55_555);
        PaymentResult r = run(node, tx -> txns.payment(tx, in));

        assertEquals(1, r.customerId());
        assertEquals(-10_00 - 123_45, r.newBalance());
        assertEquals(10_00 + 123_45, r.ytdPayment());
        assertEquals(2, r.paymentCount());
        assertNull(r.customerData(), "GC customers show no C_DATA");

        assertEquals(300_000_00 + 123_45, read(node, Warehouse.TABLE, Warehouse.key(1)).getMoney(Warehouse.W_YTD));
        assertEquals(30_000_00 + 123_45, read(node, District.TABLE, District.key(1, 1)).getMoney(District.D_YTD));
        assertEquals(30_000_00, read(node, District.TABLE, District.key(1, 2)).getMoney(District.D_YTD));
        TupleView c = read(node, Customer.TABLE, Customer.key(1, 1, 1));
        assertEquals(-10_00 - 123_45, c.getMoney(Customer.C_BALANCE));
        assertEquals(10_00 + 123_45, c.getMoney(Customer.C_YTD_PAYMENT));
        assertEquals(2, c.getInt(Customer.C_PAYMENT_CNT));
        assertEquals("alice data", c.getString(Customer.C_DATA));

        assertEquals(History.id(txns.historyOrigin(), 0), r.historyId());
        TupleView h = read(node, History.TABLE, r.historyId());
        assertNotNull(h);
        assertEquals(1, h.getInt(History.H_C_ID));
        assertEquals(1, h.getInt(History.H_C_D_ID));
        assertEquals(1, h.getInt(History.H_C_W_ID));
        assertEquals(1, h.getInt(History.H_D_ID));
        assertEquals(1, h.getInt(History.H_W_ID));
        assertEquals(55_555, h.getTimestamp(History.H_DATE));
        assertEquals(123_45, h.getMoney(History.H_AMOUNT));
        assertEquals("Wone    D1", h.getString(History.H_DATA));
    }

    @Test
    void paymentByLastNamePicksTheMiddleCustomerAndPrependsBcData() {
        // (1,1) PRICALLYOUGHT sorted by C_FIRST: Alan(3), Bob(4), Carol(2); n = 3 -> position 2 = Bob, a BC customer.
        // Paid at district 2 of warehouse 1.
        PaymentInput in = new PaymentInput(1, 2, 1, 1, true, 0, TinyTpcc.LAST_371, 50_00, 1);
        PaymentResult r = run(node, tx -> txns.payment(tx, in));

        assertEquals(4, r.customerId());
        assertEquals("Bob", r.first());
        assertEquals("BC", r.credit());
        String expected = ("4 1 1 2 1 50.00 | " + TinyTpcc.BOB_DATA).substring(0, 500);
        TupleView c = read(node, Customer.TABLE, Customer.key(1, 1, 4));
        assertEquals(expected, c.getString(Customer.C_DATA));
        assertEquals(500, c.getString(Customer.C_DATA).length());
        assertEquals(expected.substring(0, 200), r.customerData());
        assertEquals(-60_00, c.getMoney(Customer.C_BALANCE));
        assertEquals(30_000_00 + 50_00, read(node, District.TABLE, District.key(1, 2)).getMoney(District.D_YTD));
        assertEquals(30_000_00, read(node, District.TABLE, District.key(1, 1)).getMoney(District.D_YTD));

        TupleView h = read(node, History.TABLE, r.historyId());
        assertEquals(4, h.getInt(History.H_C_ID));
        assertEquals(1, h.getInt(History.H_C_D_ID));
        assertEquals(2, h.getInt(History.H_D_ID));
        assertEquals("Wone    D2", h.getString(History.H_DATA));
    }

    @Test
    void paymentByLastNameWithAnEvenCountTakesTheLowerMiddle() {
        // (1,2) PRICALLYOUGHT: Ann(2), Bea(4), Cid(3), Dan(1); n = 4 -> ceil(4/2) = 2 -> Bea.
        PaymentResult r = run(node, tx -> txns.payment(tx, new PaymentInput(1, 2, 1, 2, true, 0, TinyTpcc.LAST_371,
            1_00, 1)));
        assertEquals(4, r.customerId());
        assertEquals("Bea", r.first());
        assertEquals(-11_00, read(node, Customer.TABLE, Customer.key(1, 2, 4)).getMoney(Customer.C_BALANCE));
    }

    @Test
    void remotePaymentChargesTheCustomersWarehouseButCreditsThePayingOne() {
        PaymentResult r = run(node, tx -> txns.payment(tx, new PaymentInput(1, 3, 2, 1, false, 1, -1, 7_00, 2)));
        PaymentResult second = run(node, tx -> txns.payment(tx, new PaymentInput(1, 3, 2, 1, false, 1, -1, 3_00, 3)));
        assertEquals(-10_00 - 7_00 - 3_00, second.newBalance());
        assertEquals(300_000_00 + 10_00, read(node, Warehouse.TABLE, Warehouse.key(1)).getMoney(Warehouse.W_YTD));
        assertEquals(300_000_00, read(node, Warehouse.TABLE, Warehouse.key(2)).getMoney(Warehouse.W_YTD));
        assertEquals(30_000_00 + 10_00, read(node, District.TABLE, District.key(1, 3)).getMoney(District.D_YTD));
        assertEquals(30_000_00, read(node, District.TABLE, District.key(2, 1)).getMoney(District.D_YTD));
        TupleView h = read(node, History.TABLE, r.historyId());
        assertEquals(2, h.getInt(History.H_C_W_ID));
        assertEquals(1, h.getInt(History.H_W_ID));
        assertEquals(3, h.getInt(History.H_D_ID));
        assertEquals(History.id(txns.historyOrigin(), 1), second.historyId(), "per-instance sequence");
    }

    @Test
    void historyOriginsDifferPerInstance() {
        TpccTransactions other = new TpccTransactions(node);
        assertFalse(other.historyOrigin() == txns.historyOrigin());
        assertTrue(txns.historyOrigin() < io.selcc.tpcc.TpccSchema.History.LOADER_ORIGIN_BASE, "run-time H_ID origins stay below the loader's");
        PaymentInput in = new PaymentInput(1, 1, 1, 1, false, 1, -1, 1_00, 1);
        long a = run(node, tx -> txns.payment(tx, in)).historyId();
        long b = run(node, tx -> other.payment(tx, in)).historyId();
        assertFalse(a == b);
    }

    // ================================================================ Order-Status

    @Test
    void orderStatusShowsTheLastOrderAndItsLines() {
        OrderStatusResult r = run(node, tx -> txns.orderStatus(tx, new OrderStatusInput(1, 1, false, 1, -1)));
        assertEquals(1, r.customerId());
        assertEquals("Alice", r.first());
        assertEquals("OE", r.middle());
        assertEquals("BARBARBAR", r.last());
        assertEquals(-10_00, r.balance());
        assertEquals(2, r.orderId(), "order 2, not order 1");
        assertEquals(2_000, r.entryMicros());
        assertNull(r.carrierId());
        assertEquals(List.of(new OrderStatusResult.Line(1, 3, 1, 2, 20_00, null),
            new OrderStatusResult.Line(2, 4, 1, 1, 5_00, null)), r.lines());
    }

    @Test
    void orderStatusByLastNameAndAfterDelivery() {
        OrderStatusResult r = run(node, tx -> txns.orderStatus(tx, new OrderStatusInput(1, 1, true, 0, TinyTpcc.LAST_371)));
        assertEquals(4, r.customerId());
        assertEquals(3, r.orderId());
        assertEquals(2, r.lineCount());

        run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 7, 99)));
        OrderStatusResult after = run(node, tx -> txns.orderStatus(tx, new OrderStatusInput(1, 1, false, 1, -1)));
        assertEquals(Integer.valueOf(7), after.carrierId());
        assertEquals(Long.valueOf(99), after.lines().get(0).deliveryMicros());
        assertEquals(Long.valueOf(99), after.lines().get(1).deliveryMicros());
        assertEquals(-10_00 + 25_00, after.balance());
    }

    // ================================================================ Delivery

    @Test
    void deliveryDeliversTheOldestNewOrderOfEachDistrict() {
        DeliveryResult r = run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 7, 123_456)));
        assertEquals(List.of(new DeliveryResult.Delivered(1, 2, 1, 25_00), new DeliveryResult.Delivered(2, 1, 1, 6_00)),
            r.orders());
        assertEquals(2, r.delivered());
        assertEquals(8, r.skippedDistricts());

        assertNull(read(node, NewOrder.TABLE, NewOrder.key(1, 1, 2)));
        assertNotNull(read(node, NewOrder.TABLE, NewOrder.key(1, 1, 3)), "only the oldest is delivered");
        assertNull(read(node, NewOrder.TABLE, NewOrder.key(1, 2, 1)));
        assertEquals(7, read(node, Order.TABLE, Order.key(1, 1, 2)).getInt(Order.O_CARRIER_ID));
        assertTrue(read(node, Order.TABLE, Order.key(1, 1, 3)).isNull(Order.O_CARRIER_ID));
        assertEquals(3, read(node, Order.TABLE, Order.key(1, 1, 1)).getInt(Order.O_CARRIER_ID), "old order untouched");
        for (int n = 1; n <= 2; n++) {
            assertEquals(123_456, read(node, OrderLine.TABLE, OrderLine.key(1, 1, 2, n)).getTimestamp(OrderLine.OL_DELIVERY_D));
            assertTrue(read(node, OrderLine.TABLE, OrderLine.key(1, 1, 3, n)).isNull(OrderLine.OL_DELIVERY_D));
        }
        for (int n = 1; n <= 3; n++) {
            assertEquals(123_456, read(node, OrderLine.TABLE, OrderLine.key(1, 2, 1, n)).getTimestamp(OrderLine.OL_DELIVERY_D));
        }
        TupleView c11 = read(node, Customer.TABLE, Customer.key(1, 1, 1));
        assertEquals(-10_00 + 25_00, c11.getMoney(Customer.C_BALANCE));
        assertEquals(1, c11.getInt(Customer.C_DELIVERY_CNT));
        TupleView c21 = read(node, Customer.TABLE, Customer.key(1, 2, 1));
        assertEquals(-10_00 + 6_00, c21.getMoney(Customer.C_BALANCE));
        assertEquals(1, c21.getInt(Customer.C_DELIVERY_CNT));

        DeliveryResult second = run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 2, 200)));
        assertEquals(List.of(new DeliveryResult.Delivered(1, 3, 4, 10_00)), second.orders());
        assertEquals(9, second.skippedDistricts());
        assertEquals(-10_00 + 10_00, read(node, Customer.TABLE, Customer.key(1, 1, 4)).getMoney(Customer.C_BALANCE));

        DeliveryResult third = run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 2, 300)));
        assertEquals(0, third.delivered());
        assertEquals(10, third.skippedDistricts());
        DeliveryResult otherWarehouse = run(node, tx -> txns.delivery(tx, new DeliveryInput(2, 2, 300)));
        assertEquals(10, otherWarehouse.skippedDistricts());
    }

    @Test
    void deliveryAfterNewOrderDeliversItInTurn() {
        run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 1, 1)));
        run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 1, 2)));
        NewOrderResult placed = run(node, tx -> txns.newOrder(tx,
            new NewOrderInput(1, 1, 2, new int[] {4, 5}, new int[] {1, 1}, new int[] {2, 10}, 3)));
        DeliveryResult r = run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 9, 4)));
        assertEquals(List.of(new DeliveryResult.Delivered(1, placed.orderId(), 2, 2 * 5_00 + 10 * 1)), r.orders());
        TupleView c = read(node, Customer.TABLE, Customer.key(1, 1, 2));
        assertEquals(-10_00 + 10_10, c.getMoney(Customer.C_BALANCE));
    }

    /**
     * An attempt that rolls back after finding the oldest orders leaves them for the next Delivery.
     * Planted bug caught: a floor set past the order found (the retry skipped it).
     */
    @Test
    void deliveryRolledBackLeavesItsOrdersForTheNext() {
        try (Transaction tx = node.begin()) {
            DeliveryResult rolledBack = txns.delivery(tx, new DeliveryInput(1, 7, 1));
            assertEquals(2, rolledBack.delivered());
            tx.abort();
        }
        DeliveryResult r = run(node, tx -> txns.delivery(tx, new DeliveryInput(1, 7, 2)));
        assertEquals(List.of(new DeliveryResult.Delivered(1, 2, 1, 25_00), new DeliveryResult.Delivered(2, 1, 1, 6_00)),
            r.orders(), "the same oldest orders as if nothing had happened");
    }

    /**
     * Delivered orders leave empty leaves in the new-order index (B-link nodes never merge); Delivery
     * must not walk them: its 500th run latches no more nodes than its 10th (plus one leaf at a
     * boundary). Planted bug caught: scanning from order 0 (the 500th took 4 to 8 more latches).
     */
    @Test
    void deliveryCostDoesNotGrowWithDeliveredOrders() {
        int orders = 600;
        for (int o = 0; o < orders; o++) {
            run(node, tx -> txns.newOrder(tx, new NewOrderInput(1, 3, 1, new int[] {5}, new int[] {1}, new int[] {1}, 1)));
        }
        long first = 0; // the 10th: the first ones also deliver the other districts' loaded orders
        long last = 0;
        for (int i = 1; i <= 500; i++) {
            long latches = deliveryLatches(i);
            first = i == 10 ? latches : first;
            last = latches;
        }
        System.out.println("deliveryCostDoesNotGrowWithDeliveredOrders: latches 10th=" + first + " 500th=" + last);
        assertTrue(last <= first + 1, "10th=" + first + " 500th=" + last);
    }

    /**
     * Latches (cache hits and misses) of one committed Delivery of warehouse 1: leaves and rows. Inner
     * nodes are read optimistically and not counted here (their number follows the trees' height).
     */
    private long deliveryLatches(int carrier) {
        try (Transaction tx = node.begin()) {
            txns.delivery(tx, new DeliveryInput(1, 1 + carrier % 10, carrier));
            io.selcc.fabric.CounterSnapshot c = tx.counters();
            assertTrue(tx.commit().committed());
            return c.get(io.selcc.fabric.Counter.CACHE_HITS) + c.get(io.selcc.fabric.Counter.CACHE_MISSES);
        }
    }

    // ================================================================ Stock-Level

    @Test
    void stockLevelCountsDistinctLowItemsOfTheLastOrders() {
        // (1,1) orders 1..3 hold items {1, 2, 3, 4, 5} (item 2 twice); w1 stock 50 12 15 9 100.
        assertEquals(2, stockLevel(1, 1, 13));  // 12, 9
        assertEquals(3, stockLevel(1, 1, 16));  // 12, 15, 9
        assertEquals(1, stockLevel(1, 1, 10));  // 9
        assertEquals(0, stockLevel(1, 1, 9));   // strictly below
        assertEquals(0, stockLevel(1, 5, 20));  // no orders
    }

    @Test
    void stockLevelLooksAtTheLastTwentyOrdersOnly() {
        // District (1,3) is empty. Order 1 takes item 6 (w1: 11 -> 10); orders 2..21 take item 5 (100 -> 80).
        run(node, tx -> txns.newOrder(tx, new NewOrderInput(1, 3, 1, new int[] {6}, new int[] {1}, new int[] {1}, 1)));
        for (int o = 2; o <= 20; o++) {
            run(node, tx -> txns.newOrder(tx, new NewOrderInput(1, 3, 1, new int[] {5}, new int[] {1}, new int[] {1}, 1)));
        }
        assertEquals(1, stockLevel(1, 3, 11), "orders 1..20: item 6 at 10 counts");
        run(node, tx -> txns.newOrder(tx, new NewOrderInput(1, 3, 1, new int[] {5}, new int[] {1}, new int[] {1}, 1)));
        assertEquals(0, stockLevel(1, 3, 11), "orders 2..21: item 6 left the window");
        assertEquals(1, stockLevel(1, 3, 81), "item 5 at 80");
    }

    // ================================================================ concurrently

    /**
     * Four threads on two compute nodes run New-Order, Payment and Delivery against district (1,1)
     * with the engine's retries; afterwards every worker ran all its transactions without an exception,
     * and the counters agree with the committed results: D_NEXT_O_ID, W_YTD/D_YTD, NEW-ORDER rows,
     * each order delivered once, and for customer 1 C_BALANCE + C_YTD_PAYMENT = Σ delivered OL_AMOUNT
     * (condition 12). Shown to fail on a planted bug: a worker throwing after 5 transactions (the test
     * used to pass then, since the counters agree with whatever did commit).
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void concurrentMixKeepsTheCountersConsistent() throws Exception {
        int threads = 4;
        int perThread = 30;
        long seed = System.nanoTime();
        System.out.println("concurrentMixKeepsTheCountersConsistent: cc=" + cc() + " seed=" + seed);
        java.util.concurrent.ConcurrentLinkedQueue<Object> committed = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ConcurrentLinkedQueue<String> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.ConcurrentLinkedQueue<Throwable> errors = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicIntegerArray done = new java.util.concurrent.atomic.AtomicIntegerArray(threads);
        List<Thread> workers = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int worker = t;
            DatabaseNode on = db.node(t % 2);
            TpccTransactions mine = new TpccTransactions(on);
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed + t);
            workers.add(Thread.ofPlatform().name("tpcc-txn-test-" + t).start(() -> {
                try {
                    for (int n = 0; n < perThread; n++) {
                        int kind = random.nextInt(10);
                        io.selcc.engine.TxnResult<?> r;
                        if (kind < 5) {
                            int lines = 1 + random.nextInt(3);
                            int[] items = new int[lines];
                            int[] supply = new int[lines];
                            int[] quantities = new int[lines];
                            for (int i = 0; i < lines; i++) {
                                items[i] = 1 + random.nextInt(6);
                                supply[i] = 1 + random.nextInt(2);
                                quantities[i] = 1 + random.nextInt(10);
                            }
                            NewOrderInput in = new NewOrderInput(1, 1, 1 + random.nextInt(4), items, supply, quantities, n);
                            r = on.run(tx -> mine.newOrder(tx, in));
                        } else if (kind < 9) {
                            PaymentInput in = new PaymentInput(1, 1, 1, 1, false, 1, -1, 1 + random.nextInt(10_000), n);
                            r = on.run(tx -> mine.payment(tx, in));
                        } else {
                            DeliveryInput in = new DeliveryInput(1, 1 + random.nextInt(10), n);
                            r = on.run(tx -> mine.delivery(tx, in));
                        }
                        if (r.committed()) {
                            committed.add(r.value());
                        } else {
                            failed.incrementAndGet();
                            failures.add(r.outcome().reason() + " after " + r.attempts() + " attempts " + r.aborts());
                        }
                        done.incrementAndGet(worker);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (!errors.isEmpty()) {
            AssertionError e = new AssertionError(errors.size() + " worker(s) threw, seed=" + seed, errors.peek());
            errors.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
        for (int t = 0; t < threads; t++) {
            assertEquals(perThread, done.get(t), "transactions worker " + t + " ran, seed=" + seed);
        }
        assertEquals(0, failed.get(), "transactions that never committed " + failures + ", seed=" + seed);

        int newOrders = 0;
        long paid = 0;
        long paidByC1 = 0;
        long deliveredToC1 = 0;
        int deliveredInD1 = 0;
        java.util.Set<Integer> deliveredOrders = new java.util.HashSet<>();
        java.util.Set<Integer> orderIds = new java.util.HashSet<>();
        for (Object value : committed) {
            if (value instanceof NewOrderResult r) {
                assertFalse(r.rolledBack());
                assertTrue(orderIds.add(r.orderId()), "order id given twice: o=" + r.orderId() + " seed=" + seed);
                newOrders++;
            } else if (value instanceof PaymentResult r) {
                paid += r.amountCents();
                paidByC1 += r.amountCents();
            } else if (value instanceof DeliveryResult r) {
                for (DeliveryResult.Delivered o : r.orders()) {
                    if (o.d() == 1) {
                        assertTrue(deliveredOrders.add(o.orderId()), "delivered twice: o=" + o.orderId() + " seed=" + seed);
                        deliveredInD1++;
                        if (o.customerId() == 1) {
                            deliveredToC1 += o.amountCents();
                        }
                    }
                }
            }
        }
        assertEquals(4 + newOrders, read(node, District.TABLE, District.key(1, 1)).getInt(District.D_NEXT_O_ID),
            "seed=" + seed);
        assertEquals(300_000_00 + paid, read(node, Warehouse.TABLE, Warehouse.key(1)).getMoney(Warehouse.W_YTD));
        assertEquals(30_000_00 + paid, read(node, District.TABLE, District.key(1, 1)).getMoney(District.D_YTD));
        TupleView c1 = read(node, Customer.TABLE, Customer.key(1, 1, 1));
        assertEquals(10_00 + paidByC1, c1.getMoney(Customer.C_YTD_PAYMENT));
        assertEquals(deliveredToC1, c1.getMoney(Customer.C_BALANCE) + c1.getMoney(Customer.C_YTD_PAYMENT),
            "condition 12, seed=" + seed);
        int remaining = run(node, tx -> tx.scan(node.table(NewOrder.TABLE).primaryIndex(), NewOrder.key(1, 1, 0),
            NewOrder.key(1, 1, 1000), 1000, row -> true));
        assertEquals(2 + newOrders - deliveredInD1, remaining, "seed=" + seed);
    }

    private int stockLevel(int w, int d, int threshold) {
        StockLevelResult r = run(node, tx -> txns.stockLevel(tx, new StockLevelInput(w, d, threshold)));
        assertEquals(threshold, r.threshold());
        return r.lowStock();
    }

    private void assertStock(int w, int i, int quantity, int ytd, int orderCnt, int remoteCnt) {
        TupleView s = read(node, Stock.TABLE, Stock.key(w, i));
        String where = "stock w=" + w + " i=" + i;
        assertEquals(quantity, s.getInt(Stock.S_QUANTITY), where + " S_QUANTITY");
        assertEquals(ytd, s.getInt(Stock.S_YTD), where + " S_YTD");
        assertEquals(orderCnt, s.getInt(Stock.S_ORDER_CNT), where + " S_ORDER_CNT");
        assertEquals(remoteCnt, s.getInt(Stock.S_REMOTE_CNT), where + " S_REMOTE_CNT");
    }
}
