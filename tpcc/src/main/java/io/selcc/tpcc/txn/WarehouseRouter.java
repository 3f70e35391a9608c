package io.selcc.tpcc.txn;

import io.selcc.engine.RowReader;
import io.selcc.engine.RowVisitor;
import io.selcc.storage.TupleView;

import java.util.function.Consumer;

/**
 * The routing layer between the TPC-C transaction profiles and the data, for the rows of a warehouse
 * other than the terminal's own (New-Order's remote supply warehouses, Payment's remote customers). In
 * fully-shared mode there is none: every warehouse's rows are in the one set of tables and SELCC keeps
 * the caches coherent. In partitioned mode a warehouse another compute node owns is reached through
 * that node (the work is shipped to it and commits by two-phase commit). Tables and indexes are named
 * by their base names ({@code TpccSchema.Stock.TABLE}); the router knows each partition's.
 */
public interface WarehouseRouter {
    /** Whether warehouse {@code w}'s rows are in this transaction's own tables. */
    boolean isLocal(int w);

    /** Reads the row of {@code table} with primary key {@code key} of warehouse {@code w}; false if there is none. */
    boolean read(String table, int w, long key, RowReader reader);

    /** Updates that row; false if there is none. */
    boolean update(String table, int w, long key, Consumer<TupleView> updater);

    /** Up to {@code limit} rows of {@code index} of warehouse {@code w} in [low, high], in key order. */
    int scan(String index, int w, long low, long high, int limit, RowVisitor visitor);
}
