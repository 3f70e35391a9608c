package io.selcc.tpcc.driver;

import io.selcc.tpcc.txn.TxnType;

import java.util.SplittableRandom;

/**
 * Keying and think times of [SPEC] 5.2.5.7: keying time constant per type; think time negative
 * exponential with the type's mean, truncated at 10 means.
 */
final class WaitTimes {
    private WaitTimes() {
    }

    static long keyingNanos(TxnType type) {
        return seconds(switch (type) {
            case NEW_ORDER -> 18;
            case PAYMENT -> 3;
            case ORDER_STATUS, DELIVERY, STOCK_LEVEL -> 2;
        });
    }

    static long meanThinkNanos(TxnType type) {
        return seconds(switch (type) {
            case NEW_ORDER, PAYMENT -> 12;
            case ORDER_STATUS -> 10;
            case DELIVERY, STOCK_LEVEL -> 5;
        });
    }

    /** Tt = -ln(r) x mean with r uniform in (0, 1], at most 10 x mean. */
    static long thinkNanos(TxnType type, SplittableRandom random) {
        double r = 1.0 - random.nextDouble(); // (0, 1]
        double mean = meanThinkNanos(type);
        return (long) Math.min(-Math.log(r) * mean, 10 * mean);
    }

    private static long seconds(int s) {
        return s * 1_000_000_000L;
    }
}
