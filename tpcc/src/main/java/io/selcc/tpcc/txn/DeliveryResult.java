package io.selcc.tpcc.txn;

import java.util.List;

/**
 * What a Delivery did ([SPEC] 2.7.2.3: the result-file record): the orders delivered, one per
 * district that had a NEW-ORDER row, and how many of the ten districts were skipped for having none.
 */
public record DeliveryResult(int w, int carrierId, List<Delivered> orders, int skippedDistricts) {
    /** Number of orders delivered (= 10 − skippedDistricts). */
    public int delivered() {
        return orders.size();
    }

    /** One delivered order: district, O_ID, its customer and Σ OL_AMOUNT added to C_BALANCE. */
    public record Delivered(int d, int orderId, int customerId, long amountCents) {
    }
}
