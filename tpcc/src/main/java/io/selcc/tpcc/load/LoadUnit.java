package io.selcc.tpcc.load;

import io.selcc.tpcc.TpccScale;
/**
 * One unit of loading work. Its rows come from a random stream of its own, seeded from the load's seed
 * and the unit's ids ({@link #seed(long)}), so the data does not depend on which thread loads it.
 *
 * @param warehouse 0 for {@link Kind#ITEMS}
 * @param district  0 unless {@link Kind#DISTRICT}
 * @param chunk     the chunk of item ids for {@link Kind#ITEMS} and {@link Kind#STOCK} (ids
 *                  {@code chunk * CHUNK + 1 .. (chunk + 1) * CHUNK}), else 0
 */
record LoadUnit(Kind kind, int warehouse, int district, int chunk) {
    /** Item ids per ITEM or STOCK unit. */
    static final int CHUNK = 10_000;

    enum Kind {
        /** ITEM rows of one chunk of ids. */
        ITEMS,
        /** The WAREHOUSE row. */
        WAREHOUSE,
        /** STOCK rows of one warehouse for one chunk of item ids. */
        STOCK,
        /** The DISTRICT row and its CUSTOMER, HISTORY, ORDER, ORDER-LINE and NEW-ORDER rows. */
        DISTRICT
    }

    int firstItem() {
        return chunk * CHUNK + 1;
    }

    int lastItem() {
        return (chunk + 1) * CHUNK;
    }

    /** Rough row count, to start the big units first. */
    long weight() {
        return switch (kind) {
            case ITEMS, STOCK -> CHUNK;
            case WAREHOUSE -> 1;
            case DISTRICT -> TpccScale.CUSTOMERS_PER_DISTRICT * 2 + TpccScale.ORDERS_PER_DISTRICT * 11
                + TpccScale.NEW_ORDERS_PER_DISTRICT; // customers, history; orders and ~10 lines each; new orders
        };
    }

    /** The seed of this unit's stream: a mix of the load's seed and the unit's ids. */
    long seed(long loadSeed) {
        long h = mix(loadSeed);
        h = mix(h ^ kind.ordinal());
        h = mix(h ^ warehouse);
        h = mix(h ^ district);
        return mix(h ^ chunk);
    }

    /** SplitMix64's finalizer. */
    static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case ITEMS -> "items i=" + firstItem() + ".." + lastItem();
            case WAREHOUSE -> "warehouse w=" + warehouse;
            case STOCK -> "stock w=" + warehouse + " i=" + firstItem() + ".." + lastItem();
            case DISTRICT -> "district w=" + warehouse + " d=" + district;
        };
    }
}
