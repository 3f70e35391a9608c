package io.selcc.tpcc.txn;

import io.selcc.tpcc.TpccScale;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.BatchWriter;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Index;
import io.selcc.engine.RowReader;
import io.selcc.engine.Table;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.storage.TupleView;
import io.selcc.threads.PerThread;
import io.selcc.tpcc.LastNames;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.History;
import io.selcc.tpcc.TpccSchema.Item;
import io.selcc.tpcc.TpccSchema.NewOrder;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.TpccSchema.Stock;
import io.selcc.tpcc.TpccSchema.Warehouse;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The five TPC-C transaction profiles ([SPEC] 2.4.2, 2.5.2, 2.6.2, 2.7.4, 2.8.2) as bodies that run
 * inside a transaction the caller owns: the caller begins it, commits it after the body returns,
 * and retries it when the body throws {@link io.selcc.engine.cc.AbortException} (a conflict; the
 * transaction is already rolled back then). Only New-Order's invalid-item case ends the transaction
 * itself, with {@link Transaction#abort()}. Thread-safe: any number of threads of the node may share
 * one instance, each with its own transaction.
 *
 * <p>Optimistic algorithms read without locks, so a body may act on a stale read before commit-time
 * validation would catch it: a duplicate order id on insert, or Delivery's oldest NEW-ORDER row
 * already deleted. The body then rolls back and throws {@link AbortException} with
 * {@link AbortReason#STALE_READ}, a retryable conflict like any other.
 *
 * <p>Missing rows that the spec guarantees exist (warehouse, district, customer, stock of an existing
 * item, order lines 1..O_OL_CNT) are bugs in the data: they throw {@link IllegalStateException}, which
 * the engine's {@code run} treats as fatal (rolled back, not retried).
 *
 * <p>Each instance is its own HISTORY origin: H_ID = {@link History#id}(origin, sequence) with
 * origin = {@code nodeId << 12 | instance}, always below {@link History#LOADER_ORIGIN_BASE} (the loader's
 * origins start there), and a per-instance sequence; at most 4,096 instances per compute node and 1,024
 * compute nodes.
 *
 * <p>Over 600 lines on purpose: the five profiles of clause 2, each a page of the spec, side by side so
 * that one can be checked against the spec's text.
 */
public final class TpccTransactions {
    /** Stock-Level looks at the orders D_NEXT_O_ID − 20 .. D_NEXT_O_ID − 1 ([SPEC] 2.8.2.2). */
    public static final int STOCK_LEVEL_ORDERS = 20;
    /** C_DATA width ([SPEC] 1.3.1). */
    static final int C_DATA_LENGTH = 500;
    /** How much of C_DATA the Payment terminal shows for a "BC" customer ([SPEC] 2.5.3.3). */
    static final int C_DATA_SHOWN = 200;
    /** Scan limit meaning "all" (no district holds this many rows of one key range). */
    private static final int ALL = 1 << 20;
    private static final long RATE_SCALE = 10_000;
    static final int HISTORY_ORIGIN_BASE = 0;
    /**
     * Instances per compute node (of any database in this JVM, weakly held): an origin needs to be unique
     * only within one database, and runs in one JVM ({@code tpcc compare}) each open a new one.
     */
    private static final java.util.Map<Object, AtomicInteger> INSTANCES =
        java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private final Table warehouses;
    private final Table districts;
    private final Table customers;
    private final Table history;
    private final Table newOrders;
    private final Table orders;
    private final Table orderLines;
    private final Table items;
    private final Table stock;
    private final Index customersByLastName;
    private final Index ordersByCustomer;
    private final long historyOrigin;
    private final AtomicLong historySequence;
    /**
     * Per (warehouse, district): an order id no undelivered order of the district is below, the
     * oldest this instance's Deliveries found. Delivery scans from there instead of from 0.
     */
    private final ConcurrentHashMap<Integer, Integer> deliveryFloors = new ConcurrentHashMap<>();
    /** A thread's New-Order line scratch (its arrays are about a kilobyte): one per thread, not per order. */
    private final PerThread<OrderLineWork> lineWorks = PerThread.withInitial(OrderLineWork::new);

    /** The profiles over fully-shared mode's tables. */
    public TpccTransactions(DatabaseNode node) {
        this(node, TpccSchema.SHARED);
    }

    /**
     * The profiles over {@code partition}'s set of tables ({@link TpccSchema#SHARED}: fully-shared mode's);
     * rows of a warehouse outside it are reached through the {@link WarehouseRouter} each call gets.
     */
    public TpccTransactions(DatabaseNode node, int partition) {
        this.warehouses = node.table(TpccSchema.name(Warehouse.TABLE, partition));
        this.districts = node.table(TpccSchema.name(District.TABLE, partition));
        this.customers = node.table(TpccSchema.name(Customer.TABLE, partition));
        this.history = node.table(TpccSchema.name(History.TABLE, partition));
        this.newOrders = node.table(TpccSchema.name(NewOrder.TABLE, partition));
        this.orders = node.table(TpccSchema.name(Order.TABLE, partition));
        this.orderLines = node.table(TpccSchema.name(OrderLine.TABLE, partition));
        this.items = node.table(TpccSchema.name(Item.TABLE, partition));
        this.stock = node.table(TpccSchema.name(Stock.TABLE, partition));
        this.customersByLastName = node.index(TpccSchema.name(Customer.BY_LAST_NAME, partition));
        this.ordersByCustomer = node.index(TpccSchema.name(Order.BY_CUSTOMER, partition));
        int nodeId = node.computeNode().nodeId();
        int instance = INSTANCES.computeIfAbsent(node.computeNode(), n -> new AtomicInteger()).getAndIncrement();
        if (nodeId < 0 || nodeId > 0x3FF || instance > 0xFFF) {
            throw new IllegalStateException("no HISTORY origin left: nodeId=" + nodeId + " (0..1023) instance="
                + instance + " (0..4095)");
        }
        this.historyOrigin = HISTORY_ORIGIN_BASE | (long) nodeId << 12 | instance;
        this.historySequence = new AtomicLong(nextHistorySequence(node));
    }

    /**
     * The first sequence number of this origin that HISTORY does not hold yet: 0 in a fresh database; in
     * one recovered from a data directory, past the rows an earlier run's instance of the same origin
     * inserted (origins repeat from run to run).
     */
    private long nextHistorySequence(DatabaseNode node) {
        long low = History.id(historyOrigin, 0);
        long high = History.id(historyOrigin + 1, 0) - 1;
        long[] last = {-1};
        TxnResult<Object> found = node.run(tx -> {
            tx.scanBackward(history.primaryIndex(), low, high, 1, row -> {
                last[0] = row.getLong(History.H_ID);
                return false;
            });
            return null;
        });
        if (!found.committed()) {
            throw new IllegalStateException("cannot read HISTORY's last id of origin " + historyOrigin + ": " + found);
        }
        return last[0] < 0 ? 0 : last[0] - low + 1;
    }

    /** The HISTORY origin of this instance (the high part of every H_ID it inserts). */
    public long historyOrigin() {
        return historyOrigin;
    }

    // ================================================================ New-Order ([SPEC] 2.4.2)

    /**
     * New-Order. Reads W_TAX, D_TAX and D_NEXT_O_ID (and increments it), the customer's discount,
     * last name and credit; inserts ORDER, NEW-ORDER and one ORDER-LINE per item, updating each STOCK
     * row. If an item does not exist, every valid item is still processed, then the transaction is
     * rolled back ({@link Transaction#abort()}) and the result says {@code rolledBack}: nothing it
     * wrote stays, D_NEXT_O_ID included ([SPEC] 2.4.2.3).
     */
    public NewOrderResult newOrder(Transaction tx, NewOrderInput in) {
        return newOrder(tx, null, in);
    }

    /**
     * {@link #newOrder(Transaction, NewOrderInput)} with the stock of a supply warehouse that is not
     * local reached through {@code router} (null: every warehouse is local).
     */
    public NewOrderResult newOrder(Transaction tx, WarehouseRouter router, NewOrderInput in) {
        int w = in.w();
        int d = in.d();
        OrderLineWork lineWork = lineWorks.get();
        prefetchItemsAndStock(tx, router, in, lineWork);
        int[] warehouseTax = new int[1];
        requireFound(tx.read(warehouses, Warehouse.key(w), row -> warehouseTax[0] = row.getInt(Warehouse.W_TAX)),
            "warehouse", w, 0, 0);
        int wTax = warehouseTax[0];

        int[] district = new int[2]; // D_TAX, D_NEXT_O_ID as read
        boolean found = tx.update(districts, District.key(w, d), row -> {
            district[0] = row.getInt(District.D_TAX);
            district[1] = row.getInt(District.D_NEXT_O_ID);
            row.setInt(District.D_NEXT_O_ID, district[1] + 1);
        });
        requireFound(found, "district", w, d, 0);
        int dTax = district[0];
        int orderId = district[1];

        int[] customerDiscount = new int[1];
        String[] customerStrings = new String[2]; // C_LAST, C_CREDIT
        requireFound(tx.read(customers, Customer.key(w, d, in.c()), row -> {
            customerDiscount[0] = row.getInt(Customer.C_DISCOUNT);
            customerStrings[0] = row.getString(Customer.C_LAST);
            customerStrings[1] = row.getString(Customer.C_CREDIT);
        }), "customer", w, d, in.c());
        int discount = customerDiscount[0];
        String last = customerStrings[0];
        String credit = customerStrings[1];

        int olCnt = in.lineCount();
        boolean allLocal = in.allLocal();
        insertOrConflict(tx, orders, row -> {
            row.setInt(Order.O_ID, orderId);
            row.setInt(Order.O_D_ID, d);
            row.setInt(Order.O_W_ID, w);
            row.setInt(Order.O_C_ID, in.c());
            row.setTimestamp(Order.O_ENTRY_D, in.entryMicros());
            row.setInt(Order.O_OL_CNT, olCnt);
            row.setInt(Order.O_ALL_LOCAL, allLocal ? 1 : 0);
        }, w, d, orderId);
        insertOrConflict(tx, newOrders, row -> {
            row.setInt(NewOrder.NO_O_ID, orderId);
            row.setInt(NewOrder.NO_D_ID, d);
            row.setInt(NewOrder.NO_W_ID, w);
        }, w, d, orderId);

        List<NewOrderResult.Line> lines = new ArrayList<>(olCnt);
        ItemFields item = new ItemFields();
        lineWork.lineCount = 0; // an earlier order's, or this one's aborted attempt
        boolean invalidItem = false;
        long sumAmounts = 0;
        for (int i = 0; i < olCnt; i++) {
            int itemId = in.itemIds()[i];
            int supplyW = in.supplyWarehouses()[i];
            int quantity = in.quantities()[i];
            int number = i + 1;
            if (itemId < 1 || itemId > TpccScale.ITEM_ID_DOMAIN || !tx.read(items, Item.key(itemId), item)) {
                // [SPEC] 2.4.2.3: skip stock, brand check, line insert and amount; roll back after all items.
                invalidItem = true;
                continue;
            }
            long price = item.price;
            String itemName = item.name;
            boolean itemOriginal = item.original;
            boolean remote = supplyW != w;

            OrderLineWork work = lineWork;
            work.prepare(orderId, d, w, number, itemId, supplyW, quantity, remote, itemOriginal);
            found = router == null || router.isLocal(supplyW)
                ? tx.update(stock, Stock.key(supplyW, itemId), work.stockUpdate)
                : router.update(Stock.TABLE, supplyW, Stock.key(supplyW, itemId), work.stockUpdate);
            requireFound(found, "stock", supplyW, itemId, 0);
            long amount = quantity * price;
            char brandGeneric = work.bothOriginal ? 'B' : 'G';
            work.addLine(amount); // inserted with the others after the loop
            sumAmounts += amount;
            lines.add(new NewOrderResult.Line(supplyW, itemId, itemName, quantity, work.stockQuantity, brandGeneric,
                price, amount));
        }
        // The lines in one call: their keys are ascending and share a leaf, probed once instead of per line.
        if (tx.insertAll(orderLines, lineWork.keys, lineWork.lineCount, lineWork.lineWriter) != lineWork.lineCount) {
            throw staleDuplicate(tx, orderLines, w, d, orderId);
        }
        long total = totalCents(sumAmounts, discount, wTax, dTax);
        if (invalidItem) {
            tx.abort();
        }
        return new NewOrderResult(invalidItem, w, d, in.c(), last, credit, discount, wTax, dTax, orderId,
            in.entryMicros(), olCnt, total, List.copyOf(lines));
    }

    /**
     * The order's item and local stock rows, all known at the start ([SPEC] 2.4.2.2's inputs), brought into
     * the CPU's cache at once ({@link Transaction#prefetch}) before the lines read them one by one.
     */
    private void prefetchItemsAndStock(Transaction tx, WarehouseRouter router, NewOrderInput in, OrderLineWork work) {
        int olCnt = in.lineCount();
        // The line work's key arrays are free until the lines are added.
        long[] itemKeys = work.prefetchKeys;
        long[] stockKeys = work.keys;
        int itemCount = 0;
        int stockCount = 0;
        for (int i = 0; i < olCnt; i++) {
            int itemId = in.itemIds()[i];
            if (itemId < 1 || itemId > TpccScale.ITEM_ID_DOMAIN) {
                continue;
            }
            itemKeys[itemCount++] = Item.key(itemId);
            int supplyW = in.supplyWarehouses()[i];
            if (router == null || router.isLocal(supplyW)) {
                stockKeys[stockCount++] = Stock.key(supplyW, itemId);
            }
        }
        tx.prefetch(items, itemKeys, itemCount);
        tx.prefetch(stock, stockKeys, stockCount);
    }

    /** S_QUANTITY after ordering {@code quantity} ([SPEC] 2.4.2.2): minus, refilled by 91 below 10 + quantity. */
    static int stockQuantityAfter(int sQuantity, int quantity) {
        return sQuantity >= quantity + 10 ? sQuantity - quantity : sQuantity - quantity + 91;
    }

    /**
     * total_amount = Σ OL_AMOUNT × (1 − C_DISCOUNT) × (1 + W_TAX + D_TAX) in exact integer arithmetic
     * (rates in 1/10,000), rounded once, half up, to a cent. This is a display value: nothing stores it.
     */
    static long totalCents(long sumAmounts, int discount, int wTax, int dTax) {
        long scaled = Math.multiplyExact(Math.multiplyExact(sumAmounts, RATE_SCALE - discount),
            RATE_SCALE + wTax + dTax);
        long divisor = RATE_SCALE * RATE_SCALE;
        return Math.floorDiv(scaled + divisor / 2, divisor);
    }

    /**
     * A New-Order's line work: each line's stock update, then the lines kept for one {@code insertAll}
     * after the item loop. One per thread, reused across its orders (reset at each order's start): the
     * writers are bound once and S_DIST_xx goes from the stock row to the line as bytes, where a
     * lambda pair, three holder arrays, a String and its encoding per line were a sixth of what a
     * New-Order allocated.
     */
    private static final class OrderLineWork {
        final Consumer<TupleView> stockUpdate = this::updateStock;
        final BatchWriter lineWriter = this::writeLine;
        private final byte[] distInfo = new byte[Stock.DIST_INFO_LENGTH];
        private int distInfoLength;
        private int orderId;
        private int d;
        private int w;
        private int number;
        private int itemId;
        private int supplyW;
        private int quantity;
        private boolean remote;
        /** Whether I_DATA contains "ORIGINAL": only then is S_DATA searched ([SPEC] 2.4.2.2 needs both). */
        private boolean itemOriginal;
        /** Outputs of the stock update. */
        int stockQuantity;
        /** I_DATA and S_DATA both contain "ORIGINAL" (brand-generic 'B'). */
        boolean bothOriginal;
        // The lines to insert ({@link #addLine}), written by lineWriter after the loop: key and fields per line.
        final long[] keys = new long[NewOrderInput.MAX_LINES];
        /** The item keys {@link #prefetchItemsAndStock} hands to the prefetch (the stock keys go in {@link #keys}). */
        final long[] prefetchKeys = new long[NewOrderInput.MAX_LINES];
        private final int[] numbers = new int[NewOrderInput.MAX_LINES];
        private final int[] itemIds = new int[NewOrderInput.MAX_LINES];
        private final int[] supplyWarehouses = new int[NewOrderInput.MAX_LINES];
        private final int[] quantities = new int[NewOrderInput.MAX_LINES];
        private final long[] amounts = new long[NewOrderInput.MAX_LINES];
        private final byte[] distInfos = new byte[NewOrderInput.MAX_LINES * Stock.DIST_INFO_LENGTH];
        private final int[] distInfoLengths = new int[NewOrderInput.MAX_LINES];
        int lineCount;

        void prepare(int orderId, int d, int w, int number, int itemId, int supplyW, int quantity, boolean remote,
                     boolean itemOriginal) {
            this.orderId = orderId;
            this.d = d;
            this.w = w;
            this.number = number;
            this.itemId = itemId;
            this.supplyW = supplyW;
            this.quantity = quantity;
            this.remote = remote;
            this.itemOriginal = itemOriginal;
        }

        private void updateStock(TupleView row) {
            int q = row.getInt(Stock.S_QUANTITY);
            distInfoLength = row.getStringBytes(Stock.distColumn(d), distInfo);
            // Nine items in ten lack "ORIGINAL": the 26-50 byte search of S_DATA would not change their 'G'.
            bothOriginal = itemOriginal && row.stringContains(Stock.S_DATA, "ORIGINAL");
            int newQ = stockQuantityAfter(q, quantity);
            row.setInt(Stock.S_QUANTITY, newQ);
            row.setInt(Stock.S_YTD, row.getInt(Stock.S_YTD) + quantity);
            row.setInt(Stock.S_ORDER_CNT, row.getInt(Stock.S_ORDER_CNT) + 1);
            if (remote) {
                row.setInt(Stock.S_REMOTE_CNT, row.getInt(Stock.S_REMOTE_CNT) + 1);
            }
            stockQuantity = newQ;
        }

        /** Keeps the prepared line, whose stock was just updated, for the insert after the loop. */
        void addLine(long amount) {
            int n = lineCount++;
            keys[n] = OrderLine.key(w, d, orderId, number);
            numbers[n] = number;
            itemIds[n] = itemId;
            supplyWarehouses[n] = supplyW;
            quantities[n] = quantity;
            amounts[n] = amount;
            System.arraycopy(distInfo, 0, distInfos, n * Stock.DIST_INFO_LENGTH, distInfoLength);
            distInfoLengths[n] = distInfoLength;
        }

        private void writeLine(int n, TupleView row) {
            row.setInt(OrderLine.OL_O_ID, orderId);
            row.setInt(OrderLine.OL_D_ID, d);
            row.setInt(OrderLine.OL_W_ID, w);
            row.setInt(OrderLine.OL_NUMBER, numbers[n]);
            row.setInt(OrderLine.OL_I_ID, itemIds[n]);
            row.setInt(OrderLine.OL_SUPPLY_W_ID, supplyWarehouses[n]);
            row.setInt(OrderLine.OL_QUANTITY, quantities[n]);
            row.setMoney(OrderLine.OL_AMOUNT, amounts[n]);
            row.setString(OrderLine.OL_DIST_INFO, distInfos, n * Stock.DIST_INFO_LENGTH, distInfoLengths[n]);
        }
    }

    /** What New-Order reads of an ITEM row, filled by {@link Transaction#read} (no row copy per item). */
    private static final class ItemFields implements RowReader {
        long price;
        String name;
        boolean original;

        @Override
        public void read(TupleView row) {
            price = row.getMoney(Item.I_PRICE);
            name = row.getString(Item.I_NAME);
            original = row.stringContains(Item.I_DATA, "ORIGINAL");
        }
    }

    // ================================================================ Payment ([SPEC] 2.5.2)

    /**
     * Payment: W_YTD and D_YTD += amount; the customer (by id or the middle one by last name)
     * C_BALANCE −= amount, C_YTD_PAYMENT += amount, C_PAYMENT_CNT += 1, and for a "BC" customer
     * {@link #paymentData} prepended to C_DATA, truncated to 500; a HISTORY row inserted with
     * H_DATA = W_NAME + 4 spaces + D_NAME.
     */
    public PaymentResult payment(Transaction tx, PaymentInput in) {
        return payment(tx, null, in);
    }

    /**
     * {@link #payment(Transaction, PaymentInput)} with a customer of a warehouse that is not local
     * reached through {@code router} (null: every warehouse is local).
     */
    public PaymentResult payment(Transaction tx, WarehouseRouter router, PaymentInput in) {
        int w = in.w();
        int d = in.d();
        long amount = in.amountCents();
        String[] names = new String[2]; // W_NAME, D_NAME
        boolean found = tx.update(warehouses, Warehouse.key(w), row -> {
            names[0] = row.getString(Warehouse.W_NAME);
            row.setMoney(Warehouse.W_YTD, row.getMoney(Warehouse.W_YTD) + amount);
        });
        requireFound(found, "warehouse", w, 0, 0);
        found = tx.update(districts, District.key(w, d), row -> {
            names[1] = row.getString(District.D_NAME);
            row.setMoney(District.D_YTD, row.getMoney(District.D_YTD) + amount);
        });
        requireFound(found, "district", w, d, 0);

        int cW = in.customerW();
        int cD = in.customerD();
        // By id the update below finds the row (or reports it missing): no separate read of it first.
        boolean localCustomer = router == null || router.isLocal(cW);
        int c = in.byLastName() ? customerIdByLastName(tx, localCustomer ? null : router, cW, cD, in.lastNameNumber())
            : in.customerId();
        Consumer<TupleView> pay = row -> {
            row.setMoney(Customer.C_BALANCE, row.getMoney(Customer.C_BALANCE) - amount);
            row.setMoney(Customer.C_YTD_PAYMENT, row.getMoney(Customer.C_YTD_PAYMENT) + amount);
            row.setInt(Customer.C_PAYMENT_CNT, row.getInt(Customer.C_PAYMENT_CNT) + 1);
            if ("BC".equals(row.getString(Customer.C_CREDIT))) {
                String data = paymentData(c, cD, cW, d, w, amount) + row.getString(Customer.C_DATA);
                row.setString(Customer.C_DATA, data.length() > C_DATA_LENGTH ? data.substring(0, C_DATA_LENGTH) : data);
            }
        };
        found = localCustomer ? tx.update(customers, Customer.key(cW, cD, c), pay)
            : router.update(Customer.TABLE, cW, Customer.key(cW, cD, c), pay);
        requireFound(found, "customer", cW, cD, c);

        long historyId = History.id(historyOrigin, historySequence.getAndIncrement());
        String hData = names[0] + "    " + names[1];
        insertOrThrow(tx, history, row -> {
            row.setLong(History.H_ID, historyId);
            row.setInt(History.H_C_ID, c);
            row.setInt(History.H_C_D_ID, cD);
            row.setInt(History.H_C_W_ID, cW);
            row.setInt(History.H_D_ID, d);
            row.setInt(History.H_W_ID, w);
            row.setTimestamp(History.H_DATE, in.dateMicros());
            row.setMoney(History.H_AMOUNT, amount);
            row.setString(History.H_DATA, hData);
        }, historyId, w, d);

        PaymentResult[] result = new PaymentResult[1];
        RowReader show = customer -> {
            String credit = customer.getString(Customer.C_CREDIT);
            String shown = null;
            if ("BC".equals(credit)) {
                String data = customer.getString(Customer.C_DATA);
                shown = data.length() > C_DATA_SHOWN ? data.substring(0, C_DATA_SHOWN) : data;
            }
            result[0] = new PaymentResult(c, cW, cD, customer.getString(Customer.C_FIRST),
                customer.getString(Customer.C_MIDDLE), customer.getString(Customer.C_LAST), credit,
                customer.getMoney(Customer.C_CREDIT_LIM), customer.getInt(Customer.C_DISCOUNT),
                customer.getMoney(Customer.C_BALANCE), customer.getMoney(Customer.C_YTD_PAYMENT),
                customer.getInt(Customer.C_PAYMENT_CNT), shown, amount, historyId);
        };
        found = localCustomer ? tx.read(customers, Customer.key(cW, cD, c), show)
            : router.read(Customer.TABLE, cW, Customer.key(cW, cD, c), show);
        requireFound(found, "customer", cW, cD, c);
        return result[0];
    }

    /**
     * The entry Payment prepends to a "BC" customer's C_DATA ([SPEC] 2.5.2.2: C_ID, C_D_ID, C_WID,
     * D_ID, W_ID and H_AMOUNT): the six values separated by spaces, the amount with two decimals,
     * then " | " before the old content, e.g. {@code "7 3 2 1 1 123.45 | "}.
     */
    static String paymentData(int c, int cD, int cW, int d, int w, long amountCents) {
        return c + " " + cD + " " + cW + " " + d + " " + w + " " + amountCents / 100 + "."
            + String.format("%02d", amountCents % 100) + " | ";
    }

    // ================================================================ Order-Status ([SPEC] 2.6.2)

    /** Order-Status: the customer, its order with the largest O_ID and that order's lines. Read-only. */
    public OrderStatusResult orderStatus(Transaction tx, OrderStatusInput in) {
        int w = in.w();
        int d = in.d();
        TupleView customer = findCustomer(tx, w, d, in.byLastName(), in.customerId(), in.lastNameNumber());
        int c = customer.getInt(Customer.C_ID);
        TupleView[] lastOrder = new TupleView[1];
        tx.scanBackward(ordersByCustomer, Order.customerKey(w, d, c, 0),
            Order.customerKey(w, d, c, TpccSchema.MAX_ORDER_ID), 1, row -> {
                lastOrder[0] = row;
                return false;
            });
        int orderId = 0;
        long entry = 0;
        Integer carrier = null;
        List<OrderStatusResult.Line> lines = new ArrayList<>();
        if (lastOrder[0] != null) {
            TupleView order = lastOrder[0];
            orderId = order.getInt(Order.O_ID);
            entry = order.getTimestamp(Order.O_ENTRY_D);
            carrier = order.isNull(Order.O_CARRIER_ID) ? null : order.getInt(Order.O_CARRIER_ID);
            tx.scan(orderLines.primaryIndex(), OrderLine.key(w, d, orderId, 0),
                OrderLine.key(w, d, orderId, TpccSchema.MAX_ORDER_LINE_NUMBER), ALL, row -> {
                    lines.add(new OrderStatusResult.Line(row.getInt(OrderLine.OL_NUMBER), row.getInt(OrderLine.OL_I_ID),
                        row.getInt(OrderLine.OL_SUPPLY_W_ID), row.getInt(OrderLine.OL_QUANTITY),
                        row.getMoney(OrderLine.OL_AMOUNT),
                        row.isNull(OrderLine.OL_DELIVERY_D) ? null : row.getTimestamp(OrderLine.OL_DELIVERY_D)));
                    return true;
                });
        }
        return new OrderStatusResult(c, customer.getString(Customer.C_FIRST), customer.getString(Customer.C_MIDDLE),
            customer.getString(Customer.C_LAST), customer.getMoney(Customer.C_BALANCE), orderId, entry, carrier,
            List.copyOf(lines));
    }

    // ================================================================ Delivery ([SPEC] 2.7.4)

    /**
     * Delivery of all ten districts in this one transaction. Per district: the NEW-ORDER row with the
     * lowest NO_O_ID is deleted (none: the district is skipped and counted), its ORDER gets
     * O_CARRIER_ID, its lines OL_DELIVERY_D, and its customer C_BALANCE += Σ OL_AMOUNT and
     * C_DELIVERY_CNT += 1.
     */
    public DeliveryResult delivery(Transaction tx, DeliveryInput in) {
        int w = in.w();
        List<DeliveryResult.Delivered> delivered = new ArrayList<>(TpccScale.DISTRICTS);
        int skipped = 0;
        for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
            int[] oldest = new int[1];
            // The lowest NO_O_ID, looked for from the oldest order a Delivery here found before: the
            // new-order index keeps the leaves its deletes emptied (B-link nodes never merge), and a
            // scan from 0 walked all of them, more with every minute of a run. Same row as from 0:
            // the district's lowest undelivered id never decreases (deletes take the lowest, new
            // orders get higher ids) and a floor is only set from what a scan saw committed. Set to
            // the order found, not past it: this attempt may still roll back its delete.
            int floorKey = w * (TpccScale.DISTRICTS + 1) + d;
            int floor = deliveryFloors.getOrDefault(floorKey, 0);
            int n = tx.scan(newOrders.primaryIndex(), NewOrder.key(w, d, floor),
                NewOrder.key(w, d, TpccSchema.MAX_ORDER_ID), 1, row -> {
                    oldest[0] = row.getInt(NewOrder.NO_O_ID);
                    return false;
                });
            if (n == 0) {
                skipped++;
                continue;
            }
            int orderId = oldest[0];
            deliveryFloors.merge(floorKey, orderId, Math::max);
            if (!tx.delete(newOrders, NewOrder.key(w, d, orderId))) {
                throw conflict(tx, "new_order row gone since the scan: w=" + w + " d=" + d + " o=" + orderId);
            }
            int[] order = new int[2]; // O_C_ID, O_OL_CNT
            boolean found = tx.update(orders, Order.key(w, d, orderId), row -> {
                order[0] = row.getInt(Order.O_C_ID);
                order[1] = row.getInt(Order.O_OL_CNT);
                row.setInt(Order.O_CARRIER_ID, in.carrierId());
            });
            requireFound(found, "order", w, d, orderId);
            // One range read sums the amounts and leaves each line's record id as a hint, so the updates
            // below reach the lines without an index descent each (Delivery's accesses were mostly these).
            long[] sum = new long[1];
            int[] lines = new int[1];
            tx.readRange(orderLines.primaryIndex(), OrderLine.key(w, d, orderId, 1),
                OrderLine.key(w, d, orderId, TpccSchema.MAX_ORDER_LINE_NUMBER), ALL, row -> {
                    sum[0] += row.getMoney(OrderLine.OL_AMOUNT);
                    lines[0]++;
                    return true;
                });
            if (lines[0] != order[1]) {
                throw new IllegalStateException("order lines missing: w=" + w + " d=" + d + " o=" + orderId
                    + " found=" + lines[0] + " o_ol_cnt=" + order[1]);
            }
            long deliveryDate = in.dateMicros();
            Consumer<TupleView> stampDelivery = row -> row.setTimestamp(OrderLine.OL_DELIVERY_D, deliveryDate);
            for (int number = 1; number <= order[1]; number++) {
                found = tx.update(orderLines, OrderLine.key(w, d, orderId, number), stampDelivery);
                if (!found) {
                    throw new IllegalStateException("order line missing: w=" + w + " d=" + d + " o=" + orderId
                        + " ol_number=" + number + " o_ol_cnt=" + order[1]);
                }
            }
            int c = order[0];
            found = tx.update(customers, Customer.key(w, d, c), row -> {
                row.setMoney(Customer.C_BALANCE, row.getMoney(Customer.C_BALANCE) + sum[0]);
                row.setInt(Customer.C_DELIVERY_CNT, row.getInt(Customer.C_DELIVERY_CNT) + 1);
            });
            requireFound(found, "customer", w, d, c);
            delivered.add(new DeliveryResult.Delivered(d, orderId, c, sum[0]));
        }
        return new DeliveryResult(w, in.carrierId(), List.copyOf(delivered), skipped);
    }

    // ================================================================ Stock-Level ([SPEC] 2.8.2)

    /**
     * Stock-Level: the distinct OL_I_IDs of the district's orders D_NEXT_O_ID − 20 .. D_NEXT_O_ID − 1
     * whose STOCK row in the home warehouse has S_QUANTITY below the threshold. Read-only.
     */
    public StockLevelResult stockLevel(Transaction tx, StockLevelInput in) {
        int w = in.w();
        int d = in.d();
        TupleView district = require(tx.get(districts, District.key(w, d)), "district", "w", w, "d", d);
        int next = district.getInt(District.D_NEXT_O_ID);
        // Item ids in an int array, sorted and deduplicated below: no boxed set, and the stock rows are
        // then read in key order (neighbouring keys share index leaves and heap pages).
        int[][] itemIds = {new int[256]};
        int[] count = new int[1];
        if (next > 0) {
            int low = Math.max(0, next - STOCK_LEVEL_ORDERS);
            tx.readRange(orderLines.primaryIndex(), OrderLine.key(w, d, low, 0),
                OrderLine.key(w, d, next - 1, TpccSchema.MAX_ORDER_LINE_NUMBER), ALL, row -> {
                    if (count[0] == itemIds[0].length) {
                        itemIds[0] = Arrays.copyOf(itemIds[0], count[0] * 2);
                    }
                    itemIds[0][count[0]++] = row.getInt(OrderLine.OL_I_ID);
                    return true;
                });
        }
        int[] ids = itemIds[0];
        Arrays.sort(ids, 0, count[0]);
        int[] lowStock = new int[1];
        int threshold = in.threshold();
        RowReader countLow = s -> {
            if (s.getInt(Stock.S_QUANTITY) < threshold) {
                lowStock[0]++;
            }
        };
        for (int i = 0; i < count[0]; i++) {
            int itemId = ids[i];
            if (i > 0 && ids[i - 1] == itemId) {
                continue; // DISTINCT s_i_id
            }
            requireFound(tx.read(stock, Stock.key(w, itemId), countLow), "stock", w, itemId, 0);
        }
        return new StockLevelResult(w, d, threshold, lowStock[0]);
    }

    // ================================================================ shared

    /**
     * The customer by id, or by last name: all customers of (w, d) with that C_LAST sorted by C_FIRST
     * (ties by C_ID), the one at 1-based position ⌈n/2⌉ ([SPEC] 2.5.2.2), i.e. index (n − 1) / 2 in
     * integer division: n = 3 → 2nd, n = 4 → 2nd, n = 1 → 1st.
     */
    TupleView findCustomer(Transaction tx, int w, int d, boolean byLastName, int customerId, int lastNameNumber) {
        if (!byLastName) {
            return require(tx.get(customers, Customer.key(w, d, customerId)), "customer", "w", w, "d", d,
                "c", customerId);
        }
        String lastName = LastNames.name(lastNameNumber);
        List<TupleView> matches = new ArrayList<>();
        long key = Customer.lastNameKey(w, d, lastNameNumber);
        tx.scan(customersByLastName, key, key, ALL, row -> {
            if (lastName.equals(row.getString(Customer.C_LAST))) {
                matches.add(row);
            }
            return true;
        });
        if (matches.isEmpty()) {
            throw new IllegalStateException("no customer with last name: w=" + w + " d=" + d + " c_last=" + lastName);
        }
        matches.sort(Comparator.comparing((TupleView r) -> r.getString(Customer.C_FIRST))
            .thenComparingInt(r -> r.getInt(Customer.C_ID)));
        return matches.get((matches.size() - 1) / 2);
    }

    /**
     * The C_ID of the customer {@link #findCustomer} picks by last name, read through transient views:
     * Payment needs only the id (its update then reads the row by key), and copying every namesake's row
     * (three on average, 650 bytes each) was most of what a Payment allocated.
     */
    int customerIdByLastName(Transaction tx, int w, int d, int lastNameNumber) {
        return customerIdByLastName(tx, null, w, d, lastNameNumber);
    }

    /** {@link #customerIdByLastName(Transaction, int, int, int)} on another partition when {@code remote} is not null. */
    private int customerIdByLastName(Transaction tx, WarehouseRouter remote, int w, int d, int lastNameNumber) {
        List<Namesake> matches = new ArrayList<>(4);
        long key = Customer.lastNameKey(w, d, lastNameNumber);
        // The key is (w, d, last-name number), one-to-one with C_LAST, and a range scan delivers only rows
        // that have their entry's key: every row is a namesake, so C_LAST is not decoded again here.
        io.selcc.engine.RowVisitor collect = row -> {
            matches.add(new Namesake(row.getString(Customer.C_FIRST), row.getInt(Customer.C_ID)));
            return true;
        };
        if (remote == null) {
            tx.readRange(customersByLastName, key, key, ALL, collect);
        } else {
            remote.scan(Customer.BY_LAST_NAME, w, key, key, ALL, collect);
        }
        if (matches.isEmpty()) {
            throw new IllegalStateException("no customer with last name: w=" + w + " d=" + d + " c_last="
                + LastNames.name(lastNameNumber));
        }
        matches.sort(NAMESAKE_ORDER);
        return matches.get((matches.size() - 1) / 2).id();
    }

    /** A customer found by last name: what the choice among namesakes needs. */
    private record Namesake(String first, int id) {
    }

    private static final Comparator<Namesake> NAMESAKE_ORDER =
        Comparator.comparing(Namesake::first).thenComparingInt(Namesake::id);

    private static TupleView require(TupleView row, String table, Object... keyValues) {
        if (row == null) {
            StringBuilder message = new StringBuilder("row missing: table=").append(table);
            for (int i = 0; i + 1 < keyValues.length; i += 2) {
                message.append(' ').append(keyValues[i]).append('=').append(keyValues[i + 1]);
            }
            throw new IllegalStateException(message.toString());
        }
        return row;
    }

    private static void requireFound(boolean found, String table, int k1, int k2, int k3) {
        if (!found) {
            throw new IllegalStateException("row missing: table=" + table + " key=(" + k1 + ", " + k2 + ", " + k3 + ")");
        }
    }

    /**
     * Inserts a row whose key came from a row this transaction read (D_NEXT_O_ID). A duplicate means
     * that read was stale: an optimistic algorithm read it without a lock while another New-Order
     * committed the same order id. That is a conflict, not a bug: the transaction is rolled back and
     * {@link AbortException} with {@link AbortReason#STALE_READ} (retryable) is thrown.
     */
    private static void insertOrConflict(Transaction tx, Table table, java.util.function.Consumer<TupleView> writer,
                                         int w, int d, int o) {
        if (!tx.insert(table, writer)) {
            throw staleDuplicate(tx, table, w, d, o);
        }
    }

    /** The conflict of an insert into {@code table} that found its key taken (see {@link #insertOrConflict}). */
    private static AbortException staleDuplicate(Transaction tx, Table table, int w, int d, int o) {
        return conflict(tx, "duplicate key from a stale read: table=" + table.name() + " w=" + w + " d=" + d + " o=" + o);
    }

    /** Rolls {@code tx} back and returns the retryable conflict to throw (see {@link #insertOrConflict}). */
    private static AbortException conflict(Transaction tx, String detail) {
        tx.abort();
        return new AbortException(AbortReason.STALE_READ, detail);
    }

    /** A HISTORY insert; its surrogate key is unique by construction, so a duplicate is a bug. */
    private static void insertOrThrow(Transaction tx, Table table, java.util.function.Consumer<TupleView> writer,
                                      long historyId, int w, int d) {
        if (!tx.insert(table, writer)) {
            throw new IllegalStateException("duplicate key: table=" + table.name() + " h_id=" + historyId + " w=" + w
                + " d=" + d);
        }
    }
}
