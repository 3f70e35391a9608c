package io.selcc.engine;

import java.util.Arrays;

/**
 * Growable parallel arrays of (key, value) longs, for gathering index entries (or key ranges) before
 * they are sorted ({@link #sort}, {@link PairSort}) and used in one piece: no object per pair. Fields
 * are read directly by the one class that owns an instance.
 */
final class LongPairs {
    long[] keys;
    long[] values;
    int size;
    /** What the pairs are, for the message when they cannot grow ("rows in one table to index"). */
    private final String what;

    LongPairs(int initialCapacity, String what) {
        keys = new long[initialCapacity];
        values = new long[initialCapacity];
        this.what = what;
    }

    /**
     * Appends a pair, doubling the arrays when full.
     *
     * @throws IllegalStateException if the arrays cannot grow past {@code Integer.MAX_VALUE - 8} pairs
     */
    void add(long key, long value) {
        if (size == keys.length) {
            int grown = Math.toIntExact(Math.min((long) size * 2, Integer.MAX_VALUE - 8));
            if (grown == size) {
                throw new IllegalStateException("more than " + size + " " + what);
            }
            keys = Arrays.copyOf(keys, grown);
            values = Arrays.copyOf(values, grown);
        }
        keys[size] = key;
        values[size] = value;
        size++;
    }

    /** Sorts the pairs by key, then value. */
    void sort() {
        PairSort.sort(keys, values, size);
    }
}
