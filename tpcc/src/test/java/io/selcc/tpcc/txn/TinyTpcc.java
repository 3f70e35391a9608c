package io.selcc.tpcc.txn;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Transaction;
import io.selcc.storage.TupleView;
import io.selcc.tpcc.LastNames;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.Item;
import io.selcc.tpcc.TpccSchema.NewOrder;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.OrderLine;
import io.selcc.tpcc.TpccSchema.Stock;
import io.selcc.tpcc.TpccSchema.Warehouse;

import java.util.function.Consumer;

/**
 * A hand-made TPC-C database small enough to compute every effect by hand (no loader).
 *
 * <pre>
 * WAREHOUSE  1 "Wone" W_TAX 10.00%   2 "Wtwo" W_TAX 5.00%      W_YTD 300,000.00
 * DISTRICT   (w, 1..10) "D&lt;d&gt;" D_TAX 5.00%, D_YTD 30,000.00; D_NEXT_O_ID (1,1)=4 (1,2)=2, others 1
 * ITEM       1..6, price 10.00 2.50 99.99 5.00 0.01 123.45; only item 1's I_DATA has "ORIGINAL"
 * STOCK      w1: 50 12 15 9 100 11 (item 1 S_DATA has "ORIGINAL"); w2: 30 each; S_DIST_dd = "S&lt;w&gt;_&lt;i&gt;_&lt;dd&gt;"
 * CUSTOMER   (1,1): c1 Alice BARBARBAR GC 10%, c2 Carol / c3 Alan / c4 Bob PRICALLYOUGHT (c4 BC, 490-char C_DATA)
 *            (1,2): c1 Dan / c2 Ann / c3 Cid / c4 Bea PRICALLYOUGHT
 *            (1,3): c1 Fay BARBARBAR (no orders)                        (2,1): c1 Eve BARBARBAR
 *            all: C_BALANCE -10.00, C_YTD_PAYMENT 10.00, C_PAYMENT_CNT 1, C_DELIVERY_CNT 0
 * ORDER      (1,1,1) c1 carrier 3, lines item1 x5 0.00, item2 x5 0.00, delivered at 1,000
 *            (1,1,2) c1 lines item3 x2 20.00, item4 x1 5.00                    NEW-ORDER
 *            (1,1,3) c4 lines item5 x3 7.50, item2 x1 2.50                     NEW-ORDER
 *            (1,2,1) c1 lines item1 1.00, item2 2.00, item6 3.00               NEW-ORDER
 * </pre>
 */
final class TinyTpcc {
    static final int LAST_371 = 371;
    static final String BOB_DATA = "x".repeat(490);

    private TinyTpcc() {
    }

    static Database open(String cc) {
        return TpccSchema.define(Database.builder().computeNodes(2).memoryPerNode(32L << 20).cc(cc)).build();
    }

