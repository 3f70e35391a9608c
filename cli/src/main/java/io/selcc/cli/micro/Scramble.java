package io.selcc.cli.micro;

/**
 * A fixed permutation of {@code [0, n)} that spreads consecutive Zipf ranks over the whole index
 * range, so the hottest GCLs are not neighbours in one memory node's address range nor allocated by
 * the same compute node. It is the affine map {@code i -> (i * m) mod n} with {@code m} coprime to
 * {@code n} (hence a bijection, unlike YCSB's hashing, which collides) and close to {@code n} times
 * the golden ratio's fraction, which keeps successive images far apart. No table: O(1) memory.
 */
final class Scramble {
    /** (sqrt(5) - 1) / 2: multiples of it mod 1 are as evenly spread as any sequence can be. */
    private static final double GOLDEN_FRACTION = 0.6180339887498949;

    private final long n;
    private final long multiplier;

    Scramble(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("permutation of an empty range: n=" + n);
        }
        if (n > Integer.MAX_VALUE) {
            // i * m must not overflow a long: both stay below 2^31.
            throw new IllegalArgumentException("permutation range too large: n=" + n);
        }
        // Terminates below n: n - 1 is coprime to n (and for n == 1 the start, 1, already is).
        long m = Math.max(1, (long) (n * GOLDEN_FRACTION));
        while (gcd(m, n) != 1) {
            m++;
        }
        this.n = n;
        this.multiplier = m;
    }

    long apply(long index) {
        return index * multiplier % n;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
