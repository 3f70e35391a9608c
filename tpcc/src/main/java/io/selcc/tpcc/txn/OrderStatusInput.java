package io.selcc.tpcc.txn;

/**
 * Order-Status input ([SPEC] 2.6.1): the customer of home warehouse {@code w}, district {@code d},
 * by id or by last name number (the unused one is 0 / -1 when generated).
 */
public record OrderStatusInput(int w, int d, boolean byLastName, int customerId, int lastNameNumber) {
}
