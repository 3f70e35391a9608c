package io.selcc.tpcc.txn;

import java.util.List;

/**
 * What the Order-Status terminal shows ([SPEC] 2.6.3): the customer, and its order with the largest
 * O_ID and that order's lines. {@code orderId} is 0 (and {@code lines} empty) if the customer has no
 * order. {@code carrierId} is null while the order is undelivered.
 */
public record OrderStatusResult(int customerId, String first, String middle, String last, long balance,
                                int orderId, long entryMicros, Integer carrierId, List<Line> lines) {
    public int lineCount() {
        return lines.size();
    }

    /** OL_I_ID, OL_SUPPLY_W_ID, OL_QUANTITY, OL_AMOUNT and OL_DELIVERY_D (null while undelivered). */
    public record Line(int number, int itemId, int supplyW, int quantity, long amountCents, Long deliveryMicros) {
    }
}
