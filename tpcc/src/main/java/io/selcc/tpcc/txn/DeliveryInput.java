package io.selcc.tpcc.txn;

/** Delivery input ([SPEC] 2.7.1): the warehouse, O_CARRIER_ID (1..10) and OL_DELIVERY_D. */
public record DeliveryInput(int w, int carrierId, long dateMicros) {
}
