package io.selcc.engine;

import java.util.Arrays;

/**
 * A map from long to long kept sorted by key in two arrays: a transaction's own inserted or deleted
 * rows of one table, by primary key. A few to a few dozen entries, mostly added in ascending key
 * order (a New-Order's lines), so an insertion is usually an append; no box or node per entry, where
 * a {@code TreeMap<Long, Long>} allocated three objects per row.
 */
final class SortedLongMap {
    private long[] keys = new long[4];
    private long[] values = new long[4];
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    long keyAt(int i) {
        return keys[i];
    }

    long valueAt(int i) {
        return values[i];
    }

    boolean containsKey(long key) {
        return indexOf(key) >= 0;
    }

    /** The value of {@code key}, or {@code absent}. */
    long get(long key, long absent) {
        int i = indexOf(key);
        return i >= 0 ? values[i] : absent;
    }

    /** Sets {@code key} to {@code value}, replacing a value it had. */
    void put(long key, long value) {
        int i = size > 0 && keys[size - 1] < key ? -(size + 1) : indexOf(key);
        if (i >= 0) {
            values[i] = value;
            return;
        }
        int at = -(i + 1);
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, 2 * size);
            values = Arrays.copyOf(values, 2 * size);
        }
        System.arraycopy(keys, at, keys, at + 1, size - at);
        System.arraycopy(values, at, values, at + 1, size - at);
        keys[at] = key;
        values[at] = value;
        size++;
    }

    /** Removes {@code key}; true if it was present. */
    boolean remove(long key) {
        int i = indexOf(key);
        if (i < 0) {
            return false;
        }
        System.arraycopy(keys, i + 1, keys, i, size - i - 1);
        System.arraycopy(values, i + 1, values, i, size - i - 1);
        size--;
        return true;
    }

    /** The first index whose key is {@code >= key} ({@link #size()} if none). */
    int lowerBound(long key) {
        int i = indexOf(key);
        return i >= 0 ? i : -(i + 1);
    }

    /** As {@link Arrays#binarySearch}: the index of {@code key}, or -(insertion point) - 1. */
    private int indexOf(long key) {
        return Arrays.binarySearch(keys, 0, size, key);
    }
}