    static void load(DatabaseNode node) {
        run(node, tx -> {
            for (int w = 1; w <= 2; w++) {
                int ww = w;
                insert(node, tx, Warehouse.TABLE, r -> {
                    r.setInt(Warehouse.W_ID, ww);
                    r.setString(Warehouse.W_NAME, ww == 1 ? "Wone" : "Wtwo");
                    r.setString(Warehouse.W_STATE, "CA");
                    r.setString(Warehouse.W_ZIP, "123411111");
                    r.setInt(Warehouse.W_TAX, ww == 1 ? 1000 : 500);
                    r.setMoney(Warehouse.W_YTD, 300_000_00);
                });
                for (int d = 1; d <= 10; d++) {
                    int dd = d;
                    int next = ww == 1 && d == 1 ? 4 : ww == 1 && d == 2 ? 2 : 1;
                    insert(node, tx, District.TABLE, r -> {
                        r.setInt(District.D_ID, dd);
                        r.setInt(District.D_W_ID, ww);
                        r.setString(District.D_NAME, "D" + dd);
                        r.setInt(District.D_TAX, 500);
                        r.setMoney(District.D_YTD, 30_000_00);
                        r.setInt(District.D_NEXT_O_ID, next);
                    });
                }
            }
            long[] prices = {10_00, 2_50, 99_99, 5_00, 1, 123_45};
            int[] w1Quantities = {50, 12, 15, 9, 100, 11};
            for (int i = 1; i <= 6; i++) {
                int ii = i;
                insert(node, tx, Item.TABLE, r -> {
                    r.setInt(Item.I_ID, ii);
                    r.setInt(Item.I_IM_ID, ii);
                    r.setString(Item.I_NAME, "item" + ii);
                    r.setMoney(Item.I_PRICE, prices[ii - 1]);
                    r.setString(Item.I_DATA, ii == 1 ? "abcORIGINALdef" : "plain item data");
                });
                for (int w = 1; w <= 2; w++) {
                    int ww = w;
                    insert(node, tx, Stock.TABLE, r -> {
                        r.setInt(Stock.S_I_ID, ii);
                        r.setInt(Stock.S_W_ID, ww);
                        r.setInt(Stock.S_QUANTITY, ww == 1 ? w1Quantities[ii - 1] : 30);
                        for (int d = 1; d <= 10; d++) {
                            r.setString(Stock.distColumn(d), distInfo(ww, ii, d));
                        }
                        r.setString(Stock.S_DATA, ii == 1 ? "stockORIGINALdata" : "plain stock data");
                    });
                }
            }
            customer(node, tx, 1, 1, 1, "Alice", 0, "GC", 1000, "alice data");
            customer(node, tx, 1, 1, 2, "Carol", LAST_371, "GC", 0, "carol data");
            customer(node, tx, 1, 1, 3, "Alan", LAST_371, "GC", 0, "alan data");
            customer(node, tx, 1, 1, 4, "Bob", LAST_371, "BC", 2500, BOB_DATA);
            customer(node, tx, 1, 2, 1, "Dan", LAST_371, "GC", 0, "dan data");
            customer(node, tx, 1, 2, 2, "Ann", LAST_371, "GC", 0, "ann data");
            customer(node, tx, 1, 2, 3, "Cid", LAST_371, "GC", 0, "cid data");
            customer(node, tx, 1, 2, 4, "Bea", LAST_371, "GC", 0, "bea data");
            customer(node, tx, 1, 3, 1, "Fay", 0, "GC", 0, "fay data");
            customer(node, tx, 2, 1, 1, "Eve", 0, "GC", 0, "eve data");

            order(node, tx, 1, 1, 1, 1, 3, 1_000, new int[] {1, 2}, new int[] {5, 5}, new long[] {0, 0});
            order(node, tx, 1, 1, 2, 1, 0, 2_000, new int[] {3, 4}, new int[] {2, 1}, new long[] {20_00, 5_00});
            order(node, tx, 1, 1, 3, 4, 0, 3_000, new int[] {5, 2}, new int[] {3, 1}, new long[] {7_50, 2_50});
            order(node, tx, 1, 2, 1, 1, 0, 4_000, new int[] {1, 2, 6}, new int[] {1, 1, 1},
                new long[] {1_00, 2_00, 3_00});
            return null;
        });
    }

    static String distInfo(int w, int i, int d) {
        return String.format("S%d_%d_%02d", w, i, d);
    }

    private static void customer(DatabaseNode node, Transaction tx, int w, int d, int c, String first, int last,
                                 String credit, int discount, String data) {
        insert(node, tx, Customer.TABLE, r -> {
            r.setInt(Customer.C_ID, c);
            r.setInt(Customer.C_D_ID, d);
            r.setInt(Customer.C_W_ID, w);
            r.setString(Customer.C_FIRST, first);
            r.setString(Customer.C_MIDDLE, "OE");
            r.setString(Customer.C_LAST, LastNames.name(last));
            r.setString(Customer.C_CREDIT, credit);
            r.setMoney(Customer.C_CREDIT_LIM, 50_000_00);
            r.setInt(Customer.C_DISCOUNT, discount);
            r.setMoney(Customer.C_BALANCE, -10_00);
            r.setMoney(Customer.C_YTD_PAYMENT, 10_00);
            r.setInt(Customer.C_PAYMENT_CNT, 1);
            r.setString(Customer.C_DATA, data);
        });
    }

