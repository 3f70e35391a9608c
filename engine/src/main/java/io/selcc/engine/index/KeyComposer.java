package io.selcc.engine.index;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Packs several non-negative column values into one order-preserving 64-bit index key: the first
 * field takes the highest bits. Field i holds values in [0, 2^bits_i); the fields together take at
 * most 63 bits, so every key is non-negative and the signed order of keys is exactly the
 * lexicographic order of the field tuples. A prefix range is
 * {@code [compose(a, b, 0), compose(a, b, maxValue(2))]}.
 *
 * <pre>{@code
 * KeyComposer orderKey = KeyComposer.builder().field("w_id", 16).field("d_id", 8).field("o_id", 32).build();
 * long key = orderKey.compose(w, d, o);
 * }</pre>
 *
 * <p>Immutable and thread-safe. The fixed-arity {@code compose} overloads allocate nothing.
 */
public final class KeyComposer {
    /** Bits a composed key may use: the sign bit stays clear so signed order is field order. */
    public static final int MAX_TOTAL_BITS = 63;

    private final String[] names;
    private final int[] bits;
    private final int[] shifts;

    private KeyComposer(List<String> names, List<Integer> bits) {
        int n = names.size();
        this.names = names.toArray(new String[0]);
        this.bits = new int[n];
        this.shifts = new int[n];
        int shift = 0;
        for (int i = n - 1; i >= 0; i--) {
            this.bits[i] = bits.get(i);
            this.shifts[i] = shift;
            shift += this.bits[i];
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public int fieldCount() {
        return names.length;
    }

    /** The largest value field {@code index} holds: 2^bits - 1. */
    public long maxValue(int index) {
        return mask(bits[checkIndex(index)]);
    }

    /** Extracts field {@code index} of a key this composer made. */
    public long field(long key, int index) {
        checkIndex(index);
        return (key >>> shifts[index]) & mask(bits[index]);
    }

    public long compose(long a) {
        checkArity(1);
        return put(0, a);
    }

    public long compose(long a, long b) {
        checkArity(2);
        return put(0, a) | put(1, b);
    }

    public long compose(long a, long b, long c) {
        checkArity(3);
        return put(0, a) | put(1, b) | put(2, c);
    }

    public long compose(long a, long b, long c, long d) {
        checkArity(4);
        return put(0, a) | put(1, b) | put(2, c) | put(3, d);
    }

    /** Any number of fields, in declaration order. */
    public long compose(long... values) {
        checkArity(values.length);
        long key = 0;
        for (int i = 0; i < values.length; i++) {
            key |= put(i, values[i]);
        }
        return key;
    }

    private long put(int index, long value) {
        if (value < 0 || value > mask(bits[index])) {
            throw new IllegalArgumentException("key field out of range: field=" + names[index] + " value=" + value
                + " bits=" + bits[index] + " max=" + mask(bits[index]));
        }
        return value << shifts[index];
    }

    private void checkArity(int given) {
        if (given != names.length) {
            throw new IllegalArgumentException("wrong number of key fields: given=" + given + " fields="
                + String.join(",", names));
        }
    }

    private int checkIndex(int index) {
        if (index < 0 || index >= names.length) {
            throw new IllegalArgumentException("no such key field: index=" + index + " fields=" + names.length);
        }
        return index;
    }

    private static long mask(int bits) {
        return (1L << bits) - 1;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("KeyComposer[");
        for (int i = 0; i < names.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(names[i]).append(':').append(bits[i]);
        }
        return sb.append(']').toString();
    }

    /** Declares fields most significant first; validated in {@link #build()}. */
    public static final class Builder {
        private final List<String> names = new ArrayList<>();
        private final List<Integer> bits = new ArrayList<>();

        private Builder() {
        }

        public Builder field(String name, int fieldBits) {
            names.add(Objects.requireNonNull(name, "name"));
            bits.add(fieldBits);
            return this;
        }

        public KeyComposer build() {
            if (names.isEmpty()) {
                throw new IllegalArgumentException("a key needs at least one field: fields=0");
            }
            Set<String> seen = new HashSet<>();
            int total = 0;
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                int b = bits.get(i);
                if (name.isEmpty() || !seen.add(name)) {
                    throw new IllegalArgumentException("key field names must be non-empty and distinct: field=" + name);
                }
                if (b < 1 || b > MAX_TOTAL_BITS) {
                    throw new IllegalArgumentException("key field bits must be in [1, " + MAX_TOTAL_BITS + "]: field="
                        + name + " bits=" + b);
                }
                total += b;
            }
            if (total > MAX_TOTAL_BITS) {
                throw new IllegalArgumentException("key fields exceed " + MAX_TOTAL_BITS + " bits: totalBits=" + total
                    + " fields=" + names);
            }
            return new KeyComposer(names, bits);
        }
    }
}
