package io.selcc.cli.micro;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ZipfGeneratorTest {
    private static final int DRAWS = 200_000;

    /** Random (items, theta) cases from a fixed seed; the seed is in every failure message to replay it. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void ranksStayInRange(long seed) {
        SplittableRandom cases = new SplittableRandom(seed);
        for (int c = 0; c < 40; c++) {
            int items = cases.nextInt(1, 5001);
            double theta = cases.nextDouble(0.01, 0.9999);
            ZipfGenerator zipf = new ZipfGenerator(items, theta);
            SplittableRandom random = cases.split();
            for (int i = 0; i < 1000; i++) {
                long rank = zipf.nextRank(random);
                assertTrue(rank >= 0 && rank < items,
                    "rank=" + rank + " items=" + items + " theta=" + theta + " seed=" + seed + " case=" + c);
            }
        }
    }

    @Test
    void rankZeroIsMostFrequentAndFrequencyFallsWithRank() {
        int items = 10_000;
        long[] counts = histogram(new ZipfGenerator(items, 0.99), items, 7);
        for (int rank = 1; rank < items; rank++) {
            assertTrue(counts[0] > counts[rank], "rank 0 count=" + counts[0] + " rank " + rank + " count=" + counts[rank]);
        }
        // Zipf with theta 0.99 over 10^4 items puts roughly a tenth of all draws on rank 0; uniform would put 1/10^4.
        assertTrue(counts[0] > DRAWS / 20, "rank 0 count=" + counts[0]);
        assertTrue(counts[1] > counts[100] && counts[10] > counts[1000], Arrays.toString(Arrays.copyOf(counts, 12)));
    }

    @Test
    void sameSeedSameSequence() {
        ZipfGenerator zipf = new ZipfGenerator(1000, 0.9);
        assertArrayEquals(histogram(zipf, 1000, 42), histogram(zipf, 1000, 42));
        SplittableRandom a = new SplittableRandom(1);
        SplittableRandom b = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            assertEquals(zipf.nextRank(a), zipf.nextRank(b));
        }
    }

    @Test
    void tinyRangesWork() {
        SplittableRandom random = new SplittableRandom(3);
        ZipfGenerator one = new ZipfGenerator(1, 0.99);
        ZipfGenerator two = new ZipfGenerator(2, 0.99);
        for (int i = 0; i < 1000; i++) {
            assertEquals(0, one.nextRank(random));
            long rank = two.nextRank(random);
            assertTrue(rank == 0 || rank == 1, "rank=" + rank);
        }
    }

    @Test
    void rejectsBadParameters() {
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(0, 0.5));
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(10, 0));
        assertThrows(IllegalArgumentException.class, () -> new ZipfGenerator(10, 1));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 10, 64, 97, 100, 1000, 1024, 2047, 4096, 6561, 10_000, 19_999})
    void scrambleIsAPermutation(int n) {
        Scramble scramble = new Scramble(n);
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            int image = (int) scramble.apply(i);
            assertTrue(image >= 0 && image < n && !seen[image], "n=" + n + " i=" + i + " image=" + image);
            seen[image] = true;
        }
    }

    private static long[] histogram(ZipfGenerator zipf, int items, long seed) {
        long[] counts = new long[items];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < DRAWS; i++) {
            counts[(int) zipf.nextRank(random)]++;
        }
        return counts;
    }
}
