package io.selcc.tpcc.txn;

/**
 * What the Payment terminal shows ([SPEC] 2.5.3), with the customer's values after the update.
 * {@code customerData} is the first 200 characters of C_DATA for a "BC" customer, else null.
 * {@code historyId} is the surrogate H_ID of the inserted HISTORY row.
 */
public record PaymentResult(int customerId, int customerW, int customerD, String first, String middle, String last,
                            String credit, long creditLimitCents, int discount, long newBalance, long ytdPayment,
                            int paymentCount, String customerData, long amountCents, long historyId) {
}
