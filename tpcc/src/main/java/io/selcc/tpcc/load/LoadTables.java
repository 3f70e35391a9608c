package io.selcc.tpcc.load;

import io.selcc.tpcc.TpccSchema;

/** The nine tables by a small index, so batches and progress counters can use arrays. */
final class LoadTables {
    static final int ITEM = 0, WAREHOUSE = 1, STOCK = 2, DISTRICT = 3, CUSTOMER = 4, HISTORY = 5, ORDER = 6,
        ORDER_LINE = 7, NEW_ORDER = 8;
    static final String[] NAMES = {TpccSchema.Item.TABLE, TpccSchema.Warehouse.TABLE, TpccSchema.Stock.TABLE,
        TpccSchema.District.TABLE, TpccSchema.Customer.TABLE, TpccSchema.History.TABLE, TpccSchema.Order.TABLE,
        TpccSchema.OrderLine.TABLE, TpccSchema.NewOrder.TABLE};
    static final int COUNT = NAMES.length;

    private LoadTables() {
    }
}
