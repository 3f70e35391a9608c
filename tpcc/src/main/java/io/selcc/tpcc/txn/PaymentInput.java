package io.selcc.tpcc.txn;

/**
 * Payment input ([SPEC] 2.5.1): the paying warehouse and district ({@code w}, {@code d}), the
 * customer's warehouse and district, and the customer either by id ({@code byLastName} false,
 * {@code customerId} used) or by last name ({@code lastNameNumber} 0..999 used). The unused one is
 * 0 ({@code customerId}) or -1 ({@code lastNameNumber}) when generated. The amount is in cents
 * (100..500,000); {@code dateMicros} is H_DATE.
 */
public record PaymentInput(int w, int d, int customerW, int customerD, boolean byLastName, int customerId,
                           int lastNameNumber, long amountCents, long dateMicros) {
}
