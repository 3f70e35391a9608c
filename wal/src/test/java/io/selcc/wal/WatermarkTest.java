package io.selcc.wal;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The group's durable watermark against a model: sequence numbers 1..n published out of order (each
 * late by a random amount, a stretch of them by far more than the bitmap's first span, so it grows
 * while W is well past 0), in random batches, perhaps with one never published; after each batch W
 * is the longest published prefix. jqwik prints the seed of a failing try.
 *
 * <p>Shown to fail: with {@code grow} copying bits to their slots in the old span instead of the new
 * one, W stuck at 1023 (jqwik's shrunk sample). A first version published 1..n plainly shuffled: the
 * bitmap then grew only while W was 0, where that bug does no harm, and the test passed it; hence
 * the stretch of late ones.
 */
class WatermarkTest {
    private static final int MAX_N = 5_000;

    private static Wal group() {
        return new Wal(Path.of("no-directory"), Wal.Mode.SYNC, UnaryOperator.identity(), FileForcing.DISK);
    }

    @Property(tries = 300)
    void theWatermarkIsTheLongestPublishedPrefix(@ForAll long seed, @ForAll @IntRange(min = 1, max = MAX_N) int n,
                                                 @ForAll boolean withGap) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] order = publicationOrder(random, n);
        long gap = withGap ? 1 + random.nextInt(n) : 0;
        int[] batchBounds = {1, 8, 300, n};
        int batchBound = batchBounds[random.nextInt(batchBounds.length)];
        Wal wal = group();
        boolean[] published = new boolean[n + 2];
        long model = 0;
        long[] batch = new long[n];
        int at = 0;
        while (at < n) {
            int count = 0;
            int size = 1 + random.nextInt(batchBound);
            for (; at < n && count < size; at++) {
                if (order[at] != gap) {
                    batch[count++] = order[at];
                    published[(int) order[at]] = true;
                }
            }
            wal.published(batch, count);
            while (published[(int) model + 1]) {
                model++;
            }
            assertEquals(model, wal.durable(), "after publishing up to position " + at);
        }
        assertEquals(withGap ? gap - 1 : n, wal.durable());
        if (withGap) {
            assertFalse(wal.forced(gap));
            assertTrue(gap == n || wal.forced(gap + 1));
        }
    }

    /**
     * 1..n, each published late by up to a few places, except a stretch late by up to 4n places
     * (a slow log): sorted by sequence number plus lateness.
     */
    private static long[] publicationOrder(SplittableRandom random, int n) {
        int small = 1 + random.nextInt(64);
        int big = 1 + random.nextInt(4 * n);
        int burstFrom = random.nextInt(n);
        int burstTo = burstFrom + random.nextInt(n - burstFrom + 1);
        long[] keyed = new long[n];
        for (int i = 0; i < n; i++) {
            long lateness = i >= burstFrom && i < burstTo ? random.nextInt(big) : random.nextInt(small);
            keyed[i] = (i + lateness) * (MAX_N + 1) + i; // sorts by arrival, then sequence number
        }
        Arrays.sort(keyed);
        long[] order = new long[n];
        for (int i = 0; i < n; i++) {
            order[i] = keyed[i] % (MAX_N + 1) + 1;
        }
        return order;
    }

    @Test
    void aSequenceNumberPublishedTwiceIsABug() {
        Wal wal = group();
        wal.published(new long[] {1, 2}, 2);
        assertThrows(IllegalStateException.class, () -> wal.published(new long[] {2}, 1));
        wal.published(new long[] {4}, 1);
        assertThrows(IllegalStateException.class, () -> wal.published(new long[] {1}, 1));
        assertEquals(2, wal.durable());
    }
}
