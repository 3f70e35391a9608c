package io.selcc.engine.cc.kit;

import io.selcc.cache.GclHandle;

import java.util.Arrays;

/**
 * The pages a committing write set holds X-latched, by address in ascending (global latch) order: two
 * arrays instead of a {@code TreeMap<Long, GclHandle>}, which boxed every page address and allocated
 * an entry per page on every commit. Filled by {@link WriteSet#latchPages()}; not thread-safe.
 */
public final class LatchedPages {
    /** No page latched (a commit that failed before latching, or wrote nothing). */
    public static final LatchedPages NONE = new LatchedPages(new long[0], 0);

    private final long[] addresses;
    private final GclHandle[] handles;
    private final int size;

    /** Over the distinct addresses in {@code addresses[0..size)}, sorted ascending; handles still to take. */
    LatchedPages(long[] addresses, int size) {
        this.addresses = addresses;
        this.handles = new GclHandle[size];
        this.size = size;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    long addressAt(int i) {
        return addresses[i];
    }

    GclHandle handleAt(int i) {
        return handles[i];
    }

    void set(int i, GclHandle handle) {
        handles[i] = handle;
    }

    /** The latch held on {@code page}, or null if this set has none on it. */
    public GclHandle get(long page) {
        int i = Arrays.binarySearch(addresses, 0, size, page);
        return i >= 0 ? handles[i] : null;
    }
}
