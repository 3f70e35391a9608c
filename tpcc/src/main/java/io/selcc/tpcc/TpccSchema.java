package io.selcc.tpcc;

import io.selcc.engine.Database;
import io.selcc.engine.IndexDefinition;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.index.KeyComposer;
import io.selcc.storage.ColumnType;
import io.selcc.storage.Schema;

import java.util.List;

/**
 * The nine TPC-C tables ([SPEC] 1.3.1) with their primary keys and the indexes every access path
 * needs. Money is a long number of cents; tax and discount rates are ints in 1/10,000; timestamps are
 * microseconds since the epoch. Column positions are the constants below.
 *
 * <p>Keys are composed from fields that fit 63 bits ({@link KeyComposer}): warehouse 14 bits (up to
 * 16,383 warehouses), district 5, customer 17 (the spec's 96,000-id domain), order 24 (10,000,000),
 * order-line number 4, item 18 (200,000).
 */
public final class TpccSchema {
    private TpccSchema() {
    }

    static final int W_BITS = 14;
    static final int D_BITS = 5;
    static final int C_BITS = 17;
    static final int O_BITS = 24;
    static final int OL_BITS = 4;
    static final int I_BITS = 18;
    static final int LAST_NAME_BITS = 10;
    static final int HISTORY_SEQUENCE_BITS = 40;
    static final int HISTORY_ORIGIN_BITS = 23;

    public static final int MAX_WAREHOUSES = (1 << W_BITS) - 1;
    /** The largest order id a key holds (O_ID, NO_O_ID, OL_O_ID): the upper end of a per-district order range. */
    public static final int MAX_ORDER_ID = (1 << O_BITS) - 1;
    /** The largest customer id a key holds: the upper end of a per-district customer range. */
    public static final int MAX_CUSTOMER_ID = (1 << C_BITS) - 1;
    /** The largest OL_NUMBER ([SPEC] 1.3.1: at most 15 lines per order). */
    public static final int MAX_ORDER_LINE_NUMBER = (1 << OL_BITS) - 1;

    static final KeyComposer WAREHOUSE_KEY = KeyComposer.builder().field("w_id", W_BITS).build();
    static final KeyComposer DISTRICT_KEY = KeyComposer.builder().field("w_id", W_BITS).field("d_id", D_BITS).build();
    static final KeyComposer CUSTOMER_KEY = KeyComposer.builder().field("w_id", W_BITS).field("d_id", D_BITS)
        .field("c_id", C_BITS).build();
    static final KeyComposer CUSTOMER_LAST_KEY = KeyComposer.builder().field("w_id", W_BITS).field("d_id", D_BITS)
        .field("c_last", LAST_NAME_BITS).build();
    static final KeyComposer ORDER_KEY = KeyComposer.builder().field("w_id", W_BITS).field("d_id", D_BITS)
        .field("o_id", O_BITS).build();
    static final KeyComposer ORDER_CUSTOMER_KEY = KeyComposer.builder().field("w_id", W_BITS).field("d_id", D_BITS)
        .field("c_id", C_BITS).field("o_id", O_BITS).build();
    static final KeyComposer ORDER_LINE_KEY = KeyComposer.builder().field("w_id", W_BITS).field("d_id", D_BITS)
        .field("o_id", O_BITS).field("ol_number", OL_BITS).build();
    static final KeyComposer ITEM_KEY = KeyComposer.builder().field("i_id", I_BITS).build();
    static final KeyComposer STOCK_KEY = KeyComposer.builder().field("w_id", W_BITS).field("i_id", I_BITS).build();
    static final KeyComposer HISTORY_KEY = KeyComposer.builder().field("origin", HISTORY_ORIGIN_BITS)
        .field("sequence", HISTORY_SEQUENCE_BITS).build();

    /** WAREHOUSE: one GCL per row (hot). */
    public static final class Warehouse {
        public static final String TABLE = "warehouse";
        public static final int W_ID = 0, W_NAME = 1, W_STREET_1 = 2, W_STREET_2 = 3, W_CITY = 4, W_STATE = 5,
            W_ZIP = 6, W_TAX = 7, W_YTD = 8;
        static final Schema SCHEMA = Schema.builder().addInt("w_id").addVarchar("w_name", 10)
            .addVarchar("w_street_1", 20).addVarchar("w_street_2", 20).addVarchar("w_city", 20)
            .addChar("w_state", 2).addChar("w_zip", 9).addInt("w_tax").addMoney("w_ytd").build();

        public static long key(int w) {
            return WAREHOUSE_KEY.compose(w);
        }

