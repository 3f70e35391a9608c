package io.selcc.engine.index;

import io.selcc.cache.GclHandle;

import java.lang.foreign.MemorySegment;

import static io.selcc.engine.index.BLinkNodeLayout.COUNT_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.ENTRY_CHILD_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.ENTRY_KEY_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.ENTRY_VALUE_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.FLAGS_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.FLAG_HIGH_INFINITE;
import static io.selcc.engine.index.BLinkNodeLayout.FLAG_LOW_INFINITE;
import static io.selcc.engine.index.BLinkNodeLayout.FLAG_ROOT;
import static io.selcc.engine.index.BLinkNodeLayout.HIGH_KEY_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.HIGH_VALUE_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.LEVEL_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.LOW_KEY_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.LOW_VALUE_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.MAGIC;
import static io.selcc.engine.index.BLinkNodeLayout.MAGIC_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.READ_TIMESTAMP_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.RIGHT_LINK_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.VERSION_OFFSET;
import static io.selcc.engine.index.BLinkNodeLayout.WRITE_TIMESTAMP_OFFSET;

/**
 * A reusable view of one latched B-link node ({@link BLinkNodeLayout}): typed accessors, the order of
 * the tree, searches, and the in-node edits of inserts, deletes and splits. It never latches: the
 * caller wraps a handle it holds (S for reads, X for writes) and stops using the view when it unlocks.
 *
 * <p>Not thread-safe; each thread of a tree has its own views.
 */
final class BLinkNode {
    private final boolean unique;
    private GclHandle handle;
    private int level;
    private int entrySize;
    private byte[] scratch = new byte[0];

    BLinkNode(boolean unique) {
        this.unique = unique;
    }

    BLinkNode wrap(GclHandle h) {
        this.handle = h;
        this.level = Byte.toUnsignedInt(h.getByte(LEVEL_OFFSET));
        this.entrySize = BLinkNodeLayout.entrySize(level);
        return this;
    }

    GclHandle handle() {
        return handle;
    }

    long address() {
        return handle.address();
    }

    // ---------------------------------------------------------------- order

    /** The tree's order: by key in a unique tree, by (key, value) otherwise. */
    static int compare(boolean unique, long k1, long v1, long k2, long v2) {
        int c = Long.compare(k1, k2);
        return c != 0 || unique ? c : Long.compare(v1, v2);
    }

    int compare(long k1, long v1, long k2, long v2) {
        return compare(unique, k1, v1, k2, v2);
    }

    /** Entry i against (k, v); for internal nodes entry i is separator i. */
    int compareEntry(int i, long k, long v) {
        int c = Long.compare(key(i), k);
        return c != 0 || unique ? c : Long.compare(value(i), v);
    }

    /** True when (k, v) lies beyond this node's high fence: it belongs to a node further right. */
    boolean isAboveHigh(long k, long v) {
        return !highInfinite() && compare(k, v, highKey(), highValue()) > 0;
    }

    /** True when (k, v) lies at or below this node's low fence. */
    boolean isAtOrBelowLow(long k, long v) {
        return !lowInfinite() && compare(k, v, lowKey(), lowValue()) <= 0;
    }

    /** A leaf whose range (low, high] holds (k, v). */
    boolean isLeafHolding(long k, long v) {
        return isLeaf() && !isAtOrBelowLow(k, v) && !isAboveHigh(k, v);
    }

    // ---------------------------------------------------------------- header

    int magic() {
        return handle.getInt(MAGIC_OFFSET);
    }

    int count() {
        return (handle.getByte(COUNT_OFFSET) & 0xFF) | (handle.getByte(COUNT_OFFSET + 1) & 0xFF) << 8;
    }

    int level() {
        return level;
    }

    boolean isLeaf() {
        return level == BLinkNodeLayout.LEAF_LEVEL;
    }

    int flags() {
        return Byte.toUnsignedInt(handle.getByte(FLAGS_OFFSET));
    }

    boolean isRoot() {
        return (flags() & FLAG_ROOT) != 0;
    }

