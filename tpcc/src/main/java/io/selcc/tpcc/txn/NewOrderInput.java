package io.selcc.tpcc.txn;

/**
 * New-Order input ([SPEC] 2.4.1): home warehouse and district, customer, and one entry per order
 * line in the three arrays (same length, 5..15). The 1% rollback case has an unused item id
 * ({@link InputGenerator#UNUSED_ITEM_ID}) as the last item. A line is remote when its supply
 * warehouse differs from {@code w}. {@code entryMicros} is O_ENTRY_D.
 */
public record NewOrderInput(int w, int d, int c, int[] itemIds, int[] supplyWarehouses, int[] quantities,
                            long entryMicros) {
    /** The most order lines an order has. */
    public static final int MAX_LINES = 15;

    public NewOrderInput {
        if (itemIds.length != supplyWarehouses.length || itemIds.length != quantities.length) {
            throw new IllegalArgumentException("order-line arrays differ in length: itemIds=" + itemIds.length
                + " supplyWarehouses=" + supplyWarehouses.length + " quantities=" + quantities.length);
        }
        if (itemIds.length < 1 || itemIds.length > MAX_LINES) {
            throw new IllegalArgumentException("order-line count out of range: olCnt=" + itemIds.length + " (1.."
                + MAX_LINES + ")");
        }
    }

    /** Number of order lines (O_OL_CNT). */
    public int lineCount() {
        return itemIds.length;
    }

    /** True if every line is supplied by the home warehouse (O_ALL_LOCAL = 1). */
    public boolean allLocal() {
        for (int s : supplyWarehouses) {
            if (s != w) {
                return false;
            }
        }
        return true;
    }
}