        private Warehouse() {
        }
    }

    /** DISTRICT: one GCL per row (hot: D_NEXT_O_ID, D_YTD). */
    public static final class District {
        public static final String TABLE = "district";
        public static final int D_ID = 0, D_W_ID = 1, D_NAME = 2, D_STREET_1 = 3, D_STREET_2 = 4, D_CITY = 5,
            D_STATE = 6, D_ZIP = 7, D_TAX = 8, D_YTD = 9, D_NEXT_O_ID = 10;
        static final Schema SCHEMA = Schema.builder().addInt("d_id").addInt("d_w_id").addVarchar("d_name", 10)
            .addVarchar("d_street_1", 20).addVarchar("d_street_2", 20).addVarchar("d_city", 20)
            .addChar("d_state", 2).addChar("d_zip", 9).addInt("d_tax").addMoney("d_ytd").addInt("d_next_o_id")
            .build();

        public static long key(int w, int d) {
            return DISTRICT_KEY.compose(w, d);
        }

        private District() {
        }
    }

    public static final class Customer {
        public static final String TABLE = "customer";
        public static final String BY_LAST_NAME = "customer.by_last";
        public static final int C_ID = 0, C_D_ID = 1, C_W_ID = 2, C_FIRST = 3, C_MIDDLE = 4, C_LAST = 5,
            C_STREET_1 = 6, C_STREET_2 = 7, C_CITY = 8, C_STATE = 9, C_ZIP = 10, C_PHONE = 11, C_SINCE = 12,
            C_CREDIT = 13, C_CREDIT_LIM = 14, C_DISCOUNT = 15, C_BALANCE = 16, C_YTD_PAYMENT = 17,
            C_PAYMENT_CNT = 18, C_DELIVERY_CNT = 19, C_DATA = 20;
        static final Schema SCHEMA = Schema.builder().addInt("c_id").addInt("c_d_id").addInt("c_w_id")
            .addVarchar("c_first", 16).addChar("c_middle", 2).addVarchar("c_last", 16)
            .addVarchar("c_street_1", 20).addVarchar("c_street_2", 20).addVarchar("c_city", 20)
            .addChar("c_state", 2).addChar("c_zip", 9).addChar("c_phone", 16).addTimestamp("c_since")
            .addChar("c_credit", 2).addMoney("c_credit_lim").addInt("c_discount").addMoney("c_balance")
            .addMoney("c_ytd_payment").addInt("c_payment_cnt").addInt("c_delivery_cnt").addVarchar("c_data", 500)
            .build();

        public static long key(int w, int d, int c) {
            return CUSTOMER_KEY.compose(w, d, c);
        }

        /** Key of the by-last-name index: (w, d, number of the last name 0..999). */
        public static long lastNameKey(int w, int d, int lastNameNumber) {
            return CUSTOMER_LAST_KEY.compose(w, d, lastNameNumber);
        }

        private Customer() {
        }
    }

    /** HISTORY has no primary key in the spec; H_ID is a surrogate (origin, sequence) so the engine can store it. */
    public static final class History {
        public static final String TABLE = "history";
        public static final int H_ID = 0, H_C_ID = 1, H_C_D_ID = 2, H_C_W_ID = 3, H_D_ID = 4, H_W_ID = 5,
            H_DATE = 6, H_AMOUNT = 7, H_DATA = 8;
        static final Schema SCHEMA = Schema.builder().addLong("h_id").addInt("h_c_id").addInt("h_c_d_id")
            .addInt("h_c_w_id").addInt("h_d_id").addInt("h_w_id").addTimestamp("h_date").addMoney("h_amount")
            .addVarchar("h_data", 24).build();

        /**
         * Origins of H_ID: terminals (TpccTransactions instances) use origins below this, the loader this
         * and above, so a run never collides with the loaded rows.
         */
        public static final long LOADER_ORIGIN_BASE = 1L << 22;

        /** A history id unique per (origin, sequence); each loader or terminal thread is its own origin. */
        public static long id(long origin, long sequence) {
            return HISTORY_KEY.compose(origin, sequence);
        }

        private History() {
        }
    }

    public static final class NewOrder {
        public static final String TABLE = "new_order";
        public static final int NO_O_ID = 0, NO_D_ID = 1, NO_W_ID = 2;
        static final Schema SCHEMA = Schema.builder().addInt("no_o_id").addInt("no_d_id").addInt("no_w_id").build();

        public static long key(int w, int d, int o) {
            return ORDER_KEY.compose(w, d, o);
        }

        private NewOrder() {
        }
    }

