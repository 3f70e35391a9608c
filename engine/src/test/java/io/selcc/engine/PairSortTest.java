package io.selcc.engine;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link PairSort} against a reference sort of the pairs, on random, few-valued, sorted and reversed
 * input. Shown to fail with the pair's second half left out of the comparison (ties keep input order).
 */
class PairSortTest {
    @Test
    void sortsLikeAReferenceSort() {
        long seed = System.nanoTime();
        System.out.println("PairSortTest seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (int round = 0; round < 300; round++) {
            int n = random.nextInt(2_000);
            int shape = round % 4;
            long[] a = new long[n + 3]; // longer than n: the tail must stay as it was
            long[] b = new long[n + 3];
            for (int i = 0; i < a.length; i++) {
                a[i] = switch (shape) {
                    case 0 -> random.nextLong();
                    case 1 -> random.nextInt(5); // many ties, decided by the second half
                    case 2 -> i;
                    default -> a.length - i;
                };
                b[i] = random.nextInt(10) - 5;
            }
            long[][] pairs = new long[n][];
            for (int i = 0; i < n; i++) {
                pairs[i] = new long[] {a[i], b[i]};
            }
            Arrays.sort(pairs, Comparator.<long[]>comparingLong(p -> p[0]).thenComparingLong(p -> p[1]));
            long[] tailA = Arrays.copyOfRange(a, n, a.length);
            long[] tailB = Arrays.copyOfRange(b, n, b.length);
            PairSort.sort(a, b, n);
            for (int i = 0; i < n; i++) {
                assertArrayEquals(pairs[i], new long[] {a[i], b[i]}, "round " + round + " index " + i);
            }
            assertArrayEquals(tailA, Arrays.copyOfRange(a, n, a.length));
            assertArrayEquals(tailB, Arrays.copyOfRange(b, n, b.length));
        }
    }

    @Test
    void refusesALengthBeyondTheArrays() {
        assertThrows(IllegalArgumentException.class, () -> PairSort.sort(new long[2], new long[3], 3));
    }
}
