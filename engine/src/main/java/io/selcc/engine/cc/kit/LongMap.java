package io.selcc.engine.cc.kit;

import java.util.Arrays;

/**
 * A map from primitive {@code long} keys (record ids, page addresses) to objects, for the
 * per-transaction sets. Record ids and page addresses share their low bits (pages are GCL-aligned),
 * which made {@code HashMap<Long, ?>} fall into tree bins; here every key is mixed by a
 * multiplicative hash, nothing is boxed, and a cleared map keeps its arrays for the next transaction.
 *
 * <p>Entries live densely in insertion order in {@code keys}/{@code values}; iterate with
 * {@link #keyAt}/{@link #valueAt} over {@code [0, size())}. {@link #remove} moves the last entry into
 * the hole, so removal changes the order of the remaining entries. A linear-probing table of dense
 * positions (plus one; 0 is empty), at most half full, finds a key. Not thread-safe.
 */
public final class LongMap<V> {
    private static final int MIN_TABLE = 16;
    private long[] keys;
    private Object[] values;
    private int[] table;
    private int size;

    public LongMap() {
        this(8);
    }

    public LongMap(int expected) {
        int capacity = Math.max(4, expected);
        keys = new long[capacity];
        values = new Object[capacity];
        table = new int[tableSizeFor(capacity)];
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** The key of the entry at dense position {@code i} (0 <= i < size). */
    public long keyAt(int i) {
        return keys[i];
    }

    /** The value of the entry at dense position {@code i} (0 <= i < size). */
    @SuppressWarnings("unchecked")
    public V valueAt(int i) {
        return (V) values[i];
    }

    @SuppressWarnings("unchecked")
    public V get(long key) {
        int at = find(key);
        return at < 0 ? null : (V) values[at];
    }

    /** The dense position of {@code key}'s entry, or -1 if absent. */
    public int indexOf(long key) {
        return find(key);
    }

    public boolean containsKey(long key) {
        return find(key) >= 0;
    }

    /** Maps {@code key} to {@code value}; returns the previous value, or null. */
    @SuppressWarnings("unchecked")
    public V put(long key, V value) {
        int at = find(key);
        if (at >= 0) {
            V previous = (V) values[at];
            values[at] = value;
            return previous;
        }
        append(key, value);
        return null;
    }

    /** Adds the entry unless the key is present; returns the present value, or null if it added. */
    @SuppressWarnings("unchecked")
    public V putIfAbsent(long key, V value) {
        int at = find(key);
        if (at >= 0) {
            return (V) values[at];
        }
        append(key, value);
        return null;
    }

    /** Removes the key; returns its value, or null if absent. The last entry moves into its place. */
    @SuppressWarnings("unchecked")
    public V remove(long key) {
        int mask = table.length - 1;
        int slot = home(key, mask);
        while (true) {
            int e = table[slot];
            if (e == 0) {
                return null;
            }
            if (keys[e - 1] == key) {
                break;
            }
            slot = (slot + 1) & mask;
        }
        int at = table[slot] - 1;
        V removed = (V) values[at];
        deleteSlot(slot, mask);
        int last = size - 1;
        if (at != last) {
            keys[at] = keys[last];
            values[at] = values[last];
            table[slotOf(keys[at], last, mask)] = at + 1;
        }
        values[last] = null;
        size = last;
        return removed;
    }

    /** Removes every entry; keeps the arrays. */
    public void clear() {
        if (size == 0) {
            return;
        }
        Arrays.fill(values, 0, size, null);
        if (size * 8 < table.length) {
            int mask = table.length - 1;
            for (int i = 0; i < size; i++) {
                table[slotOf(keys[i], i, mask)] = 0;
            }
        } else {
            Arrays.fill(table, 0);
        }
        size = 0;
    }

    private void append(long key, V value) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        if ((size + 1) * 2 > table.length) {
            rehash(table.length * 2);
        }
        keys[size] = key;
        values[size] = value;
        int mask = table.length - 1;
        int slot = home(key, mask);
        while (table[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        table[slot] = ++size;
    }

    private int find(long key) {
        if (size == 0) {
            return -1; // the common case for a transaction's insert and delete sets: no array touched
        }
        int mask = table.length - 1;
        for (int slot = home(key, mask); ; slot = (slot + 1) & mask) {
            int e = table[slot];
            if (e == 0) {
                return -1;
            }
            if (keys[e - 1] == key) {
                return e - 1;
            }
        }
    }

    /** The table slot that holds dense position {@code at} of {@code key}. */
    private int slotOf(long key, int at, int mask) {
        int slot = home(key, mask);
        while (table[slot] != at + 1) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    /** Empties a table slot, shifting later entries of the probe run back (no tombstones). */
    private void deleteSlot(int hole, int mask) {
        table[hole] = 0;
        for (int j = (hole + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
            int home = home(keys[table[j] - 1], mask);
            // Move the entry at j into the hole unless its home lies cyclically in (hole, j].
            if (((j - home) & mask) >= ((j - hole) & mask)) {
                table[hole] = table[j];
                table[j] = 0;
                hole = j;
            }
        }
    }

    private void rehash(int capacity) {
        table = new int[capacity];
        int mask = capacity - 1;
        for (int i = 0; i < size; i++) {
            int slot = home(keys[i], mask);
            while (table[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            table[slot] = i + 1;
        }
    }

    private static int home(long key, int mask) {
        return (int) ((key * 0x9E3779B97F4A7C15L) >>> 32) & mask; // high product bits depend on every low key bit
    }

    private static int tableSizeFor(int capacity) {
        return Math.max(MIN_TABLE, Integer.highestOneBit(capacity * 2 - 1) << 1);
    }
}
