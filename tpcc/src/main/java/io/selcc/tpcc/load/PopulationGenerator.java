package io.selcc.tpcc.load;

import io.selcc.tpcc.TpccScale;
import io.selcc.tpcc.LastNames;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.History;
import io.selcc.tpcc.TpccSchema.Item;
import io.selcc.tpcc.TpccSchema.NewOrder;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.TpccSchema.Stock;
import io.selcc.tpcc.TpccSchema.Warehouse;

import io.selcc.storage.TupleView;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The rows of [SPEC] 4.3.3.1 for one {@link LoadUnit}. Each row's writer draws its values from the
 * unit's stream while it writes them, in a fixed order, so a unit's rows depend on the seed alone; the
 * sink must run each writer exactly once, in the order given (a bulk load does). Money is cents, rates
 * are 1/10,000, timestamps are the load's one timestamp.
 */
final class PopulationGenerator {
    /** Orders below this id are delivered at load; from it on they are new orders. */
    static final int FIRST_NEW_ORDER = TpccScale.ORDERS_PER_DISTRICT - TpccScale.NEW_ORDERS_PER_DISTRICT + 1;
    static final int BAD_CREDIT_PER_DISTRICT = TpccScale.CUSTOMERS_PER_DISTRICT / 10;

    static final long WAREHOUSE_YTD = 300_000_00L;
    static final long DISTRICT_YTD = 30_000_00L;
    static final int NEXT_ORDER_ID = 3_001;
    static final long CREDIT_LIMIT = 50_000_00L;
    static final long INITIAL_BALANCE = -10_00L;
    static final long INITIAL_YTD_PAYMENT = 10_00L;
    static final long HISTORY_AMOUNT = 10_00L;

    private static final byte[] MIDDLE = latin1("OE");
    private static final byte[] BAD_CREDIT = latin1("BC");
    private static final byte[] GOOD_CREDIT = latin1("GC");

    /** Where the generated rows go: {@code writer} fills one row of table {@code table} ({@link LoadTables}). */
    @FunctionalInterface
    interface RowSink {
        void insert(int table, Consumer<TupleView> writer);
    }

    private final long seed;
    private final TpccRandom.Constants constants;
    private final long loadTimeMicros;

    PopulationGenerator(long seed, TpccRandom.Constants constants, long loadTimeMicros) {
        this.seed = seed;
        this.constants = constants;
        this.loadTimeMicros = loadTimeMicros;
    }

    /** Hands every row of {@code unit} to {@code sink}, in order. */
    void generate(LoadUnit unit, RowSink sink) {
        new UnitRows(new TpccRandom(unit.seed(seed), constants), unit.warehouse(), unit.district(), sink).generate(unit);
    }

    /** The HISTORY origin of the loading stream of district (w, d); see {@link TpccLoader#LOAD_HISTORY_ORIGIN_BASE}. */
    static long historyOrigin(int w, int d) {
        return TpccLoader.LOAD_HISTORY_ORIGIN_BASE + ((long) w << 5 | d);
    }