    public static final class Order {
        public static final String TABLE = "oorder";
        public static final String BY_CUSTOMER = "oorder.by_customer";
        public static final int O_ID = 0, O_D_ID = 1, O_W_ID = 2, O_C_ID = 3, O_ENTRY_D = 4, O_CARRIER_ID = 5,
            O_OL_CNT = 6, O_ALL_LOCAL = 7;
        static final Schema SCHEMA = Schema.builder().addInt("o_id").addInt("o_d_id").addInt("o_w_id")
            .addInt("o_c_id").addTimestamp("o_entry_d").add("o_carrier_id", ColumnType.INT, 0, true)
            .addInt("o_ol_cnt").addInt("o_all_local").build();

        public static long key(int w, int d, int o) {
            return ORDER_KEY.compose(w, d, o);
        }

        /** Key of the by-customer index: (w, d, c, o); the customer's last order is the highest. */
        public static long customerKey(int w, int d, int c, int o) {
            return ORDER_CUSTOMER_KEY.compose(w, d, c, o);
        }

        private Order() {
        }
    }

    public static final class OrderLine {
        public static final String TABLE = "order_line";
        public static final int OL_O_ID = 0, OL_D_ID = 1, OL_W_ID = 2, OL_NUMBER = 3, OL_I_ID = 4,
            OL_SUPPLY_W_ID = 5, OL_DELIVERY_D = 6, OL_QUANTITY = 7, OL_AMOUNT = 8, OL_DIST_INFO = 9;
        static final Schema SCHEMA = Schema.builder().addInt("ol_o_id").addInt("ol_d_id").addInt("ol_w_id")
            .addInt("ol_number").addInt("ol_i_id").addInt("ol_supply_w_id")
            .add("ol_delivery_d", ColumnType.TIMESTAMP, 0, true).addInt("ol_quantity").addMoney("ol_amount")
            .addChar("ol_dist_info", 24).build();

        public static long key(int w, int d, int o, int number) {
            return ORDER_LINE_KEY.compose(w, d, o, number);
        }

        private OrderLine() {
        }
    }

    public static final class Item {
        public static final String TABLE = "item";
        public static final int I_ID = 0, I_IM_ID = 1, I_NAME = 2, I_PRICE = 3, I_DATA = 4;
        static final Schema SCHEMA = Schema.builder().addInt("i_id").addInt("i_im_id").addVarchar("i_name", 24)
            .addMoney("i_price").addVarchar("i_data", 50).build();

        public static long key(int i) {
            return ITEM_KEY.compose(i);
        }

        private Item() {
        }
    }

    public static final class Stock {
        public static final String TABLE = "stock";
        public static final int S_I_ID = 0, S_W_ID = 1, S_QUANTITY = 2, S_DIST_01 = 3, S_YTD = 13,
            S_ORDER_CNT = 14, S_REMOTE_CNT = 15, S_DATA = 16;
        /** Length of each S_DIST_xx (and of OL_DIST_INFO, which copies one). */
        public static final int DIST_INFO_LENGTH = 24;
        static final Schema SCHEMA = stockSchema();

        private static Schema stockSchema() {
            Schema.Builder b = Schema.builder().addInt("s_i_id").addInt("s_w_id").addInt("s_quantity");
            for (int d = 1; d <= 10; d++) {
                b.addChar(String.format("s_dist_%02d", d), DIST_INFO_LENGTH);
            }
            return b.addInt("s_ytd").addInt("s_order_cnt").addInt("s_remote_cnt").addVarchar("s_data", 50).build();
        }

        public static long key(int w, int i) {
            return STOCK_KEY.compose(w, i);
        }

        /** Column of S_DIST_xx for district {@code d} (1..10). */
        public static int distColumn(int d) {
            return S_DIST_01 + d - 1;
        }

        private Stock() {
        }
    }

    /** The partition number of fully-shared mode: one set of tables, every node reads and writes all of it. */
    public static final int SHARED = -1;

    /**
     * The name of table (or index) {@code base} in {@code partition}'s set: partitioned mode gives each
     * compute node tables of its own ({@code stock@1}), so no GCL (heap page or B-link node) is ever
     * shared between partitions; {@link #SHARED} keeps the plain name.
     */
    public static String name(String base, int partition) {
        return partition == SHARED ? base : base + "@" + partition;
    }

    /**
     * The compute node that owns warehouse {@code w} in partitioned mode with {@code partitions} nodes:
     * round robin, so every node owns about as many warehouses.
     */
    public static int owner(int w, int partitions) {
        return (w - 1) % partitions;
    }

