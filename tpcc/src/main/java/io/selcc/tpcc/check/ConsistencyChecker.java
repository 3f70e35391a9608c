package io.selcc.tpcc.check;

import io.selcc.tpcc.TpccScale;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.TableDefinition;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.History;
import io.selcc.tpcc.TpccSchema.NewOrder;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.TpccSchema.Warehouse;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks the twelve consistency conditions of [SPEC] 3.3.2 (numbered as there) on a quiesced database:
 * one non-transactional full scan per table builds in-memory aggregates (per warehouse, district,
 * customer and order, with sums starting at 0), then each condition is evaluated over them in key
 * order, so a failure names its first violation. Warehouses 1..W and their districts 1..10 are
 * expected to exist; rows of other warehouses are checked as well.
 *
 * <p>Condition 11 is checked in its post-run form ([SPEC] 3.3.2.11 and the notes): for every district
 * {@code count(ORDER) - count(NEW-ORDER) = 2100 + delivered}, where {@code delivered} is the number of
 * orders delivered since load, counted here as the orders with a carrier minus the 2100 loaded
 * delivered, and must not be negative. On a freshly loaded database this is the strict form
 * ({@code delivered = 0} because no more than 2100 orders carry a carrier).
 *
 * <p>Condition 8 ({@code W_YTD = sum(H_AMOUNT)} per warehouse) follows from conditions 1 and 9 as
 * evaluated here (every HISTORY row's district is one of the district aggregates that condition 1 sums
 * and condition 9 compares), so a broken row never fails condition 8 alone: it fails with 1 or 9.
 *
 * <p>After the twelve conditions the report holds {@link Condition#INDEXES}: every index of every
 * table agrees with the table's heap ({@link IndexHeapCheck}).
 *
 * <p>Memory: one small object per order and per customer, and 16 bytes per index entry of the table
 * whose indexes are being checked. Not thread-safe; call {@link #check()} from one thread while no
 * transaction runs.
 */
public final class ConsistencyChecker {
    /** Orders delivered at load per district ([SPEC] 4.3.3.1: O_ID < 2101 have a carrier). */
    private static final int LOADED_DELIVERED = TpccScale.ORDERS_PER_DISTRICT - TpccScale.NEW_ORDERS_PER_DISTRICT;

    private final DatabaseNode node;
    private final int warehouses;
    /** The table sets to scan: {@link TpccSchema#SHARED}, or every partition's. */
    private final int[] sets;

    private final Map<Integer, WarehouseAgg> warehouseAggs = new TreeMap<>();
    private final Map<Long, DistrictAgg> districtAggs = new TreeMap<>();
    private final Map<Long, CustomerAgg> customerAggs = new TreeMap<>();
    private final Map<Long, OrderAgg> orderAggs = new TreeMap<>();
    /** C5 and C7 violations found while scanning NEW-ORDER and ORDER-LINE. */
    private Violations orphanNewOrders = new Violations(Condition.C5);
    private Violations lineViolations = new Violations(Condition.C7);

    /**
     * @param node       the node whose view is scanned
     * @param warehouses the warehouses 1..W that must exist
     */
    public ConsistencyChecker(DatabaseNode node, int warehouses) {
        this(node, warehouses, 0);
    }

    /**
     * A checker of partitioned mode's tables when {@code partitions} is above 0: the conditions hold over
     * every partition's rows together (a Payment's HISTORY row lives in the paying warehouse's partition,
     * its customer possibly in another's).
     */
    public ConsistencyChecker(DatabaseNode node, int warehouses, int partitions) {
        if (warehouses < 1) {
            throw new IllegalArgumentException("warehouses must be >= 1: warehouses=" + warehouses);
        }
        if (partitions < 0) {
            throw new IllegalArgumentException("partitions must be >= 0: partitions=" + partitions);
        }
        this.node = node;
        this.warehouses = warehouses;
        this.sets = partitions == 0 ? new int[] {TpccSchema.SHARED} : java.util.stream.IntStream.range(0, partitions).toArray();
    }

    /** Scans the heap of table {@code base} in every set. */
    private void scanAll(String base, io.selcc.storage.HeapTable.TupleConsumer scanner) {
        for (int set : sets) {
            node.table(TpccSchema.name(base, set)).heap().scan(scanner);
        }
    }

    /** Scans all tables, evaluates the twelve conditions and checks the indexes. Run on a quiesced database. */
    public CheckReport check() {
        clear();
        for (int w = 1; w <= warehouses; w++) {
            warehouse(w);
            for (int d = 1; d <= TpccScale.DISTRICTS; d++) {
                district(w, d);
            }
        }
        scanWarehouses();
        scanDistricts();
        scanCustomers();
        scanOrders();
        scanNewOrders();
        scanOrderLines();
        scanHistory();
        List<ConditionResult> results = new ArrayList<>();
        results.add(condition1());
        results.add(condition2());
        results.add(condition3());
        results.add(condition4());
        results.add(condition5());
        results.add(condition6());
        results.add(lineViolations.result("every line's OL_DELIVERY_D is null iff its order's O_CARRIER_ID is; "
            + "lines=" + districtAggs.values().stream().mapToLong(a -> a.lineRows).sum()));
        results.add(condition8());
        results.add(condition9());
        results.add(condition10());
        results.add(condition11());
        results.add(condition12());
        List<String> names = new ArrayList<>();
        for (int set : sets) {
            TpccSchema.tables(set).forEach(t -> names.add(t.name()));
        }
        results.add(new IndexHeapCheck(node, names).run());
        CheckReport report = new CheckReport(results);
        clear();
        return report;
    }

    // ------------------------------------------------------------------ scans

    private void scanWarehouses() {
        scanAll(Warehouse.TABLE, (rid, row) -> {
            WarehouseAgg a = warehouse(row.getInt(Warehouse.W_ID));
            a.rows++;
            a.ytd = row.getMoney(Warehouse.W_YTD);
        });
    }

    private void scanDistricts() {
        scanAll(District.TABLE, (rid, row) -> {
            DistrictAgg a = district(row.getInt(District.D_W_ID), row.getInt(District.D_ID));
            a.rows++;
            a.ytd = row.getMoney(District.D_YTD);
            a.nextOrderId = row.getInt(District.D_NEXT_O_ID);
        });
    }

    private void scanCustomers() {
        scanAll(Customer.TABLE, (rid, row) -> {
            CustomerAgg a = customer(row.getInt(Customer.C_W_ID), row.getInt(Customer.C_D_ID), row.getInt(Customer.C_ID));
            a.rows++;
            a.balance = row.getMoney(Customer.C_BALANCE);
            a.ytdPayment = row.getMoney(Customer.C_YTD_PAYMENT);
        });
    }

    private void scanOrders() {
        scanAll(Order.TABLE, (rid, row) -> {
            int w = row.getInt(Order.O_W_ID);
            int d = row.getInt(Order.O_D_ID);
            int o = row.getInt(Order.O_ID);
            OrderAgg order = new OrderAgg(w, d, o, row.getInt(Order.O_C_ID), row.isNull(Order.O_CARRIER_ID),
                row.getInt(Order.O_OL_CNT));
            if (orderAggs.putIfAbsent(Order.key(w, d, o), order) != null) {
                throw new IllegalStateException("two ORDER rows with one key: w=" + w + " d=" + d + " o=" + o);
            }
            DistrictAgg a = district(w, d);
            a.orders++;
            a.maxOrderId = Math.max(a.maxOrderId, o);
            a.orderLineCountSum += order.lineCount;
            if (!order.carrierNull) {
                a.ordersWithCarrier++;
            }
        });
    }

    private void scanNewOrders() {
        scanAll(NewOrder.TABLE, (rid, row) -> {
            int w = row.getInt(NewOrder.NO_W_ID);
            int d = row.getInt(NewOrder.NO_D_ID);
            int o = row.getInt(NewOrder.NO_O_ID);
            DistrictAgg a = district(w, d);
            a.newOrders++;
            a.minNewOrderId = Math.min(a.minNewOrderId, o);
            a.maxNewOrderId = Math.max(a.maxNewOrderId, o);
            OrderAgg order = orderAggs.get(Order.key(w, d, o));
            if (order == null) {
                orphanNewOrders.add("NEW-ORDER without ORDER: w=" + w + " d=" + d + " no_o_id=" + o);
            } else {
                order.newOrders++;
            }
        });
    }

    private void scanOrderLines() {
        scanAll(OrderLine.TABLE, (rid, row) -> {
            int w = row.getInt(OrderLine.OL_W_ID);
            int d = row.getInt(OrderLine.OL_D_ID);
            int o = row.getInt(OrderLine.OL_O_ID);
            district(w, d).lineRows++;
            boolean undelivered = row.isNull(OrderLine.OL_DELIVERY_D);
            OrderAgg order = orderAggs.get(Order.key(w, d, o));
            if (order == null) {
                lineViolations.add("ORDER-LINE without ORDER: w=" + w + " d=" + d + " ol_o_id=" + o
                    + " ol_number=" + row.getInt(OrderLine.OL_NUMBER));
                return;
            }
            order.lines++;
            if (undelivered != order.carrierNull) {
                lineViolations.add("w=" + w + " d=" + d + " o=" + o + " ol_number=" + row.getInt(OrderLine.OL_NUMBER)
                    + " OL_DELIVERY_D " + (undelivered ? "null" : "set") + " but O_CARRIER_ID "
                    + (order.carrierNull ? "null" : "set"));
            }
            if (!undelivered) {
                customer(w, d, order.customer).deliveredAmount += row.getMoney(OrderLine.OL_AMOUNT);
            }
        });
    }

    private void scanHistory() {
        scanAll(History.TABLE, (rid, row) -> {
            long amount = row.getMoney(History.H_AMOUNT);
            int w = row.getInt(History.H_W_ID);
            warehouse(w).historyAmount += amount;
            district(w, row.getInt(History.H_D_ID)).historyAmount += amount;
            customer(row.getInt(History.H_C_W_ID), row.getInt(History.H_C_D_ID), row.getInt(History.H_C_ID))
                .historyAmount += amount;
        });
    }

    // ------------------------------------------------------------------ conditions

    /** C1: W_YTD = sum of its districts' D_YTD. */
    private ConditionResult condition1() {
        Map<Integer, Long> districtSums = new TreeMap<>();
        for (DistrictAgg d : districtAggs.values()) {
            districtSums.merge(d.w, d.ytd, Long::sum);
        }
        Violations v = new Violations(Condition.C1);
        for (WarehouseAgg w : warehouseAggs.values()) {
            long sum = districtSums.getOrDefault(w.w, 0L);
            if (w.rows != 1) {
                v.add("w=" + w.w + " WAREHOUSE rows=" + w.rows);
            } else if (w.ytd != sum) {
                v.add("w=" + w.w + " W_YTD=" + cents(w.ytd) + " sum(D_YTD)=" + cents(sum));
            }
        }
        return v.result("W_YTD = sum(D_YTD) for " + warehouseAggs.size() + " warehouses");
    }

    /** C2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) (the latter if there are new orders). */
    private ConditionResult condition2() {
        Violations v = new Violations(Condition.C2);
        for (DistrictAgg d : districtAggs.values()) {
            if (d.rows != 1) {
                v.add(d + " DISTRICT rows=" + d.rows);
            } else if (d.nextOrderId - 1 != d.maxOrderId) {
                v.add(d + " D_NEXT_O_ID=" + d.nextOrderId + " max(O_ID)=" + d.maxOrderId);
            } else if (d.newOrders > 0 && d.nextOrderId - 1 != d.maxNewOrderId) {
                v.add(d + " D_NEXT_O_ID=" + d.nextOrderId + " max(NO_O_ID)=" + d.maxNewOrderId);
            }
        }
        return v.result("D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for " + districtAggs.size() + " districts");
    }

    /** C3: NEW-ORDER ids of a district are contiguous. */
    private ConditionResult condition3() {
        Violations v = new Violations(Condition.C3);
        for (DistrictAgg d : districtAggs.values()) {
            if (d.newOrders > 0 && (long) d.maxNewOrderId - d.minNewOrderId + 1 != d.newOrders) {
                v.add(d + " max(NO_O_ID)=" + d.maxNewOrderId + " min(NO_O_ID)=" + d.minNewOrderId
                    + " count(NEW-ORDER)=" + d.newOrders);
            }
        }
        return v.result("max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER) for " + districtAggs.size() + " districts");
    }

    /** C4: sum of O_OL_CNT = count of ORDER-LINE rows, per district. */
    private ConditionResult condition4() {
        Violations v = new Violations(Condition.C4);
        for (DistrictAgg d : districtAggs.values()) {
            if (d.orderLineCountSum != d.lineRows) {
                v.add(d + " sum(O_OL_CNT)=" + d.orderLineCountSum + " count(ORDER-LINE)=" + d.lineRows);
            }
        }
        return v.result("sum(O_OL_CNT) = count(ORDER-LINE) for " + districtAggs.size() + " districts");
    }

    /** C5: O_CARRIER_ID is null iff a NEW-ORDER row exists (and every NEW-ORDER has its ORDER). */
    private ConditionResult condition5() {
        Violations v = orphanNewOrders;
        for (OrderAgg o : orderAggs.values()) {
            boolean hasNewOrder = o.newOrders > 0;
            if (o.carrierNull != hasNewOrder) {
                v.add(o + " O_CARRIER_ID " + (o.carrierNull ? "null" : "set") + " but NEW-ORDER row "
                    + (hasNewOrder ? "exists" : "missing"));
            }
        }
        return v.result("O_CARRIER_ID null iff NEW-ORDER row, for " + orderAggs.size() + " orders");
    }

    /** C6: O_OL_CNT = count of the order's ORDER-LINE rows. */
    private ConditionResult condition6() {
        Violations v = new Violations(Condition.C6);
        for (OrderAgg o : orderAggs.values()) {
            if (o.lineCount != o.lines) {
                v.add(o + " O_OL_CNT=" + o.lineCount + " count(ORDER-LINE)=" + o.lines);
            }
        }
        return v.result("O_OL_CNT = count(ORDER-LINE) for " + orderAggs.size() + " orders");
    }

    /** C8: W_YTD = sum of H_AMOUNT paid to the warehouse. */
    private ConditionResult condition8() {
        Violations v = new Violations(Condition.C8);
        for (WarehouseAgg w : warehouseAggs.values()) {
            if (w.ytd != w.historyAmount) {
                v.add("w=" + w.w + " W_YTD=" + cents(w.ytd) + " sum(H_AMOUNT by H_W_ID)=" + cents(w.historyAmount));
            }
        }
        return v.result("W_YTD = sum(H_AMOUNT) for " + warehouseAggs.size() + " warehouses");
    }

    /** C9: D_YTD = sum of H_AMOUNT paid to the district. */
    private ConditionResult condition9() {
        Violations v = new Violations(Condition.C9);
        for (DistrictAgg d : districtAggs.values()) {
            if (d.ytd != d.historyAmount) {
                v.add(d + " D_YTD=" + cents(d.ytd) + " sum(H_AMOUNT by H_W_ID,H_D_ID)=" + cents(d.historyAmount));
            }
        }
        return v.result("D_YTD = sum(H_AMOUNT) for " + districtAggs.size() + " districts");
    }

    /** C10: C_BALANCE = delivered OL_AMOUNT of the customer's orders - H_AMOUNT the customer paid. */
    private ConditionResult condition10() {
        Violations v = new Violations(Condition.C10);
        for (CustomerAgg c : customerAggs.values()) {
            if (c.rows != 1) {
                v.add(c + " CUSTOMER rows=" + c.rows + " but referenced by orders or history");
            } else if (c.balance != c.deliveredAmount - c.historyAmount) {
                v.add(c + " C_BALANCE=" + cents(c.balance) + " sum(delivered OL_AMOUNT)=" + cents(c.deliveredAmount)
                    + " sum(H_AMOUNT)=" + cents(c.historyAmount));
            }
        }
        return v.result("C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) for " + customerAggs.size() + " customers");
    }

    /** C11 (post-run form): count(ORDER) - count(NEW-ORDER) = 2100 + orders delivered since load, which is >= 0. */
    private ConditionResult condition11() {
        Violations v = new Violations(Condition.C11);
        long deliveredSinceLoad = 0;
        for (DistrictAgg d : districtAggs.values()) {
            long delivered = d.ordersWithCarrier - LOADED_DELIVERED;
            if (delivered < 0 || d.orders - d.newOrders != LOADED_DELIVERED + delivered) {
                v.add(d + " count(ORDER)=" + d.orders + " count(NEW-ORDER)=" + d.newOrders
                    + " expected difference 2100 + delivered since load (" + delivered + ", from "
                    + d.ordersWithCarrier + " orders with O_CARRIER_ID)");
            } else {
                deliveredSinceLoad += delivered;
            }
        }
        return v.result("count(ORDER) - count(NEW-ORDER) = 2100 + delivered for " + districtAggs.size()
            + " districts; delivered since load=" + deliveredSinceLoad);
    }

    /** C12: C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT of the customer's orders. */
    private ConditionResult condition12() {
        Violations v = new Violations(Condition.C12);
        for (CustomerAgg c : customerAggs.values()) {
            if (c.rows != 1) {
                v.add(c + " CUSTOMER rows=" + c.rows + " but referenced by orders or history");
            } else if (c.balance + c.ytdPayment != c.deliveredAmount) {
                v.add(c + " C_BALANCE=" + cents(c.balance) + " C_YTD_PAYMENT=" + cents(c.ytdPayment)
                    + " sum(delivered OL_AMOUNT)=" + cents(c.deliveredAmount));
            }
        }
        return v.result("C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) for " + customerAggs.size() + " customers");
    }

    // ------------------------------------------------------------------ aggregates

    private void clear() {
        warehouseAggs.clear();
        districtAggs.clear();
        customerAggs.clear();
        orderAggs.clear();
        orphanNewOrders = new Violations(Condition.C5);
        lineViolations = new Violations(Condition.C7);
    }

    private WarehouseAgg warehouse(int w) {
        return warehouseAggs.computeIfAbsent(w, WarehouseAgg::new);
    }

    private DistrictAgg district(int w, int d) {
        return districtAggs.computeIfAbsent(TpccSchema.District.key(w, d), k -> new DistrictAgg(w, d));
    }

    private CustomerAgg customer(int w, int d, int c) {
        return customerAggs.computeIfAbsent(Customer.key(w, d, c), k -> new CustomerAgg(w, d, c));
    }

    /** Cents as a decimal amount, e.g. 300000.00. */
    static String cents(long cents) {
        return (cents < 0 ? "-" : "") + Math.abs(cents / 100) + "." + String.format("%02d", Math.abs(cents % 100));
    }

    private static final class WarehouseAgg {
        final int w;
        int rows;
        long ytd;
        long historyAmount;

        WarehouseAgg(int w) {
            this.w = w;
        }
    }

    private static final class DistrictAgg {
        final int w;
        final int d;
        int rows;
        long ytd;
        int nextOrderId;
        int orders;
        int maxOrderId;
        int ordersWithCarrier;
        long orderLineCountSum;
        long lineRows;
        int newOrders;
        int minNewOrderId = Integer.MAX_VALUE;
        int maxNewOrderId = Integer.MIN_VALUE;
        long historyAmount;

        DistrictAgg(int w, int d) {
            this.w = w;
            this.d = d;
        }

        @Override
        public String toString() {
            return "w=" + w + " d=" + d;
        }
    }

    private static final class CustomerAgg {
        final int w;
        final int d;
        final int c;
        int rows;
        long balance;
        long ytdPayment;
        long deliveredAmount;
        long historyAmount;

        CustomerAgg(int w, int d, int c) {
            this.w = w;
            this.d = d;
            this.c = c;
        }

        @Override
        public String toString() {
            return "w=" + w + " d=" + d + " c=" + c;
        }
    }

    private static final class OrderAgg {
        final int w;
        final int d;
        final int o;
        final int customer;
        final boolean carrierNull;
        final int lineCount;
        int lines;
        int newOrders;

        OrderAgg(int w, int d, int o, int customer, boolean carrierNull, int lineCount) {
            this.w = w;
            this.d = d;
            this.o = o;
            this.customer = customer;
            this.carrierNull = carrierNull;
            this.lineCount = lineCount;
        }

        @Override
        public String toString() {
            return "w=" + w + " d=" + d + " o=" + o;
        }
    }
}