    private static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * One unit's rows. The writers are bound once and read the row being generated from fields (ids,
     * the current order), so a row costs no allocation of its own.
     */
    private final class UnitRows {
        private final TpccRandom r;
        private final int w;
        private final int d;
        private final RowSink sink;
        private final Consumer<TupleView> itemWriter = this::writeItem;
        private final Consumer<TupleView> warehouseWriter = this::writeWarehouse;
        private final Consumer<TupleView> stockWriter = this::writeStock;
        private final Consumer<TupleView> districtWriter = this::writeDistrict;
        private final Consumer<TupleView> customerWriter = this::writeCustomer;
        private final Consumer<TupleView> historyWriter = this::writeHistory;
        private final Consumer<TupleView> orderWriter = this::writeOrder;
        private final Consumer<TupleView> orderLineWriter = this::writeOrderLine;
        private final Consumer<TupleView> newOrderWriter = this::writeNewOrder;
        /** The item, customer or order id of the row being written. */
        private int id;
        private boolean badCredit;
        private long historyOrigin;
        /** The current order's customer, whether it is delivered, and its line count (drawn by its writer). */
        private int orderCustomer;
        private boolean delivered;
        private int lineCount;
        private int lineNumber;

        UnitRows(TpccRandom r, int w, int d, RowSink sink) {
            this.r = r;
            this.w = w;
            this.d = d;
            this.sink = sink;
        }

        void generate(LoadUnit unit) {
            switch (unit.kind()) {
                case ITEMS -> {
                    for (id = unit.firstItem(); id <= unit.lastItem(); id++) {
                        sink.insert(LoadTables.ITEM, itemWriter);
                    }
                }
                case WAREHOUSE -> sink.insert(LoadTables.WAREHOUSE, warehouseWriter);
                case STOCK -> {
                    for (id = unit.firstItem(); id <= unit.lastItem(); id++) {
                        sink.insert(LoadTables.STOCK, stockWriter);
                    }
                }
                case DISTRICT -> {
                    sink.insert(LoadTables.DISTRICT, districtWriter);
                    customers();
                    orders();
                }
            }
        }

        private void writeItem(TupleView row) {
            row.setInt(Item.I_ID, id);
            row.setInt(Item.I_IM_ID, r.uniform(1, 10_000));
            r.alphaString(row, Item.I_NAME, 14, 24);
            row.setMoney(Item.I_PRICE, r.fixed(1_00, 100_00));
            r.data(row, Item.I_DATA);
        }

        private void writeWarehouse(TupleView row) {
            row.setInt(Warehouse.W_ID, w);
            nameAndAddress(row, Warehouse.W_NAME);
            row.setInt(Warehouse.W_TAX, r.uniform(0, 2_000));
            row.setMoney(Warehouse.W_YTD, WAREHOUSE_YTD);
        }

        private void writeStock(TupleView row) {
            row.setInt(Stock.S_I_ID, id);
            row.setInt(Stock.S_W_ID, w);
            row.setInt(Stock.S_QUANTITY, r.uniform(10, 100));
            for (int district = 1; district <= 10; district++) {
                r.alphaString(row, Stock.distColumn(district), 24, 24);
            }
            row.setInt(Stock.S_YTD, 0);
            row.setInt(Stock.S_ORDER_CNT, 0);
            row.setInt(Stock.S_REMOTE_CNT, 0);
            r.data(row, Stock.S_DATA);
        }

        private void writeDistrict(TupleView row) {
            row.setInt(District.D_ID, d);
            row.setInt(District.D_W_ID, w);
            nameAndAddress(row, District.D_NAME);
            row.setInt(District.D_TAX, r.uniform(0, 2_000));
            row.setMoney(District.D_YTD, DISTRICT_YTD);
            row.setInt(District.D_NEXT_O_ID, NEXT_ORDER_ID);
        }

        /**
         * Name and address of a warehouse or district ([SPEC] 4.3.3.1): the same draws for both, and the
         * six text columns are consecutive in both tables (name, street 1, street 2, city, state, zip).
         */
        private void nameAndAddress(TupleView row, int nameColumn) {
            r.alphaString(row, nameColumn, 6, 10);
            r.alphaString(row, nameColumn + 1, 10, 20);
            r.alphaString(row, nameColumn + 2, 10, 20);
            r.alphaString(row, nameColumn + 3, 10, 20);
            r.state(row, nameColumn + 4);
            r.zip(row, nameColumn + 5);
        }

        /** CUSTOMER rows with one HISTORY row each; exactly 10% of each district's customers have "BC" credit. */
        private void customers() {
            boolean[] bad = new boolean[TpccScale.CUSTOMERS_PER_DISTRICT + 1];
            int[] shuffled = r.permutation(TpccScale.CUSTOMERS_PER_DISTRICT);
            for (int k = 0; k < BAD_CREDIT_PER_DISTRICT; k++) {
                bad[shuffled[k]] = true;
            }
            historyOrigin = historyOrigin(w, d);
            for (id = 1; id <= TpccScale.CUSTOMERS_PER_DISTRICT; id++) {
                badCredit = bad[id];
                sink.insert(LoadTables.CUSTOMER, customerWriter);
                sink.insert(LoadTables.HISTORY, historyWriter);
            }
        }

        private void writeCustomer(TupleView row) {
            row.setInt(Customer.C_ID, id);
            row.setInt(Customer.C_D_ID, d);
            row.setInt(Customer.C_W_ID, w);
            row.setString(Customer.C_LAST, LastNames.name(id <= 1_000 ? id - 1 : r.lastNameNumberLoad()));
            r.alphaString(row, Customer.C_FIRST, 8, 16);
            row.setString(Customer.C_MIDDLE, MIDDLE, 0, MIDDLE.length);
            r.alphaString(row, Customer.C_STREET_1, 10, 20);
            r.alphaString(row, Customer.C_STREET_2, 10, 20);
            r.alphaString(row, Customer.C_CITY, 10, 20);
            r.state(row, Customer.C_STATE);
            r.zip(row, Customer.C_ZIP);
            r.numericString(row, Customer.C_PHONE, 16, 16);
            row.setTimestamp(Customer.C_SINCE, loadTimeMicros);
            byte[] credit = badCredit ? BAD_CREDIT : GOOD_CREDIT;
            row.setString(Customer.C_CREDIT, credit, 0, credit.length);
            row.setMoney(Customer.C_CREDIT_LIM, CREDIT_LIMIT);
            row.setInt(Customer.C_DISCOUNT, r.uniform(0, 5_000));
            row.setMoney(Customer.C_BALANCE, INITIAL_BALANCE);
            row.setMoney(Customer.C_YTD_PAYMENT, INITIAL_YTD_PAYMENT);
            row.setInt(Customer.C_PAYMENT_CNT, 1);
            row.setInt(Customer.C_DELIVERY_CNT, 0);
            r.alphaString(row, Customer.C_DATA, 300, 500);
        }

        private void writeHistory(TupleView row) {
            row.setLong(History.H_ID, History.id(historyOrigin, id));
            row.setInt(History.H_C_ID, id);
            row.setInt(History.H_C_D_ID, d);
            row.setInt(History.H_C_W_ID, w);
            row.setInt(History.H_D_ID, d);
            row.setInt(History.H_W_ID, w);
            row.setTimestamp(History.H_DATE, loadTimeMicros);
            row.setMoney(History.H_AMOUNT, HISTORY_AMOUNT);
            r.alphaString(row, History.H_DATA, 12, 24);
        }

        /** ORDER rows with their ORDER-LINE rows and, from {@link #FIRST_NEW_ORDER} on, their NEW-ORDER row. */
        private void orders() {
            int[] customerOf = r.permutation(TpccScale.CUSTOMERS_PER_DISTRICT);
            for (id = 1; id <= TpccScale.ORDERS_PER_DISTRICT; id++) {
                orderCustomer = customerOf[id - 1];
                delivered = id < FIRST_NEW_ORDER;
                sink.insert(LoadTables.ORDER, orderWriter); // draws lineCount
                for (lineNumber = 1; lineNumber <= lineCount; lineNumber++) {
                    sink.insert(LoadTables.ORDER_LINE, orderLineWriter);
                }
                if (!delivered) {
                    sink.insert(LoadTables.NEW_ORDER, newOrderWriter);
                }
            }
        }

        private void writeOrder(TupleView row) {
            int carrier = delivered ? r.uniform(1, 10) : 0;
            lineCount = r.uniform(5, 15);
            row.setInt(Order.O_ID, id);
            row.setInt(Order.O_D_ID, d);
            row.setInt(Order.O_W_ID, w);
            row.setInt(Order.O_C_ID, orderCustomer);
            row.setTimestamp(Order.O_ENTRY_D, loadTimeMicros);
            if (delivered) {
                row.setInt(Order.O_CARRIER_ID, carrier);
            } else {
                row.setNull(Order.O_CARRIER_ID);
            }
            row.setInt(Order.O_OL_CNT, lineCount);
            row.setInt(Order.O_ALL_LOCAL, 1);
        }

        private void writeOrderLine(TupleView row) {
            row.setInt(OrderLine.OL_O_ID, id);
            row.setInt(OrderLine.OL_D_ID, d);
            row.setInt(OrderLine.OL_W_ID, w);
            row.setInt(OrderLine.OL_NUMBER, lineNumber);
            row.setInt(OrderLine.OL_I_ID, r.uniform(1, TpccScale.ITEMS));
            row.setInt(OrderLine.OL_SUPPLY_W_ID, w);
            if (delivered) {
                row.setTimestamp(OrderLine.OL_DELIVERY_D, loadTimeMicros);
            } else {
                row.setNull(OrderLine.OL_DELIVERY_D);
            }
            row.setInt(OrderLine.OL_QUANTITY, 5);
            row.setMoney(OrderLine.OL_AMOUNT, delivered ? 0 : r.fixed(1, 9_999_99));
            r.alphaString(row, OrderLine.OL_DIST_INFO, 24, 24);
        }

        private void writeNewOrder(TupleView row) {
            row.setInt(NewOrder.NO_O_ID, id);
            row.setInt(NewOrder.NO_D_ID, d);
            row.setInt(NewOrder.NO_W_ID, w);
        }
    }
}
