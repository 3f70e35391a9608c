package io.selcc.tpcc.txn;

/** The five TPC-C transaction types. */
public enum TxnType {
    NEW_ORDER("NewOrder"),
    PAYMENT("Payment"),
    ORDER_STATUS("OrderStatus"),
    DELIVERY("Delivery"),
    STOCK_LEVEL("StockLevel");

    private final String jsonName;

    TxnType(String jsonName) {
        this.jsonName = jsonName;
    }

    /** The name used in result files: "NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel". */
    public String jsonName() {
        return jsonName;
    }
}
