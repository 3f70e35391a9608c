package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SharedMemoryFullException;
import io.selcc.fabric.GlobalAddress;
import io.selcc.threads.PerThread;

import java.util.Objects;
import java.util.OptionalLong;

import static io.selcc.engine.index.BLinkNodeLayout.FLAG_ROOT;
import static io.selcc.engine.index.BLinkNodeLayout.FLAG_UNIQUE;
import static io.selcc.engine.index.BLinkNodeLayout.LEAF_LEVEL;

/**
 * A concurrent B-link tree (Lehman and Yao, 1981) over SELCC: each node is one GCL
 * ({@code BLinkNodeLayout}), keys and values are 64-bit. A unique tree maps a key to one value; a
 * non-unique tree holds (key, value) pairs, unique on the pair, ordered by key then value.
 *
 * <p><b>Crashes.</b> Every structure change (a split, a separator posted, a root split) is written
 * through to memory before its latches go, new nodes before the links that lead to them: when a
 * compute node crashes with tree nodes in its cache, memory still holds a well-formed tree whose leaves
 * may only lack entries (or keep removed ones), which the survivors' repair ({@link BLinkTreeRepair})
 * mends from the log.
 *
 * <p><b>Sharing.</b> The root stays at one global address for the tree's lifetime (a root split moves
 * the root's entries into two new children and keeps the root GCL), so {@link #create} hands out an
 * address that any compute node passes to {@link #open}. An instance is bound to one compute node
 * and is thread-safe: all threads of that node may share it.
 *
 * <p><b>Latching.</b> Every node has a high fence and a right link. Readers hold one S latch at a
 * time: they read a node, release it, then go down or, when the key lies beyond the high fence
 * because of a concurrent split, right. Writers descend the same way remembering the path, X-latch
 * the leaf and move right to the node whose range holds the key. A full node splits with a new right
 * sibling that takes the upper half; the left node gets the separator as its high fence and a right
 * link to the sibling, so the new node is reachable before the parent knows it. The writer then
 * releases both and X-latches the remembered parent (moving right as needed) to post the separator.
 * A thread therefore never waits for a latch while it holds one, except for the brand-new siblings of
 * a split, which no other thread can reach yet: there is no latch order to violate and no deadlock.
 *
 * <p><b>Cost.</b> A lookup latches one node per level, S only: {@code height} latches, for example 4
 * for ten million keys in 2 KiB GCLs (about 120 leaf entries and 80 children per node), plus one per
 * right move past a split it raced with. Under SELCC the upper levels are nearly always cache hits, so
 * a lookup usually costs zero or one round trip. An insert takes the same S latches above the leaves
 * and one X latch on the leaf; a split adds, per level it reaches, the new sibling (one allocation
 * and its X latch) and one X latch on the remembered parent, never a new descent from the root
 * (unless the root split meanwhile).
 *
 * <p><b>Deletes</b> remove the entry from its leaf and never merge or free nodes: an empty leaf
 * remains a valid node with its fences, and node addresses stay valid for the tree's lifetime, which
 * is what lets readers follow a child pointer after releasing its parent.
 *
 * <p><b>Scans</b> copy the matching entries of one leaf under its S latch, release it, and deliver
 * the copies to the {@link EntryVisitor}, so the visitor runs without latches. Scans are not
 * snapshots: an entry present for the whole scan is delivered exactly once, in order; an entry
 * inserted or deleted meanwhile may or may not be. A forward scan goes from leaf to leaf along right
 * links, one latch each; a backward scan, as there are no left links, descends again from the root for
 * each leaf ({@code height} S latches), see {@code LeafCursor}.
 */
public final class BLinkTree {
    private final ComputeNode node;
    private final long root;
    private final boolean unique;
    private final int leafCapacity;
    private final int internalCapacity;
    private final PerThread<TreeContext> contexts;
    private final Descent descent;
    private final Splitter splitter;

    private BLinkTree(ComputeNode node, long root, boolean unique) {
        this.node = node;
        this.root = root;
        this.unique = unique;
        this.leafCapacity = BLinkNodeLayout.capacity(node.dataSize(), LEAF_LEVEL);
        this.internalCapacity = BLinkNodeLayout.capacity(node.dataSize(), LEAF_LEVEL + 1);
        this.contexts = PerThread.withInitial(this::newContext);
        this.descent = new Descent(node, root);
        this.splitter = new Splitter(descent, root, unique, leafCapacity, internalCapacity);
    }