    /** {@link #tables(int)} of fully-shared mode. */
    public static List<TableDefinition> tables() {
        return tables(SHARED);
    }

    /**
     * All table definitions of one partition's set ({@link #SHARED}: the only set), with their primary keys.
     * ITEM and HISTORY are insert-only: no transaction profile updates or deletes them ([SPEC] 2.4-2.8),
     * and TO then reads ITEM without writing read timestamps into pages every node reads.
     */
    public static List<TableDefinition> tables(int partition) {
        return List.of(
            TableDefinition.of(name(Warehouse.TABLE, partition), Warehouse.SCHEMA, r -> Warehouse.key(r.getInt(Warehouse.W_ID)))
                .withOnePerPage(),
            TableDefinition.of(name(District.TABLE, partition), District.SCHEMA,
                r -> District.key(r.getInt(District.D_W_ID), r.getInt(District.D_ID))).withOnePerPage(),
            TableDefinition.of(name(Customer.TABLE, partition), Customer.SCHEMA,
                r -> Customer.key(r.getInt(Customer.C_W_ID), r.getInt(Customer.C_D_ID), r.getInt(Customer.C_ID))),
            TableDefinition.of(name(History.TABLE, partition), History.SCHEMA, r -> r.getLong(History.H_ID)).withInsertOnly(),
            TableDefinition.of(name(NewOrder.TABLE, partition), NewOrder.SCHEMA,
                r -> NewOrder.key(r.getInt(NewOrder.NO_W_ID), r.getInt(NewOrder.NO_D_ID), r.getInt(NewOrder.NO_O_ID))),
            TableDefinition.of(name(Order.TABLE, partition), Order.SCHEMA,
                r -> Order.key(r.getInt(Order.O_W_ID), r.getInt(Order.O_D_ID), r.getInt(Order.O_ID))),
            TableDefinition.of(name(OrderLine.TABLE, partition), OrderLine.SCHEMA,
                r -> OrderLine.key(r.getInt(OrderLine.OL_W_ID), r.getInt(OrderLine.OL_D_ID),
                    r.getInt(OrderLine.OL_O_ID), r.getInt(OrderLine.OL_NUMBER))),
            TableDefinition.of(name(Item.TABLE, partition), Item.SCHEMA, r -> Item.key(r.getInt(Item.I_ID))).withInsertOnly(),
            TableDefinition.of(name(Stock.TABLE, partition), Stock.SCHEMA,
                r -> Stock.key(r.getInt(Stock.S_W_ID), r.getInt(Stock.S_I_ID))));
    }

    /** {@link #indexes(int)} of fully-shared mode. */
    public static List<IndexDefinition> indexes() {
        return indexes(SHARED);
    }

    /**
     * The secondary indexes of one partition's set: customers by last name, orders by customer. Neither
     * is declared unique: orders by customer is keyed (W, D, C, O_ID), which ORDER's primary key (W, D,
     * O_ID) already makes unique, and a unique index costs each insert a lookup of its key (one leaf
     * latch, a cold leaf at a random customer) to check what cannot fail.
     */
    public static List<IndexDefinition> indexes(int partition) {
        return List.of(
            new IndexDefinition(name(Customer.BY_LAST_NAME, partition), name(Customer.TABLE, partition), false,
                r -> Customer.lastNameKey(r.getInt(Customer.C_W_ID), r.getInt(Customer.C_D_ID),
                    LastNames.number(r, Customer.C_LAST))),
            new IndexDefinition(name(Order.BY_CUSTOMER, partition), name(Order.TABLE, partition), false,
                r -> Order.customerKey(r.getInt(Order.O_W_ID), r.getInt(Order.O_D_ID), r.getInt(Order.O_C_ID),
                    r.getInt(Order.O_ID))));
    }

    /** Adds every table and index of fully-shared mode to a database builder. */
    public static Database.Builder define(Database.Builder builder) {
        return define(builder, 0);
    }

    /**
     * Adds every table and index to a database builder: one set for fully-shared mode ({@code partitions}
     * 0), or one set per partition, each with its own copy of ITEM (read-only, so replicated).
     */
    public static Database.Builder define(Database.Builder builder, int partitions) {
        if (partitions < 0) {
            throw new IllegalArgumentException("partitions must be >= 0: " + partitions);
        }
        if (partitions == 0) {
            tables(SHARED).forEach(builder::table);
            indexes(SHARED).forEach(builder::index);
            return builder;
        }
        for (int p = 0; p < partitions; p++) {
            tables(p).forEach(builder::table);
            indexes(p).forEach(builder::index);
        }
        return builder;
    }
}
