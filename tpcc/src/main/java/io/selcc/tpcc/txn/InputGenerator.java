package io.selcc.tpcc.txn;

import io.selcc.tpcc.TpccScale;
import io.selcc.tpcc.TpccRandom;

/**
 * Terminal input for the five transactions ([SPEC] 2.4.1, 2.5.1, 2.6.1, 2.7.1, 2.8.1), drawn from one
 * {@link TpccRandom}. Not thread-safe: one per terminal thread, like its random source. The same seed
 * and call sequence give the same inputs.
 */
public final class InputGenerator {
    /** The item id used for New-Order's 1% rollback: outside I_ID's populated 1..100,000. */
    public static final int UNUSED_ITEM_ID = TpccScale.ITEMS + 1;
    /** The unused {@code customerId} of a by-name input. */
    public static final int NO_CUSTOMER_ID = 0;
    /** The unused {@code lastNameNumber} of a by-id input. */
    public static final int NO_LAST_NAME = -1;

    private final TpccRandom random;
    /** With {@link #crossPartition}: the compute nodes the warehouses are spread over, and the share; else -1. */
    private int partitions = -1;
    private int crossPercent = -1;
    private final int warehouses;

    /** @param warehouses the active warehouses, 1..W; remote choices range over them */
    public InputGenerator(TpccRandom random, int warehouses) {
        if (warehouses < 1) {
            throw new IllegalArgumentException("need at least one warehouse: warehouses=" + warehouses);
        }
        this.random = random;
        this.warehouses = warehouses;
    }

    /**
     * [SPEC] 2.4.1: district 1..10, C_ID = NURand(1023, 1, 3000), 5..15 lines with NURand(8191, 1,
     * 100000) items, quantity 1..10, each line supplied remotely with probability 1% (when W > 1), and
     * with probability 1% (rbk = 1) the last item is {@link #UNUSED_ITEM_ID}.
     */
    public NewOrderInput newOrder(int homeW, long nowMicros) {
        checkWarehouse(homeW);
        int d = random.uniform(1, TpccScale.DISTRICTS);
        int c = random.customerId();
        int olCnt = random.uniform(5, 15);
        int rbk = random.uniform(1, 100);
        int[] items = new int[olCnt];
        int[] supply = new int[olCnt];
        int[] quantities = new int[olCnt];
        for (int i = 0; i < olCnt; i++) {
            items[i] = i == olCnt - 1 && rbk == 1 ? UNUSED_ITEM_ID : random.itemId();
            if (crossPercent < 0) {
                int x = random.uniform(1, 100);
                supply[i] = x == 1 && warehouses > 1 ? otherWarehouse(homeW) : homeW;
            } else {
                supply[i] = homeW;
            }
            quantities[i] = random.uniform(1, 10);
        }
        if (crossPercent >= 0 && random.uniform(1, 100) <= crossPercent) {
            supply[random.uniform(0, olCnt - 1)] = otherPartitionWarehouse(homeW);
        }
        return new NewOrderInput(homeW, d, c, items, supply, quantities, nowMicros);
    }

