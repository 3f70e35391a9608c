package io.selcc.tpcc.txn;

/**
 * What Stock-Level shows ([SPEC] 2.8.3): the number of distinct items of the district's last 20
 * orders whose home-warehouse stock is below the threshold.
 */
public record StockLevelResult(int w, int d, int threshold, int lowStock) {
}
