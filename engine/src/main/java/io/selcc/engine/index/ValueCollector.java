package io.selcc.engine.index;

import java.util.Arrays;

/** Collects the values a scan delivers, in order ({@link BLinkTree#lookupAll}). */
final class ValueCollector implements EntryVisitor {
    private long[] values = new long[4];
    private int size;

    @Override
    public boolean visit(long key, long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
        return true;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