    long rightLink() {
        return handle.getLong(RIGHT_LINK_OFFSET);
    }

    long version() {
        return handle.getLong(VERSION_OFFSET);
    }

    /** Every change of entries or range calls this once, under the X latch. */
    void bumpVersion() {
        handle.putLong(VERSION_OFFSET, version() + 1);
    }

    /**
     * A rebuilt leaf (crash repair): its memory copy's version may be below what the crashed cache had
     * reached, so +1 could repeat a version a transaction saw for other contents; a jump far past any
     * number of changes since cannot.
     */
    void jumpVersion() {
        handle.putLong(VERSION_OFFSET, version() + VERSION_JUMP);
    }

    /** See {@link #jumpVersion}. */
    static final long VERSION_JUMP = 1L << 32;

    long readTimestamp() {
        return handle.getLong(READ_TIMESTAMP_OFFSET);
    }

    long writeTimestamp() {
        return handle.getLong(WRITE_TIMESTAMP_OFFSET);
    }

    void timestamps(long readTimestamp, long writeTimestamp) {
        handle.putLong(READ_TIMESTAMP_OFFSET, readTimestamp);
        handle.putLong(WRITE_TIMESTAMP_OFFSET, writeTimestamp);
    }

    boolean highInfinite() {
        return (flags() & FLAG_HIGH_INFINITE) != 0;
    }

    long highKey() {
        return handle.getLong(HIGH_KEY_OFFSET);
    }

    long highValue() {
        return handle.getLong(HIGH_VALUE_OFFSET);
    }

    boolean lowInfinite() {
        return (flags() & FLAG_LOW_INFINITE) != 0;
    }

    long lowKey() {
        return handle.getLong(LOW_KEY_OFFSET);
    }

    long lowValue() {
        return handle.getLong(LOW_VALUE_OFFSET);
    }

    // ---------------------------------------------------------------- entries

    long key(int i) {
        return handle.getLong(entryOffset(i) + ENTRY_KEY_OFFSET);
    }

    long value(int i) {
        return handle.getLong(entryOffset(i) + ENTRY_VALUE_OFFSET);
    }

    long child(int i) {
        return handle.getLong(entryOffset(i) + ENTRY_CHILD_OFFSET);
    }

    private int entryOffset(int i) {
        return BLinkNodeLayout.ENTRIES_OFFSET + i * entrySize;
    }

    /** First entry index whose entry is &gt;= (k, v); count() when none. */
    int lowerBound(long k, long v) {
        return search(count(), k, v, false);
    }

    /**
     * {@link #lowerBound} for a leaf entry about to be inserted (or probed for before an insert): first
     * tries the position right after the latest insert ({@link #lastInsert}), where ascending inserts
     * at one spot land (a district's newest orders, new orders, order lines), with two comparisons of
     * neighbouring entries instead of a search's scattered ones. Falls back to the search otherwise.
     * Only for the insert paths: a lookup of a random key would pay the two reads for nothing.
     */
    int insertionPoint(long k, long v) {
        int n = count();
        int p = lastInsert();
        if (p > 0 && p <= n && compareEntry(p - 1, k, v) < 0 && (p == n || compareEntry(p, k, v) >= 0)) {
            return p;
        }
        return search(n, k, v, false);
    }

    /** First entry index whose entry is &gt; (k, v); count() when none. */
    int upperBound(long k, long v) {
        return search(count(), k, v, true);
    }

    /**
     * The child whose range holds (k, v), for (k, v) within this internal node's fences: the first
     * separator &gt;= (k, v), where the last separator (the high fence) is never read.
     */
    int childIndex(long k, long v) {
        return search(count() - 1, k, v, false);
    }

    /** Below this many entries a plain binary search touches too few lines for a guess to pay. */
    private static final int INTERPOLATION_MIN = 16;

