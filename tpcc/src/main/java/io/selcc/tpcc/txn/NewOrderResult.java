package io.selcc.tpcc.txn;

import java.util.List;

/**
 * What the New-Order terminal shows ([SPEC] 2.4.3). When {@code rolledBack} the transaction was
 * aborted on the unused item ("Item number is not valid"): only the header fields (customer,
 * {@code orderId} as read from D_NEXT_O_ID) are meaningful, {@code lines} holds the valid items
 * processed before the rollback, and nothing was written.
 *
 * @param warehouseTax W_TAX in 1/10,000
 * @param districtTax D_TAX in 1/10,000
 * @param customerDiscount C_DISCOUNT in 1/10,000
 * @param totalCents Σ OL_AMOUNT × (1 − C_DISCOUNT) × (1 + W_TAX + D_TAX), rounded half up to a cent
 */
public record NewOrderResult(boolean rolledBack, int w, int d, int c, String customerLast, String customerCredit,
                             int customerDiscount, int warehouseTax, int districtTax, int orderId, long entryMicros,
                             int lineCount, long totalCents, List<Line> lines) {

    /**
     * One order line as shown: supply warehouse, item, name, quantity, S_QUANTITY after the update,
     * brand/generic ('B' if I_DATA and S_DATA both contain "ORIGINAL", else 'G'), I_PRICE, OL_AMOUNT.
     */
    public record Line(int supplyW, int itemId, String itemName, int quantity, int stockQuantity, char brandGeneric,
                       long priceCents, long amountCents) {
    }
}
