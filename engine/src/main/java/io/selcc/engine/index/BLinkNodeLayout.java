package io.selcc.engine.index;

/**
 * The layout of one B-link tree node: the data region of one GCL (offsets relative to it). Every
 * node of every tree carries this layout; nothing else in the package writes a raw offset.
 *
 * <pre>
 * offset  size  field
 * 0       4     magic {@link #MAGIC} ("BLNK"), on every node
 * 4       2     entry count n (unsigned, little-endian)
 * 6       1     level: 0 = leaf; the root has the highest level
 * 7       1     flags: {@link #FLAG_ROOT}, {@link #FLAG_UNIQUE}, {@link #FLAG_HIGH_INFINITE}, {@link #FLAG_LOW_INFINITE}
 * 8       8     right link: global address of the right sibling, 0 = none (rightmost node of its level)
 * 16      8     high key: every entry is &lt;= (high key, high value); unused when FLAG_HIGH_INFINITE
 * 24      8     high value: tie breaker of the high key in non-unique trees, 0 in unique trees
 * 32      8     low key: every entry is &gt; (low key, low value); unused when FLAG_LOW_INFINITE
 * 40      8     low value
 * 48      8     version: +1 on every change of the node's entries or range (insert, delete, split,
 *               root split); transactions validate or lock the leaves their predicate reads saw by it
 * 56      8     read timestamp: TO only, the largest timestamp of a transaction whose predicate read
 *               (scan, or lookup that found nothing) covered this leaf
 * 64      8     write timestamp: TO only, the largest timestamp of a transaction that changed its entries
 * 72      2     last insert: leaves only, 1 + the index the latest insert went to; 0 = none since the node
 *               was formatted, split or had an entry removed (the split point heuristic, below)
 * 74      6     unused (entries start 8-aligned)
 * 80      ...   n entries, sorted ascending:
 *                 leaf     (level 0): entry i at 80 + 16 i = [key 8][value 8]
 *                 internal (level &gt; 0): entry i at 80 + 24 i = [separator key 8][separator value 8][child 8]
 * </pre>
 *
 * <p><b>Split point.</b> A full node splits in half, except a leaf whose new entry goes right after the
 * entry the previous insert added (ascending inserts at one spot: a loader, or the newest orders of a
 * district): it splits at the insertion point, so the left node keeps every entry below it and stays
 * full instead of half empty.</p>
 *
 * <p><b>Predicate protection.</b> The version, read and write timestamps matter on leaves; a split's new
 * sibling inherits both timestamps from the node it splits from (it covers part of that node's range).
 *
 * <p><b>Order.</b> A unique tree orders entries by key alone, a non-unique tree by the pair
 * (key, value), so duplicates of one key may span leaves and every fence is a pair. In a unique tree the
 * value half of fences and separators is written as 0 and never compared.
 *
 * <p><b>Fences.</b> A node holds the entries in (low, high]. Splits never change a node's low fence,
 * and the new right sibling's low fence is the left node's new high fence, so at every level the fences
 * of neighbours match. The low fence exists for backward scans, which have no left links to follow.
 *
 * <p><b>Internal entries.</b> Child i holds the entries in (separator i-1, separator i], where
 * separator -1 is the node's low fence. The last separator is the node's high fence: its stored bytes
 * are never read (they are stale when the high fence is infinite), the header is.
 */
final class BLinkNodeLayout {
    static final int MAGIC = 0x424C4E4B; // "BLNK"

    static final int MAGIC_OFFSET = 0;
    static final int COUNT_OFFSET = 4;
    static final int LEVEL_OFFSET = 6;
    static final int FLAGS_OFFSET = 7;
    static final int RIGHT_LINK_OFFSET = 8;
    static final int HIGH_KEY_OFFSET = 16;
    static final int HIGH_VALUE_OFFSET = 24;
    static final int LOW_KEY_OFFSET = 32;
    static final int LOW_VALUE_OFFSET = 40;
    static final int VERSION_OFFSET = 48;
    static final int READ_TIMESTAMP_OFFSET = 56;
    static final int WRITE_TIMESTAMP_OFFSET = 64;
    static final int LAST_INSERT_OFFSET = 72;
    static final int ENTRIES_OFFSET = 80;

    /** Set on the tree's root only; {@link BLinkTree#open} requires it. */
    static final int FLAG_ROOT = 1;
    /** The tree refuses a second value for a key; set on every node of such a tree. */
    static final int FLAG_UNIQUE = 1 << 1;
    /** The node is the rightmost of its level: no upper bound. */
    static final int FLAG_HIGH_INFINITE = 1 << 2;
    /** The node is the leftmost of its level: no lower bound. */
    static final int FLAG_LOW_INFINITE = 1 << 3;

    static final int LEAF_ENTRY_SIZE = 16;
    static final int INTERNAL_ENTRY_SIZE = 24;
    /** Offsets inside an entry. */
    static final int ENTRY_KEY_OFFSET = 0;
    static final int ENTRY_VALUE_OFFSET = 8;
    static final int ENTRY_CHILD_OFFSET = 16;

    static final int LEAF_LEVEL = 0;
    /** The count field is two bytes and the level one. */
    static final int MAX_COUNT = 0xFFFF;
    static final int MAX_LEVEL = 0xFF;
    /** A split moves half the entries away; fewer than this leaves a side empty or an internal node childless. */
    static final int MIN_CAPACITY = 4;

    private BLinkNodeLayout() {
    }

    static int entrySize(int level) {
        return level == LEAF_LEVEL ? LEAF_ENTRY_SIZE : INTERNAL_ENTRY_SIZE;
    }

    static int entryOffset(int level, int index) {
        return ENTRIES_OFFSET + index * entrySize(level);
    }

    /** Entries a node of {@code level} holds in a GCL data region of {@code dataSize} bytes. */
    static int capacity(int dataSize, int level) {
        return Math.min(MAX_COUNT, (dataSize - ENTRIES_OFFSET) / entrySize(level));
    }

    /** The flags byte of a node. */
    static int flags(boolean root, boolean unique, boolean lowInfinite, boolean highInfinite) {
        return (root ? FLAG_ROOT : 0)
            | (unique ? FLAG_UNIQUE : 0)
            | (lowInfinite ? FLAG_LOW_INFINITE : 0)
            | (highInfinite ? FLAG_HIGH_INFINITE : 0);
    }
}
