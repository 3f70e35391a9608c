package io.selcc.tpcc.load;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.History;
import io.selcc.tpcc.TpccSchema.Item;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.TpccSchema.Stock;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Test helper: a loaded one-warehouse database on two compute nodes, and content checksums. */
final class LoadedDatabase implements AutoCloseable {
    static final long SEED = 0x5EEDL;
    static final TpccRandom.Constants CONSTANTS = TpccRandom.Constants.random(SEED);

    final Database db;
    final LoadReport report;

    private LoadedDatabase(Database db, LoadReport report) {
        this.db = db;
        this.report = report;
    }

    static Database open(String cc) {
        return TpccSchema.define(Database.builder().cc(cc).computeNodes(2).cacheFrames(16_384)
            .memoryPerNode(512L << 20)).build();
    }

    static LoadedDatabase load(String cc, int warehouses, int threadsPerNode) {
        Database db = open(cc);
        try {
            LoadReport report = new TpccLoader(db, warehouses, SEED, CONSTANTS, threadsPerNode, System.out).load();
            return new LoadedDatabase(db, report);
        } catch (RuntimeException | Error e) {
            db.close();
            throw e;
        }
    }

    DatabaseNode node(int i) {
        return db.node(i);
    }

    @Override
    public void close() {
        db.close();
    }

    /**
     * Order-independent checksums of the loaded contents per table, leaving out the load's timestamp:
     * sums of C_DISCOUNT and S_QUANTITY and hashes of every drawn column by key.
     */
    static Map<String, Long> checksums(DatabaseNode node) {
        Map<String, Long> sums = new LinkedHashMap<>();
        long[] acc = new long[2];
        node.table(Customer.TABLE).heap().scan((rid, r) -> {
            acc[0] += r.getInt(Customer.C_DISCOUNT);
            acc[1] += LoadUnit.mix(Objects.hash(r.getInt(Customer.C_W_ID), r.getInt(Customer.C_D_ID),
                r.getInt(Customer.C_ID), r.getString(Customer.C_LAST), r.getString(Customer.C_FIRST),
                r.getString(Customer.C_CREDIT), r.getString(Customer.C_DATA), r.getString(Customer.C_PHONE)));
        });
        sums.put("sum(C_DISCOUNT)", acc[0]);
        sums.put("hash(customer)", acc[1]);
        acc[0] = 0;
        acc[1] = 0;
        node.table(Stock.TABLE).heap().scan((rid, r) -> {
            acc[0] += r.getInt(Stock.S_QUANTITY);
            acc[1] += LoadUnit.mix(Objects.hash(r.getInt(Stock.S_W_ID), r.getInt(Stock.S_I_ID),
                r.getString(Stock.S_DATA), r.getString(Stock.distColumn(7))));
        });
        sums.put("sum(S_QUANTITY)", acc[0]);
        sums.put("hash(stock)", acc[1]);
        sums.put("hash(item)", hash(node, Item.TABLE, r -> Objects.hash(r.getInt(Item.I_ID), r.getInt(Item.I_IM_ID),
            r.getMoney(Item.I_PRICE), r.getString(Item.I_NAME), r.getString(Item.I_DATA))));
        sums.put("hash(order)", hash(node, Order.TABLE, r -> Objects.hash(r.getInt(Order.O_D_ID), r.getInt(Order.O_ID),
            r.getInt(Order.O_C_ID), r.getInt(Order.O_OL_CNT), r.isNull(Order.O_CARRIER_ID) ? -1 : r.getInt(Order.O_CARRIER_ID))));
        sums.put("hash(order_line)", hash(node, OrderLine.TABLE, r -> Objects.hash(r.getInt(OrderLine.OL_D_ID),
            r.getInt(OrderLine.OL_O_ID), r.getInt(OrderLine.OL_NUMBER), r.getInt(OrderLine.OL_I_ID),
            r.getMoney(OrderLine.OL_AMOUNT), r.getString(OrderLine.OL_DIST_INFO))));
        sums.put("hash(history)", hash(node, History.TABLE, r -> Objects.hash(r.getLong(History.H_ID),
            r.getInt(History.H_C_ID), r.getString(History.H_DATA))));
        return sums;
    }

    private static long hash(DatabaseNode node, String table, java.util.function.ToIntFunction<io.selcc.storage.TupleView> rowHash) {
        long[] acc = new long[1];
        node.table(table).heap().scan((rid, r) -> acc[0] += LoadUnit.mix(rowHash.applyAsInt(r)));
        return acc[0];
    }

    /** Rows per table counted by scanning the heaps. */
    static Map<String, Long> scannedRowCounts(DatabaseNode node) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (String table : LoadTables.NAMES) {
            long[] n = new long[1];
            node.table(table).heap().scan((rid, r) -> n[0]++);
            counts.put(table, n[0]);
        }
        return counts;
    }
}
