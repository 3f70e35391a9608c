package io.selcc.tpcc.txn;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The exact-arithmetic helpers of {@link TpccTransactions}. */
class TpccArithmeticTest {
    @Test
    void totalRoundsHalfUpToACent() {
        assertEquals(1, TpccTransactions.totalCents(1, 5000, 0, 0));          // 0.5 cent -> 1
        assertEquals(0, TpccTransactions.totalCents(1, 5001, 0, 0));          // 0.4999 -> 0
        assertEquals(80_21, TpccTransactions.totalCents(77_50, 1000, 1000, 500)); // 8021.25 -> 8021
        assertEquals(1_15, TpccTransactions.totalCents(1_00, 0, 1000, 500));  // exactly 1.15
        assertEquals(0, TpccTransactions.totalCents(0, 0, 2000, 2000));
        // The largest order: 15 lines × 10 × 999.99 at 0% discount and 20% + 20% tax does not overflow.
        assertEquals(209_997_90, TpccTransactions.totalCents(15 * 10 * 999_99L, 0, 2000, 2000));
    }

    @Test
    void stockQuantityRule() {
        assertEquals(96, TpccTransactions.stockQuantityAfter(15, 10));  // 15 < 10 + 10: 15 - 10 + 91
        assertEquals(10, TpccTransactions.stockQuantityAfter(20, 10));  // 20 >= 10 + 10: 20 - 10
        assertEquals(10, TpccTransactions.stockQuantityAfter(11, 1));   // boundary: minus
        assertEquals(100, TpccTransactions.stockQuantityAfter(10, 1));  // 10 < 11: 10 - 1 + 91
    }

    @Test
    void paymentDataFormat() {
        assertEquals("7 3 2 1 1 123.45 | ", TpccTransactions.paymentData(7, 3, 2, 1, 1, 123_45));
        assertEquals("1 1 1 1 1 1.05 | ", TpccTransactions.paymentData(1, 1, 1, 1, 1, 1_05));
    }
}
