package io.selcc.tpcc.load;

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

import java.util.function.Consumer;

/**
 * The rows of [SPEC] 4.3.3.1 for one {@link LoadUnit}, in batches. All values are drawn in a fixed order
 * from the unit's stream while the batch is built, outside any transaction. Money is cents, rates are
 * 1/10,000, timestamps are the load's one timestamp.
 */
final class PopulationGenerator {
    static final int ITEMS_PER_BATCH = 100;
    static final int STOCK_PER_BATCH = 50;
    static final int CUSTOMERS_PER_BATCH = 50;
    static final int ORDERS_PER_BATCH = 10;

    static final int CUSTOMERS_PER_DISTRICT = 3_000;
    static final int ORDERS_PER_DISTRICT = 3_000;
    /** Orders below this id are delivered at load; from it on they are new orders. */
    static final int FIRST_NEW_ORDER = 2_101;
    static final int BAD_CREDIT_PER_DISTRICT = CUSTOMERS_PER_DISTRICT / 10;

    static final long WAREHOUSE_YTD = 300_000_00L;
    static final long DISTRICT_YTD = 30_000_00L;
    static final int NEXT_ORDER_ID = 3_001;
    static final long CREDIT_LIMIT = 50_000_00L;
    static final long INITIAL_BALANCE = -10_00L;
    static final long INITIAL_YTD_PAYMENT = 10_00L;
    static final long HISTORY_AMOUNT = 10_00L;

    private final long seed;
    private final TpccRandom.Constants constants;
    private final long loadTimeMicros;

    PopulationGenerator(long seed, TpccRandom.Constants constants, long loadTimeMicros) {
        this.seed = seed;
        this.constants = constants;
        this.loadTimeMicros = loadTimeMicros;
    }

    /** Hands every batch of {@code unit} to {@code sink}, in order. */
    void generate(LoadUnit unit, Consumer<RowBatch> sink) {
        TpccRandom r = new TpccRandom(unit.seed(seed), constants);
        switch (unit.kind()) {
            case ITEMS -> items(r, unit, sink);
            case WAREHOUSE -> sink.accept(warehouse(r, unit.warehouse()));
            case STOCK -> stock(r, unit, sink);
            case DISTRICT -> district(r, unit.warehouse(), unit.district(), sink);
        }
    }

    /** The HISTORY origin of the loading stream of district (w, d); see {@link TpccLoader#LOAD_HISTORY_ORIGIN_BASE}. */
    static long historyOrigin(int w, int d) {
        return TpccLoader.LOAD_HISTORY_ORIGIN_BASE + ((long) w << 5 | d);
    }

    private void items(TpccRandom r, LoadUnit unit, Consumer<RowBatch> sink) {
        for (int first = unit.firstItem(); first <= unit.lastItem(); first += ITEMS_PER_BATCH) {
            int last = Math.min(unit.lastItem(), first + ITEMS_PER_BATCH - 1);
            RowBatch batch = new RowBatch("item i=" + first + ".." + last);
            for (int i = first; i <= last; i++) {
                int id = i;
                int imId = r.uniform(1, 10_000);
                String name = r.alphaString(14, 24);
                long price = r.fixed(1_00, 100_00);
                String data = r.data();
                batch.add(LoadTables.ITEM, row -> {
                    row.setInt(Item.I_ID, id);
                    row.setInt(Item.I_IM_ID, imId);
                    row.setString(Item.I_NAME, name);
                    row.setMoney(Item.I_PRICE, price);
                    row.setString(Item.I_DATA, data);
                });
            }
            sink.accept(batch);
        }
    }

    private RowBatch warehouse(TpccRandom r, int w) {
        RowBatch batch = new RowBatch("warehouse w=" + w);
        NameAndAddress address = NameAndAddress.draw(r);
        batch.add(LoadTables.WAREHOUSE, row -> {
            row.setInt(Warehouse.W_ID, w);
            address.writeTo(row, Warehouse.W_NAME);
            row.setInt(Warehouse.W_TAX, address.tax());
            row.setMoney(Warehouse.W_YTD, WAREHOUSE_YTD);
        });
        return batch;
    }

    private void stock(TpccRandom r, LoadUnit unit, Consumer<RowBatch> sink) {
        int w = unit.warehouse();
        for (int first = unit.firstItem(); first <= unit.lastItem(); first += STOCK_PER_BATCH) {
            int last = Math.min(unit.lastItem(), first + STOCK_PER_BATCH - 1);
            RowBatch batch = new RowBatch("stock w=" + w + " i=" + first + ".." + last);
            for (int i = first; i <= last; i++) {
                int id = i;
                int quantity = r.uniform(10, 100);
                String[] dist = new String[10];
                for (int d = 0; d < dist.length; d++) {
                    dist[d] = r.alphaString(24, 24);
                }
                String data = r.data();
                batch.add(LoadTables.STOCK, row -> {
                    row.setInt(Stock.S_I_ID, id);
                    row.setInt(Stock.S_W_ID, w);
                    row.setInt(Stock.S_QUANTITY, quantity);
                    for (int d = 1; d <= 10; d++) {
                        row.setString(Stock.distColumn(d), dist[d - 1]);
                    }
                    row.setInt(Stock.S_YTD, 0);
                    row.setInt(Stock.S_ORDER_CNT, 0);
                    row.setInt(Stock.S_REMOTE_CNT, 0);
                    row.setString(Stock.S_DATA, data);
                });
            }
            sink.accept(batch);
        }
    }