    /**
     * Creates an empty tree: allocates and formats its root GCL. Publish {@link #rootAddress()} for
     * other compute nodes.
     *
     * @param unique true for an index that refuses a second value for a key
     */
    public static BLinkTree create(ComputeNode node, boolean unique) {
        Objects.requireNonNull(node, "node");
        checkCapacity(node);
        long root = node.allocate();
        GclHandle h = node.xLock(root);
        try {
            new BLinkNode(unique).wrap(h).format(LEAF_LEVEL, BLinkNodeLayout.flags(true, unique, true, true), 0, 0, 0, 0, 0);
        } finally {
            node.unlock(h);
        }
        return new BLinkTree(node, root, unique);
    }

    /**
     * Opens an existing tree from its root address on (typically another) compute node; learns from the
     * root whether the tree is unique.
     *
     * @throws IllegalArgumentException if {@code rootAddress} is not the root of a B-link tree
     */
    public static BLinkTree open(ComputeNode node, long rootAddress) {
        Objects.requireNonNull(node, "node");
        checkCapacity(node);
        GclHandle h;
        try {
            h = node.sLock(rootAddress);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a B-link tree root: address=" + GlobalAddress.toString(rootAddress)
                + " (" + e.getMessage() + ")", e);
        }
        int magic;
        int flags;
        try {
            BLinkNode n = new BLinkNode(false).wrap(h);
            magic = n.magic();
            flags = n.flags();
        } finally {
            node.unlock(h);
        }
        if (magic != BLinkNodeLayout.MAGIC || (flags & FLAG_ROOT) == 0) {
            throw new IllegalArgumentException("not a B-link tree root: address=" + GlobalAddress.toString(rootAddress)
                + " magic=0x" + Integer.toHexString(magic) + " flags=0x" + Integer.toHexString(flags));
        }
        return new BLinkTree(node, rootAddress, (flags & FLAG_UNIQUE) != 0);
    }

    private static void checkCapacity(ComputeNode node) {
        int leaf = BLinkNodeLayout.capacity(node.dataSize(), LEAF_LEVEL);
        int internal = BLinkNodeLayout.capacity(node.dataSize(), LEAF_LEVEL + 1);
        if (Math.min(leaf, internal) < BLinkNodeLayout.MIN_CAPACITY) {
            throw new IllegalArgumentException("GCL too small for a B-link node: dataSize=" + node.dataSize()
                + " leafCapacity=" + leaf + " internalCapacity=" + internal);
        }
    }

    /** The root's global address, fixed for the tree's lifetime. */
    public long rootAddress() {
        return root;
    }

    public boolean isUnique() {
        return unique;
    }

    // ---------------------------------------------------------------- point operations

    /**
     * Adds an entry. In a unique tree a key present with any value refuses it; in a non-unique tree
     * only the same pair does.
     */
    public InsertOutcome insert(long key, long value) {
        return insert(key, value, LeafGuard.NONE);
    }

    /** {@link #insert(long, long)} with the leaves latched and checked through {@code guard}. */
    public InsertOutcome insert(long key, long value, LeafGuard guard) {
        TreeContext c = acquire();
        try {
            c.guard = guard;
            GclHandle h = descent.xLatchLeaf(c, key, value);
            if (h == null) {
                return InsertOutcome.REFUSED;
            }
            BLinkNode leaf = c.view.wrap(h);
            int i = leaf.insertionPoint(key, value);
            if (i < leaf.count() && leaf.compareEntry(i, key, value) == 0) {
                guard.unlatch(node, h);
                return unique ? InsertOutcome.DUPLICATE_KEY : InsertOutcome.DUPLICATE_ENTRY;
            }
            if (!guard.beforeChange(c.leafView.wrap(h))) {
                guard.unlatch(node, h);
                return InsertOutcome.REFUSED;
            }
            splitter.insertEntry(c, h, LEAF_LEVEL, key, value, 0);
            return InsertOutcome.INSERTED;
        } finally {
            release(c);
        }
    }

    /**
     * Adds entries given in ascending order, a bulk load's: by key in a unique tree, by (key, value) in a
     * non-unique one. One latch per leaf instead of one descent and latch per entry: entries go into the
     * leaf that holds the first of them while they fall in its range and it has room; a full leaf splits
     * as {@link #insert} splits it, so an ascending run leaves its leaves full. No guard: for loading,
     * with no transaction running on the tree.
     *
     * @return {@code to} when every entry went in; otherwise the index of the first entry that is already
     *         present (in the tree, or earlier in the array): the entries before it went in, none after it
     * @throws IllegalArgumentException if the entries are not in ascending order (nothing went in)
     */
    public int insertSorted(long[] keys, long[] values, int from, int to) {
        return insertSorted(keys, values, from, to, false);
    }

    /**
     * {@link #insertSorted} for a bulk load whose database counts it as loaded from its start (so no
     * crash repair runs until the caches are written back, see {@code Database.writeBackCaches}): its
     * splits are not written through to memory, they stay dirty in this node's cache and reach memory
     * with the cache's write-back. Memory may hold a malformed tree meanwhile (an evicted node's right
     * link before its new sibling), which only a crash repair would read, and none may run. Saves two
     * round trips per split (issue 27: over TCP each is ~100 us).
     */
    public int loadSorted(long[] keys, long[] values, int from, int to) {
        return insertSorted(keys, values, from, to, true);
    }

    private int insertSorted(long[] keys, long[] values, int from, int to, boolean loading) {
        checkAscending(keys, values, from, to);
        TreeContext c = acquire();
        try {
            c.guard = LeafGuard.NONE;
            c.loading = loading;
            return insertRun(c, keys, values, from, to, null);
        } finally {
            release(c);
        }
    }

    /**
     * {@link #insert(long, long, LeafGuard)} for entries in ascending order (as {@link #insertSorted}),
     * a committing transaction's: the entries that fall in one leaf go in under one latch, one guard
     * check ({@link LeafGuard#beforeChange}) and one version change, instead of one descent, latch and
     * check each (a New-Order's ten order lines share a leaf). {@code inserted} hears of each entry as it
     * goes in, so a caller can take them back when a later one fails.
     *
     * @return {@link InsertOutcome#INSERTED} when every entry went in; otherwise the outcome of the first
     *         that did not, and none after it went in
     * @throws IllegalArgumentException if the entries are not in ascending order (nothing went in)
     * @throws SharedMemoryFullException when a split finds shared memory full; the entries reported to
     *         {@code inserted} went in, the one being inserted did not
     */
    public InsertOutcome insertRun(long[] keys, long[] values, int from, int to, LeafGuard guard,
                                   InsertListener inserted) {
        checkAscending(keys, values, from, to);
        TreeContext c = acquire();
        try {
            c.guard = guard;
            int stopped = insertRun(c, keys, values, from, to, inserted);
            return stopped == to ? InsertOutcome.INSERTED : c.runOutcome;
        } finally {
            release(c);
        }
    }

    /** Told of each entry {@link #insertRun} put in, while its leaf is still latched. */
    @FunctionalInterface
    public interface InsertListener {
        void inserted(long key, long value);
    }

    private void checkAscending(long[] keys, long[] values, int from, int to) {
        Objects.checkFromToIndex(from, to, keys.length);
        Objects.checkFromToIndex(from, to, values.length);
        for (int j = from + 1; j < to; j++) {
            if (BLinkNode.compare(unique, keys[j - 1], values[j - 1], keys[j], values[j]) > 0) {
                throw new IllegalArgumentException("entries not in ascending order at index " + j + ": ("
                    + keys[j - 1] + ", " + values[j - 1] + ") then (" + keys[j] + ", " + values[j] + ")");
            }
        }
    }

    /**
     * The loop of {@link #insertSorted} and {@link #insertRun}: returns {@code to}, or the index of the
     * first entry that did not go in with the reason in {@code c.runOutcome}. Per leaf: latch (through
     * the guard), then while the next entry falls in the leaf's range: a duplicate stops the run, the
     * guard is asked once before the leaf's first change, a full leaf splits (as
     * {@link Splitter#insertEntry} does, which releases it), else the entry goes in; one version change
     * and one {@link LeafGuard#afterChange} cover the leaf's entries.
     */
    private int insertRun(TreeContext c, long[] keys, long[] values, int from, int to, InsertListener inserted) {
        int i = from;
        while (i < to) {
            long k = keys[i];
            long v = values[i];
            GclHandle h = descent.xLatchLeaf(c, k, v);
            if (h == null) {
                c.runOutcome = InsertOutcome.REFUSED;
                return i;
            }
            BLinkNode leaf = c.view.wrap(h);
            long versionBefore = leaf.version();
            boolean allowed = false;
            boolean changed = false;
            boolean released = false;
            InsertOutcome stop = null;
            while (true) {
                int p = leaf.insertionPoint(k, v);
                if (p < leaf.count() && leaf.compareEntry(p, k, v) == 0) {
                    stop = unique ? InsertOutcome.DUPLICATE_KEY : InsertOutcome.DUPLICATE_ENTRY;
                    break;
                }
                if (!allowed && !(allowed = c.guard.beforeChange(c.leafView.wrap(h)))) {
                    stop = InsertOutcome.REFUSED;
                    break;
                }
                if (leaf.count() >= leafCapacity) {
                    finishLeafChange(c, h, leaf, changed, versionBefore);
                    released = true;
                    splitter.insertEntry(c, h, LEAF_LEVEL, k, v, 0); // splits, posts upward, releases the latches
                    if (inserted != null) {
                        inserted.inserted(k, v);
                    }
                    i++;
                    break;
                }
                leaf.insertLeafEntry(p, k, v);
                changed = true;
                if (inserted != null) {
                    inserted.inserted(k, v);
                }
                if (++i == to) {
                    break;
                }
                k = keys[i];
                v = values[i];
                if (leaf.isAboveHigh(k, v)) {
                    break;
                }
            }
            if (!released) {
                finishLeafChange(c, h, leaf, changed, versionBefore);
                descent.unlatchAt(c, h, LEAF_LEVEL);
            }
            if (stop != null) {
                c.runOutcome = stop;
                return i;
            }
        }
        return to;
    }

    /** One version change and one {@link LeafGuard#afterChange} for the entries a run put into a leaf. */
    private void finishLeafChange(TreeContext c, GclHandle h, BLinkNode leaf, boolean changed, long versionBefore) {
        if (changed) {
            leaf.bumpVersion();
            c.guard.afterChange(c.leafView.wrap(h), versionBefore);
        }
    }

    /**
     * Removes a key from a unique tree.
     *
     * @return true if the key was present
     * @throws IllegalStateException on a non-unique tree (use {@link #delete(long, long)})
     */
    public boolean delete(long key) {
        requireUnique("delete(key)");
        return remove(key, 0, false, LeafGuard.NONE);
    }

    /**
     * Removes the entry (key, value): in a unique tree only if the key maps to this value.
     *
     * @return true if the entry was present
     */
    public boolean delete(long key, long value) {
        return remove(key, value, true, LeafGuard.NONE);
    }

    /**
     * Removes the entry (key, value) with the leaf latched and checked through {@code guard}: in a
     * unique tree only if the key maps to this value.
     *
     * @return true if the entry was present and removed; false if absent or the guard refused
     *         (then {@code guard.refused()} says why)
     */
    public boolean delete(long key, long value, LeafGuard guard) {
        return remove(key, value, true, guard);
    }

    private boolean remove(long key, long value, boolean matchValue, LeafGuard guard) {
        TreeContext c = acquire();
        try {
            c.guard = guard;
            GclHandle h = descent.xLatchLeaf(c, key, value);
            if (h == null) {
                return false;
            }
            try {
                BLinkNode leaf = c.view.wrap(h);
                int i = leaf.lowerBound(key, value);
                if (i == leaf.count() || leaf.compareEntry(i, key, value) != 0) {
                    return false;
                }
                if (matchValue && leaf.value(i) != value) {
                    return false;
                }
                if (!guard.beforeChange(c.leafView.wrap(h))) {
                    return false;
                }
                long versionBefore = leaf.version();
                leaf.removeEntry(i);
                leaf.bumpVersion();
                guard.afterChange(c.leafView.wrap(h), versionBefore);
                return true;
            } finally {
                guard.unlatch(node, h);
            }
        } finally {
            release(c);
        }
    }

    /**
     * The value of a key in a unique tree; allocation-free.
     *
     * @return the value, or {@code absent} when the key is not present
     * @throws IllegalStateException on a non-unique tree (use {@link #lookupAll} or {@link #scan})
     */
    public long lookup(long key, long absent) {
        return lookup(key, absent, LeafGuard.NONE);
    }

    /**
     * {@link #lookup(long, long)} through {@code guard}: a lookup that finds nothing is a predicate
     * read of its leaf ({@link LeafGuard#onRead}). Returns {@code absent} also when the guard refused.
     */
    public long lookup(long key, long absent, LeafGuard guard) {
        return lookup(key, absent, guard, false);
    }

    /**
     * {@link #lookup(long, long, LeafGuard)} before inserting {@code key}: when the guard asks for it
     * ({@link LeafGuard#latchesLeafToInsert()}), the leaf is latched in X from the start, so two
     * transactions about to insert into one leaf conflict at once instead of both holding it shared
     * and failing to upgrade at commit.
     */
    public long lookupToInsert(long key, long absent, LeafGuard guard) {
        return lookup(key, absent, guard, true);
    }

    /**
     * {@link #lookupToInsert} of each of {@code keys[from, to)}, given in strictly ascending order, into
     * {@code values} at the same indexes ({@code absent} where the key is not present), up to and
     * including the first key that is present: the keys that fall in one leaf are looked up under one
     * latch, and a leaf where any of them is missing counts as one predicate read
     * ({@link LeafGuard#onRead}), instead of one descent, latch and read per key (a New-Order's ten order
     * lines share a leaf). The same results and protection as the lookups one by one, in order, stopping
     * at the first key found (as inserts one by one stop there), made at once.
     *
     * @return how many keys from {@code from} on were looked up: {@code to - from} when none is present,
     *         else up to and including the first present one; -1 when the guard refused a latch or a read
     *         (the guard says why, as after {@link #lookup(long, long, LeafGuard)})
     * @throws IllegalArgumentException if the keys are not strictly ascending (nothing was looked up)
     * @throws IllegalStateException on a non-unique tree
     */
    public int lookupRunToInsert(long[] keys, int from, int to, long[] values, long absent, LeafGuard guard) {
        requireUnique("lookupRunToInsert");
        Objects.checkFromToIndex(from, to, keys.length);
        Objects.checkFromToIndex(from, to, values.length);
        for (int j = from + 1; j < to; j++) {
            if (keys[j - 1] >= keys[j]) {
                throw new IllegalArgumentException("keys not strictly ascending at index " + j + ": " + keys[j - 1]
                    + " then " + keys[j]);
            }
        }
        boolean exclusive = guard.latchesLeafToInsert();
        TreeContext c = acquire();
        try {
            c.guard = guard;
            int i = from;
            boolean foundOne = false;
            while (i < to && !foundOne) {
                GclHandle h = exclusive ? descent.xLatchLeaf(c, keys[i], 0) : descent.sLatchLeaf(c, keys[i], 0);
                if (h == null) {
                    return -1;
                }
                try {
                    BLinkNode leaf = c.view.wrap(h);
                    boolean anyAbsent = false;
                    do {
                        long key = keys[i];
                        int p = leaf.insertionPoint(key, 0);
                        if (p < leaf.count() && leaf.key(p) == key) {
                            values[i] = leaf.value(p);
                            foundOne = true; // inserts stop here: no key after it is looked up
                        } else {
                            values[i] = absent;
                            anyAbsent = true;
                        }
                        i++;
                    } while (!foundOne && i < to && !leaf.isAboveHigh(keys[i], 0));
                    if (anyAbsent && !guard.onRead(c.leafView.wrap(h))) {
                        return -1;
                    }
                } finally {
                    guard.unlatch(node, h);
                }
            }
            return i - from;
        } finally {
            release(c);
        }
    }

    /** A lookup; {@code toInsert}: before inserting the key (latched in X when the guard asks, see above). */
    private long lookup(long key, long absent, LeafGuard guard, boolean toInsert) {
        boolean exclusive = toInsert && guard.latchesLeafToInsert();
        requireUnique("lookup(key)");
        TreeContext c = acquire();
        try {
            c.guard = guard;
            GclHandle h = exclusive ? descent.xLatchLeaf(c, key, 0) : descent.sLatchLeaf(c, key, 0);
            if (h == null) {
                return absent;
            }
            try {
                BLinkNode leaf = c.view.wrap(h);
                int i = toInsert ? leaf.insertionPoint(key, 0) : leaf.lowerBound(key, 0);
                if (i < leaf.count() && leaf.key(i) == key) {
                    return leaf.value(i);
                }
                guard.onRead(c.leafView.wrap(h));
                return absent;
            } finally {
                guard.unlatch(node, h);
            }
        } finally {
            release(c);
        }
    }

    /**
     * The value of a key in a unique tree, or empty.
     *
     * @throws IllegalStateException on a non-unique tree
     */
    public OptionalLong lookup(long key) {
        requireUnique("lookup(key)");
        TreeContext c = acquire();
        try {
            c.guard = LeafGuard.NONE;
            GclHandle h = descent.sLatchLeaf(c, key, 0);
            try {
                BLinkNode leaf = c.view.wrap(h);
                int i = leaf.lowerBound(key, 0);
                return i < leaf.count() && leaf.key(i) == key ? OptionalLong.of(leaf.value(i)) : OptionalLong.empty();
            } finally {
                node.unlock(h);
            }
        } finally {
            release(c);
        }
    }

    /** All values of a key, ascending (at most one in a unique tree). Allocates; {@link #scan} does not. */
    public long[] lookupAll(long key) {
        ValueCollector values = new ValueCollector();
        scan(key, key, Integer.MAX_VALUE, values);
        return values.toArray();
    }

    // ---------------------------------------------------------------- scans

    /**
     * Delivers the entries with {@code low <= key <= high} in ascending (key, value) order, at most
     * {@code limit} of them, until the visitor returns false. Nothing when {@code low > high}.
     *
     * @return the number of entries delivered
     * @throws IllegalArgumentException if {@code limit < 0}
     */
    public int scan(long low, long high, int limit, EntryVisitor visitor) {
        return scan(low, high, limit, visitor, LeafGuard.NONE);
    }

    /**
     * {@link #scan(long, long, int, EntryVisitor)} through {@code guard}: every leaf it copies entries
     * from (or finds none in) is a predicate read ({@link LeafGuard#onRead}). Stops early when the
     * guard refuses.
     */
    public int scan(long low, long high, int limit, EntryVisitor visitor, LeafGuard guard) {
        return scan(false, low, high, limit, visitor, guard);
    }

    /**
     * Like {@link #scan} in descending (key, value) order: the {@code limit} largest entries of the
     * range first.
     */
    public int scanBackward(long low, long high, int limit, EntryVisitor visitor) {
        return scanBackward(low, high, limit, visitor, LeafGuard.NONE);
    }

    /** {@link #scanBackward(long, long, int, EntryVisitor)} through {@code guard}, as {@link #scan} does. */
    public int scanBackward(long low, long high, int limit, EntryVisitor visitor, LeafGuard guard) {
        return scan(true, low, high, limit, visitor, guard);
    }

    private int scan(boolean backward, long low, long high, int limit, EntryVisitor visitor, LeafGuard guard) {
        Objects.requireNonNull(visitor, "visitor");
        checkLimit(limit);
        if (low > high || limit == 0) {
            return 0;
        }
        TreeContext c = acquire();
        try {
            c.guard = guard;
            return (backward ? c.backward : c.forward).scan(descent, c, low, high, limit, visitor);
        } finally {
            release(c);
        }
    }

    // ---------------------------------------------------------------- helpers

    private void requireUnique(String operation) {
        if (!unique) {
            throw new IllegalStateException(operation + " needs a unique index: root=" + GlobalAddress.toString(root));
        }
    }

    private static void checkLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("scan limit must be >= 0: limit=" + limit);
        }
    }

    ComputeNode node() {
        return node;
    }

    /** Drops the calling thread's leaf hints on this tree (tests that count a full descent). */
    void forgetLeafHints() {
        contexts.get().hints.forget();
    }

    /** Leaf-level operations of the calling thread on this tree that started at a hinted leaf. */
    long leafHintsTaken() {
        return contexts.get().hints.taken();
    }

    int leafCapacity() {
        return leafCapacity;
    }

    int internalCapacity() {
        return internalCapacity;
    }

    private TreeContext acquire() {
        TreeContext c = contexts.get();
        if (c.inUse) {
            // A visitor scanning the same tree from inside a scan: the outer scan still reads c's buffers.
            c = newContext();
        }
        c.inUse = true;
        return c;
    }

    private static void release(TreeContext c) {
        c.inUse = false;
        c.guard = LeafGuard.NONE;
        c.loading = false;
    }

    private TreeContext newContext() {
        return new TreeContext(unique, leafCapacity, node.optimisticHandle());
    }
}
