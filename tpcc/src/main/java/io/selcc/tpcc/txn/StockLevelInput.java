package io.selcc.tpcc.txn;

/** Stock-Level input ([SPEC] 2.8.1): the terminal's fixed (w, d) and the threshold (10..20). */
public record StockLevelInput(int w, int d, int threshold) {
}