    private void district(TpccRandom r, int w, int d, Consumer<RowBatch> sink) {
        sink.accept(districtRow(r, w, d));
        customers(r, w, d, sink);
        orders(r, w, d, sink);
    }

    private RowBatch districtRow(TpccRandom r, int w, int d) {
        RowBatch batch = new RowBatch("district w=" + w + " d=" + d);
        NameAndAddress address = NameAndAddress.draw(r);
        batch.add(LoadTables.DISTRICT, row -> {
            row.setInt(District.D_ID, d);
            row.setInt(District.D_W_ID, w);
            address.writeTo(row, District.D_NAME);
            row.setInt(District.D_TAX, address.tax());
            row.setMoney(District.D_YTD, DISTRICT_YTD);
            row.setInt(District.D_NEXT_O_ID, NEXT_ORDER_ID);
        });
        return batch;
    }

    /** CUSTOMER rows with one HISTORY row each; exactly 10% of each district's customers have "BC" credit. */
    private void customers(TpccRandom r, int w, int d, Consumer<RowBatch> sink) {
        boolean[] badCredit = new boolean[CUSTOMERS_PER_DISTRICT + 1];
        int[] shuffled = r.permutation(CUSTOMERS_PER_DISTRICT);
        for (int k = 0; k < BAD_CREDIT_PER_DISTRICT; k++) {
            badCredit[shuffled[k]] = true;
        }
        long origin = historyOrigin(w, d);
        for (int first = 1; first <= CUSTOMERS_PER_DISTRICT; first += CUSTOMERS_PER_BATCH) {
            int last = Math.min(CUSTOMERS_PER_DISTRICT, first + CUSTOMERS_PER_BATCH - 1);
            RowBatch batch = new RowBatch("customer+history w=" + w + " d=" + d + " c=" + first + ".." + last);
            for (int c = first; c <= last; c++) {
                customer(r, w, d, c, badCredit[c], batch);
                history(r, w, d, c, origin, batch);
            }
            sink.accept(batch);
        }
    }

    private void customer(TpccRandom r, int w, int d, int c, boolean bc, RowBatch batch) {
        String last = LastNames.name(c <= 1_000 ? c - 1 : r.lastNameNumberLoad());
        String first = r.alphaString(8, 16);
        String street1 = r.alphaString(10, 20);
        String street2 = r.alphaString(10, 20);
        String city = r.alphaString(10, 20);
        String state = r.state();
        String zip = r.zip();
        String phone = r.numericString(16, 16);
        int discount = r.uniform(0, 5_000);
        String data = r.alphaString(300, 500);
        batch.add(LoadTables.CUSTOMER, row -> {
            row.setInt(Customer.C_ID, c);
            row.setInt(Customer.C_D_ID, d);
            row.setInt(Customer.C_W_ID, w);
            row.setString(Customer.C_FIRST, first);
            row.setString(Customer.C_MIDDLE, "OE");
            row.setString(Customer.C_LAST, last);
            row.setString(Customer.C_STREET_1, street1);
            row.setString(Customer.C_STREET_2, street2);
            row.setString(Customer.C_CITY, city);
            row.setString(Customer.C_STATE, state);
            row.setString(Customer.C_ZIP, zip);
            row.setString(Customer.C_PHONE, phone);
            row.setTimestamp(Customer.C_SINCE, loadTimeMicros);
            row.setString(Customer.C_CREDIT, bc ? "BC" : "GC");
            row.setMoney(Customer.C_CREDIT_LIM, CREDIT_LIMIT);
            row.setInt(Customer.C_DISCOUNT, discount);
            row.setMoney(Customer.C_BALANCE, INITIAL_BALANCE);
            row.setMoney(Customer.C_YTD_PAYMENT, INITIAL_YTD_PAYMENT);
            row.setInt(Customer.C_PAYMENT_CNT, 1);
            row.setInt(Customer.C_DELIVERY_CNT, 0);
            row.setString(Customer.C_DATA, data);
        });
    }

