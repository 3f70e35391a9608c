package io.selcc.cli.micro;

import java.util.SplittableRandom;

/**
 * Zipf-distributed ranks in {@code [0, items)}, rank 0 the most frequent, by the closed-form method of
 * Gray et al., "Quickly generating billion-record synthetic databases" (SIGMOD 1994), as in YCSB's
 * {@code ZipfianGenerator}. The zeta constant is computed once (O(items)); each draw is O(1).
 * Immutable and thread-safe: the randomness comes from the caller.
 */
final class ZipfGenerator {
    private final long items;
    private final double theta;
    private final double alpha;
    private final double zetaN;
    private final double eta;
    /** 1 + 0.5^theta: the cumulative weight of ranks 0 and 1, normalised by rank 0's weight. */
    private final double firstTwo;

    /**
     * @param items number of ranks, at least 1
     * @param theta skew in (0, 1); the formula has a pole at 1, and 0 is plain uniform
     */
    ZipfGenerator(long items, double theta) {
        if (items < 1) {
            throw new IllegalArgumentException("Zipf needs at least one item: items=" + items);
        }
        if (!(theta > 0 && theta < 1)) {
            throw new IllegalArgumentException("Zipf skew must be in (0, 1): theta=" + theta);
        }
        this.items = items;
        this.theta = theta;
        this.alpha = 1 / (1 - theta);
        this.zetaN = zeta(items, theta);
        this.firstTwo = 1 + Math.pow(0.5, theta);
        // With fewer than three items the first two branches of nextRank cover every draw, and eta's
        // denominator (1 - zeta(2)/zeta(n)) would be zero.
        this.eta = items < 3 ? 0 : (1 - Math.pow(2.0 / items, 1 - theta)) / (1 - zeta(2, theta) / zetaN);
    }

    long items() {
        return items;
    }

    double theta() {
        return theta;
    }

    long nextRank(SplittableRandom random) {
        double u = random.nextDouble();
        double uz = u * zetaN;
        if (uz < 1) {
            return 0;
        }
        if (uz < firstTwo) {
            return 1;
        }
        long rank = (long) (items * Math.pow(eta * u - eta + 1, alpha));
        return Math.min(rank, items - 1); // rounding at u close to 1 may reach items
    }

    /** Sum over i = 1..n of 1 / i^theta. */
    static double zeta(long n, double theta) {
        double sum = 0;
        for (long i = 1; i <= n; i++) {
            sum += 1 / Math.pow(i, theta);
        }
        return sum;
    }
}
