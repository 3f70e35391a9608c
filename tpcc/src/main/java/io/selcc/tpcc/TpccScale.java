package io.selcc.tpcc;

/**
 * The spec's cardinalities ([SPEC] 1.2.1, 4.2.2, 4.3.3.1), in one place: the loader populates by
 * them, the input generator draws within them, the checker iterates over them.
 */
public final class TpccScale {
    private TpccScale() {
    }

    /** Districts per warehouse. */
    public static final int DISTRICTS = 10;
    /** Items (I_ID 1..ITEMS), and stock rows per warehouse. */
    public static final int ITEMS = 100_000;
    /** The I_ID domain ([SPEC] 1.3.1: 200,000 unique ids), of which {@link #ITEMS} are populated. */
    public static final int ITEM_ID_DOMAIN = 200_000;
    /** Customers per district (C_ID 1..3,000). */
    public static final int CUSTOMERS_PER_DISTRICT = 3_000;
    /** Orders per district at load time (O_ID 1..3,000). */
    public static final int ORDERS_PER_DISTRICT = 3_000;
    /** The last orders of each district loaded as new (undelivered) orders: O_ID 2,101..3,000. */
    public static final int NEW_ORDERS_PER_DISTRICT = 900;
}