    private void history(TpccRandom r, int w, int d, int c, long origin, RowBatch batch) {
        String data = r.alphaString(12, 24);
        long id = History.id(origin, c);
        batch.add(LoadTables.HISTORY, row -> {
            row.setLong(History.H_ID, id);
            row.setInt(History.H_C_ID, c);
            row.setInt(History.H_C_D_ID, d);
            row.setInt(History.H_C_W_ID, w);
            row.setInt(History.H_D_ID, d);
            row.setInt(History.H_W_ID, w);
            row.setTimestamp(History.H_DATE, loadTimeMicros);
            row.setMoney(History.H_AMOUNT, HISTORY_AMOUNT);
            row.setString(History.H_DATA, data);
        });
    }

    /** ORDER rows with their ORDER-LINE rows and, from {@link #FIRST_NEW_ORDER} on, their NEW-ORDER row. */
    private void orders(TpccRandom r, int w, int d, Consumer<RowBatch> sink) {
        int[] customerOf = r.permutation(CUSTOMERS_PER_DISTRICT);
        for (int first = 1; first <= ORDERS_PER_DISTRICT; first += ORDERS_PER_BATCH) {
            int last = Math.min(ORDERS_PER_DISTRICT, first + ORDERS_PER_BATCH - 1);
            RowBatch batch = new RowBatch("order+order_line+new_order w=" + w + " d=" + d + " o=" + first + ".." + last);
            for (int o = first; o <= last; o++) {
                order(r, w, d, o, customerOf[o - 1], batch);
            }
            sink.accept(batch);
        }
    }

    private void order(TpccRandom r, int w, int d, int o, int c, RowBatch batch) {
        boolean delivered = o < FIRST_NEW_ORDER;
        int carrier = delivered ? r.uniform(1, 10) : 0;
        int lineCount = r.uniform(5, 15);
        batch.add(LoadTables.ORDER, row -> {
            row.setInt(Order.O_ID, o);
            row.setInt(Order.O_D_ID, d);
            row.setInt(Order.O_W_ID, w);
            row.setInt(Order.O_C_ID, c);
            row.setTimestamp(Order.O_ENTRY_D, loadTimeMicros);
            if (delivered) {
                row.setInt(Order.O_CARRIER_ID, carrier);
            } else {
                row.setNull(Order.O_CARRIER_ID);
            }
            row.setInt(Order.O_OL_CNT, lineCount);
            row.setInt(Order.O_ALL_LOCAL, 1);
        });
        for (int n = 1; n <= lineCount; n++) {
            int number = n;
            int item = r.uniform(1, LoadUnit.ITEMS);
            long amount = delivered ? 0 : r.fixed(1, 9_999_99);
            String distInfo = r.alphaString(24, 24);
            batch.add(LoadTables.ORDER_LINE, row -> {
                row.setInt(OrderLine.OL_O_ID, o);
                row.setInt(OrderLine.OL_D_ID, d);
                row.setInt(OrderLine.OL_W_ID, w);
                row.setInt(OrderLine.OL_NUMBER, number);
                row.setInt(OrderLine.OL_I_ID, item);
                row.setInt(OrderLine.OL_SUPPLY_W_ID, w);
                if (delivered) {
                    row.setTimestamp(OrderLine.OL_DELIVERY_D, loadTimeMicros);
                } else {
                    row.setNull(OrderLine.OL_DELIVERY_D);
                }
                row.setInt(OrderLine.OL_QUANTITY, 5);
                row.setMoney(OrderLine.OL_AMOUNT, amount);
                row.setString(OrderLine.OL_DIST_INFO, distInfo);
            });
        }
        if (!delivered) {
            batch.add(LoadTables.NEW_ORDER, row -> {
                row.setInt(NewOrder.NO_O_ID, o);
                row.setInt(NewOrder.NO_D_ID, d);
                row.setInt(NewOrder.NO_W_ID, w);
            });
        }
    }

    /**
     * Name, address and tax of a warehouse or district ([SPEC] 4.3.3.1): the same draws for both, and
     * the six text columns are consecutive in both tables (name, street 1, street 2, city, state, zip).
     */
    private record NameAndAddress(String name, String street1, String street2, String city, String state, String zip,
                                  int tax) {
        static NameAndAddress draw(TpccRandom r) {
            String name = r.alphaString(6, 10);
            String street1 = r.alphaString(10, 20);
            String street2 = r.alphaString(10, 20);
            String city = r.alphaString(10, 20);
            String state = r.state();
            String zip = r.zip();
            return new NameAndAddress(name, street1, street2, city, state, zip, r.uniform(0, 2_000));
        }

        void writeTo(io.selcc.storage.TupleView row, int nameColumn) {
            row.setString(nameColumn, name);
            row.setString(nameColumn + 1, street1);
            row.setString(nameColumn + 2, street2);
            row.setString(nameColumn + 3, city);
            row.setString(nameColumn + 4, state);
            row.setString(nameColumn + 5, zip);
        }
    }
}