    /**
     * First index in [0, n) whose entry is &gt;= (k, v), or &gt; (k, v) when {@code after}; n when
     * none. Every entry read off the CPU caches costs a memory miss (a node spans 32 lines), so
     * instead of a binary search's five or six scattered reads this guesses the position from the
     * key's place between the node's fences (TPC-C's composite keys are dense, so the guess is
     * usually within a line of the answer), then gallops outwards from the guess and finishes with a
     * binary search inside the bracket it found. A poor guess (skewed keys, duplicates) costs at
     * most about twice a binary search's comparisons, never a wrong answer.
     */
    private int search(int n, long k, long v, boolean after) {
        if (n < INTERPOLATION_MIN) {
            return binarySearch(0, n, k, v, after);
        }
        int g = guess(n, k);
        int lo;
        int hi;
        if (isBefore(g, k, v, after)) {
            lo = g + 1;
            hi = n;
            for (int step = 1; g + step < n; step <<= 1) {
                int probe = g + step;
                if (!isBefore(probe, k, v, after)) {
                    hi = probe;
                    break;
                }
                lo = probe + 1;
            }
        } else {
            lo = 0;
            hi = g;
            for (int step = 1; g - step >= 0; step <<= 1) {
                int probe = g - step;
                if (isBefore(probe, k, v, after)) {
                    lo = probe + 1;
                    break;
                }
                hi = probe;
            }
        }
        return binarySearch(lo, hi, k, v, after);
    }

    /** The entry's position by linear interpolation of k between the node's first and last keys. */
    private int guess(int n, long k) {
        double first = lowInfinite() ? key(0) : lowKey(); // fences sit in the header line: no miss
        double last = highInfinite() ? key(n - 1) : highKey();
        double fraction = ((double) k - first) / (last - first);
        if (!(fraction > 0)) {
            return 0; // also NaN: an empty key range
        }
        return fraction >= 1 ? n - 1 : (int) (fraction * n);
    }

    /** True when entry i sorts before the searched position. */
    private boolean isBefore(int i, long k, long v, boolean after) {
        int c = compareEntry(i, k, v);
        return after ? c <= 0 : c < 0;
    }