    /** An order with its lines; carrier 0 = undelivered (then also a NEW-ORDER row). */
    private static void order(DatabaseNode node, Transaction tx, int w, int d, int o, int c, int carrier, long entry,
                              int[] items, int[] quantities, long[] amounts) {
        insert(node, tx, Order.TABLE, r -> {
            r.setInt(Order.O_ID, o);
            r.setInt(Order.O_D_ID, d);
            r.setInt(Order.O_W_ID, w);
            r.setInt(Order.O_C_ID, c);
            r.setTimestamp(Order.O_ENTRY_D, entry);
            if (carrier != 0) {
                r.setInt(Order.O_CARRIER_ID, carrier);
            }
            r.setInt(Order.O_OL_CNT, items.length);
            r.setInt(Order.O_ALL_LOCAL, 1);
        });
        for (int n = 1; n <= items.length; n++) {
            int nn = n;
            insert(node, tx, OrderLine.TABLE, r -> {
                r.setInt(OrderLine.OL_O_ID, o);
                r.setInt(OrderLine.OL_D_ID, d);
                r.setInt(OrderLine.OL_W_ID, w);
                r.setInt(OrderLine.OL_NUMBER, nn);
                r.setInt(OrderLine.OL_I_ID, items[nn - 1]);
                r.setInt(OrderLine.OL_SUPPLY_W_ID, w);
                if (carrier != 0) {
                    r.setTimestamp(OrderLine.OL_DELIVERY_D, entry);
                }
                r.setInt(OrderLine.OL_QUANTITY, quantities[nn - 1]);
                r.setMoney(OrderLine.OL_AMOUNT, amounts[nn - 1]);
                r.setString(OrderLine.OL_DIST_INFO, distInfo(w, items[nn - 1], d));
            });
        }
        if (carrier == 0) {
            insert(node, tx, NewOrder.TABLE, r -> {
                r.setInt(NewOrder.NO_O_ID, o);
                r.setInt(NewOrder.NO_D_ID, d);
                r.setInt(NewOrder.NO_W_ID, w);
            });
        }
    }

    private static void insert(DatabaseNode node, Transaction tx, String table, Consumer<TupleView> writer) {
        if (!tx.insert(node.table(table), writer)) {
            throw new IllegalStateException("duplicate in the fixture: table=" + table);
        }
    }

    /** Runs {@code body} in one transaction, committing it unless the body ended it; fails on a conflict. */
    static <T> T run(DatabaseNode node, java.util.function.Function<Transaction, T> body) {
        // Conflict aborts are retried (a few times): even with nothing else running, a no-wait latch
        // can be refused right after concurrent work, e.g. inside a reader window that a starving
        // writer opened. A body that ends the transaction itself (a New-Order rollback) keeps its value.
        for (int attempt = 1; ; attempt++) {
            Transaction tx = node.begin();
            try {
                T value = body.apply(tx);
                if (tx.isActive()) {
                    var outcome = tx.commit();
                    if (!outcome.committed()) {
                        if (outcome.reason().isRetryable() && attempt < 100) {
                            java.util.concurrent.locks.LockSupport.parkNanos(attempt * 100_000L);
                            continue;
                        }
                        throw new AssertionError("commit failed: outcome=" + outcome);
                    }
                }
                return value;
            } catch (io.selcc.engine.cc.AbortException e) {
                if (!e.reason().isRetryable() || attempt >= 100) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(attempt * 100_000L); // outlast a hold-off
            } finally {
                tx.close();
            }
        }
    }

    static TupleView read(DatabaseNode node, String table, long key) {
        return run(node, tx -> tx.get(node.table(table), key));
    }
}