    /**
     * Replaces New-Order's remote lines ([SPEC] 2.4.1.5: each line remote with probability 1%) with the
     * partitioning experiment's knob: {@code percent}% of New-Orders have one line (at a random position)
     * supplied by a warehouse another of the {@code partitions} compute nodes owns
     * ({@link io.selcc.tpcc.TpccSchema#owner}), the others are all local. Fully-shared and partitioned mode
     * draw the same orders from the same seed. Call before the first input.
     *
     * @throws IllegalArgumentException if the percentage is outside 0..100, or a cross-partition order is
     *                                  asked for while one node owns every warehouse
     */
    public InputGenerator crossPartition(int partitions, int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("cross-partition share must be 0..100: " + percent);
        }
        if (partitions < 1 || percent > 0 && Math.min(partitions, warehouses) < 2) {
            throw new IllegalArgumentException("cross-partition orders need warehouses on two compute nodes or more:"
                + " partitions=" + partitions + " warehouses=" + warehouses);
        }
        this.partitions = partitions;
        this.crossPercent = percent;
        return this;
    }

    /** Uniform over the warehouses another partition than {@code homeW}'s owns. */
    private int otherPartitionWarehouse(int homeW) {
        int home = io.selcc.tpcc.TpccSchema.owner(homeW, partitions);
        int others = 0;
        for (int w = 1; w <= warehouses; w++) {
            if (io.selcc.tpcc.TpccSchema.owner(w, partitions) != home) {
                others++;
            }
        }
        int pick = random.uniform(1, others);
        for (int w = 1; w <= warehouses; w++) {
            if (io.selcc.tpcc.TpccSchema.owner(w, partitions) != home && --pick == 0) {
                return w;
            }
        }
        throw new IllegalStateException("no warehouse of another partition: homeW=" + homeW);
    }

    /**
     * [SPEC] 2.5.1: district 1..10; x ≤ 85 home customer, else a customer of a random district of
     * another warehouse (home only when W = 1); y ≤ 60 by last name NURand(255, 0, 999) with C-Run,
     * else by id NURand(1023, 1, 3000); amount 1.00..5000.00.
     */
    public PaymentInput payment(int homeW, long nowMicros) {
        checkWarehouse(homeW);
        int d = random.uniform(1, TpccScale.DISTRICTS);
        int x = random.uniform(1, 100);
        int y = random.uniform(1, 100);
        int customerW = homeW;
        int customerD = d;
        if (x > 85 && warehouses > 1) {
            customerD = random.uniform(1, TpccScale.DISTRICTS);
            customerW = otherWarehouse(homeW);
        }
        boolean byLastName = y <= 60;
        int customerId = byLastName ? NO_CUSTOMER_ID : random.customerId();
        int lastName = byLastName ? random.lastNameNumberRun() : NO_LAST_NAME;
        long amount = random.fixed(1_00, 5_000_00);
        return new PaymentInput(homeW, d, customerW, customerD, byLastName, customerId, lastName, amount, nowMicros);
    }

    /** [SPEC] 2.6.1: district 1..10 of the home warehouse; 60% by last name, else by id. */
    public OrderStatusInput orderStatus(int homeW) {
        checkWarehouse(homeW);
        int d = random.uniform(1, TpccScale.DISTRICTS);
        int y = random.uniform(1, 100);
        boolean byLastName = y <= 60;
        int customerId = byLastName ? NO_CUSTOMER_ID : random.customerId();
        int lastName = byLastName ? random.lastNameNumberRun() : NO_LAST_NAME;
        return new OrderStatusInput(homeW, d, byLastName, customerId, lastName);
    }

    /** [SPEC] 2.7.1: O_CARRIER_ID 1..10; the delivery date is now. */
    public DeliveryInput delivery(int homeW, long nowMicros) {
        checkWarehouse(homeW);
        return new DeliveryInput(homeW, random.uniform(1, 10), nowMicros);
    }

    /** [SPEC] 2.8.1: the terminal's fixed (w, d) and a threshold 10..20. */
    public StockLevelInput stockLevel(int homeW, int homeD) {
        checkWarehouse(homeW);
        if (homeD < 1 || homeD > TpccScale.DISTRICTS) {
            throw new IllegalArgumentException("district out of range: homeD=" + homeD + " (1.." + TpccScale.DISTRICTS + ")");
        }
        return new StockLevelInput(homeW, homeD, random.uniform(10, 20));
    }

    /** Uniform over the active warehouses other than {@code homeW}; needs W > 1. */
    private int otherWarehouse(int homeW) {
        int w = random.uniform(1, warehouses - 1);
        return w >= homeW ? w + 1 : w;
    }

    private void checkWarehouse(int homeW) {
        if (homeW < 1 || homeW > warehouses) {
            throw new IllegalArgumentException("home warehouse out of range: homeW=" + homeW + " warehouses=" + warehouses);
        }
    }
}