    /** First index in [lo, hi) whose entry is not before the searched position, hi when none. */
    private int binarySearch(int lo, int hi, long k, long v, boolean after) {
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (isBefore(mid, k, v, after)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    // ---------------------------------------------------------------- writes (X latch)

    /** Writes a complete header for an empty node; fences and the right link as given. */
    void format(int newLevel, int flags, long lowKey, long lowValue, long highKey, long highValue, long rightLink) {
        handle.putInt(MAGIC_OFFSET, MAGIC);
        setCount(0);
        setLevel(newLevel);
        handle.putByte(FLAGS_OFFSET, (byte) flags);
        handle.putLong(RIGHT_LINK_OFFSET, rightLink);
        handle.putLong(HIGH_KEY_OFFSET, highKey);
        handle.putLong(HIGH_VALUE_OFFSET, fenceValue(highValue));
        handle.putLong(LOW_KEY_OFFSET, lowKey);
        handle.putLong(LOW_VALUE_OFFSET, fenceValue(lowValue));
        handle.putLong(VERSION_OFFSET, 0);
        timestamps(0, 0);
        setLastInsert(0);
    }

    /**
     * 1 + the index of the latest leaf insert, 0 = none since the last format, split or removal. Only a
     * hint ({@link #insertionPoint} checks it against the entries): a crash repair's rebuild of a leaf
     * leaves it as it was, which costs at most a search.
     */
    int lastInsert() {
        return Byte.toUnsignedInt(handle.getByte(BLinkNodeLayout.LAST_INSERT_OFFSET))
            | Byte.toUnsignedInt(handle.getByte(BLinkNodeLayout.LAST_INSERT_OFFSET + 1)) << 8;
    }

    private void setLastInsert(int value) {
        handle.putByte(BLinkNodeLayout.LAST_INSERT_OFFSET, (byte) value);
        handle.putByte(BLinkNodeLayout.LAST_INSERT_OFFSET + 1, (byte) (value >>> 8));
    }

    void setCount(int n) {
        handle.putByte(COUNT_OFFSET, (byte) n);
        handle.putByte(COUNT_OFFSET + 1, (byte) (n >>> 8));
    }

    void setLevel(int newLevel) {
        handle.putByte(LEVEL_OFFSET, (byte) newLevel);
        this.level = newLevel;
        this.entrySize = BLinkNodeLayout.entrySize(newLevel);
    }

    void setRightLink(long address) {
        handle.putLong(RIGHT_LINK_OFFSET, address);
    }

    /** A finite high fence: after a split the left node's range ends at the separator. */
    void setHigh(long highKey, long highValue) {
        handle.putLong(HIGH_KEY_OFFSET, highKey);
        handle.putLong(HIGH_VALUE_OFFSET, fenceValue(highValue));
        handle.putByte(FLAGS_OFFSET, (byte) (flags() & ~FLAG_HIGH_INFINITE));
    }

    /** Inserts a leaf entry at index i (from {@link #insertionPoint}); the caller checked capacity and duplicates. */
    void insertLeafEntry(int i, long k, long v) {
        int n = count();
        openGap(i, n);
        int at = entryOffset(i);
        handle.putLong(at + ENTRY_KEY_OFFSET, k);
        handle.putLong(at + ENTRY_VALUE_OFFSET, v);
        setCount(n + 1);
        setLastInsert(i + 1);
    }

    void removeEntry(int i) {
        int n = count();
        shift(entryOffset(i + 1), entryOffset(i), (n - i - 1) * entrySize);
        setCount(n - 1);
        setLastInsert(0);
    }

    /**
     * Posts a split of a child: the child that held (separator, ...] was split at {@code separator}
     * and {@code newChild} took its upper part. The entry whose range holds the separator keeps its
     * range end but now points to {@code newChild}; a new entry (separator, old child) goes before it.
     * This needs no knowledge of which child split, so posts of several splits of one child may arrive
     * in any order.
     */
    void insertSeparator(long separatorKey, long separatorValue, long newChild) {
        int n = count();
        int i = childIndex(separatorKey, separatorValue);
        long oldChild = child(i);
        openGap(i, n);
        putInternalEntry(i, separatorKey, separatorValue, oldChild);
        handle.putLong(entryOffset(i + 1) + ENTRY_CHILD_OFFSET, newChild);
        setCount(n + 1);
    }

    void putInternalEntry(int i, long separatorKey, long separatorValue, long childAddress) {
        int at = entryOffset(i);
        handle.putLong(at + ENTRY_KEY_OFFSET, separatorKey);
        handle.putLong(at + ENTRY_VALUE_OFFSET, fenceValue(separatorValue));
        handle.putLong(at + ENTRY_CHILD_OFFSET, childAddress);
    }

    /**
     * Moves entries [from, count) to the start of {@code target} (same level, formatted, empty) and
     * truncates this node to {@code from} entries.
     */
    void moveEntriesTo(int from, BLinkNode target) {
        int n = count();
        int length = (n - from) * entrySize;
        if (length > 0) {
            MemorySegment.copy(handle.data(), entryOffset(from), target.handle.data(), target.entryOffset(0), length);
            target.handle.markDirty(target.entryOffset(0), length);
        }
        target.setCount(n - from);
        setCount(from);
        setLastInsert(0);
    }

    private void openGap(int i, int n) {
        shift(entryOffset(i), entryOffset(i + 1), (n - i) * entrySize);
    }

    /** Moves bytes inside the node through a reusable buffer: overlap-safe and allocation-free. */
    private void shift(int fromOffset, int toOffset, int length) {
        if (length <= 0) {
            return;
        }
        if (scratch.length < length) {
            scratch = new byte[handle.dataSize()];
        }
        handle.getBytes(fromOffset, scratch, 0, length);
        handle.putBytes(toOffset, scratch, 0, length);
    }

    private long fenceValue(long v) {
        return unique ? 0 : v;
    }
}
