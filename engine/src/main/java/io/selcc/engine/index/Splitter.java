package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SharedMemoryFullException;
import io.selcc.fabric.GlobalAddress;

import static io.selcc.engine.index.BLinkNodeLayout.LEAF_LEVEL;

/**
 * A tree's structure changes: an entry put into a latched node, and when the node is full, its split
 * (a new right sibling takes part of its entries, or for the root two new children take them all so
 * the root keeps its address) and the post of the separator into the parent, level by level up until
 * a node has room. Each change is written through to memory before its latches go, new nodes before
 * the links that lead to them (a bulk load's excepted), so memory always holds a well-formed tree (see
 * {@link BLinkTree} on crashes and latching). Stateless but for the tree it changes; the per-thread
 * state is in the {@link TreeContext} every method takes.
 */
final class Splitter {
    private final ComputeNode node;
    private final Descent descent;
    private final long root;
    private final boolean unique;
    private final int leafCapacity;
    private final int internalCapacity;

    Splitter(Descent descent, long root, boolean unique, int leafCapacity, int internalCapacity) {
        this.node = descent.node();
        this.descent = descent;
        this.root = root;
        this.unique = unique;
        this.leafCapacity = leafCapacity;
        this.internalCapacity = internalCapacity;
    }

    /**
     * Puts an entry into the X-latched node {@code h} at {@code level}: a leaf entry (k, v), or above
     * the leaves the post of a child split at separator (k, v) with new right node {@code newChild}.
     * Splits full nodes and posts upward until a node has room; releases every latch it took (leaf
     * latches through the guard, which may keep them). A leaf change was already allowed by
     * {@link LeafGuard#beforeChange}; this reports it with {@code afterChange} or {@code afterSplit}.
     */
    void insertEntry(TreeContext c, GclHandle h, int level, long k, long v, long newChild) {
        while (true) {
            BLinkNode n = c.view.wrap(h);
            boolean leaf = level == LEAF_LEVEL;
            if (n.count() < capacity(level)) {
                long versionBefore = n.version();
                put(n, k, v, newChild);
                n.bumpVersion();
                if (leaf) {
                    c.guard.afterChange(c.leafView.wrap(h), versionBefore);
                } else if (!c.loading) {
                    node.writeThrough(h); // structure outlives this node's cache (see the class comment)
                }
                descent.unlatchAt(c, h, level);
                return;
            }
            boolean posting = !leaf; // the leaf change is done; this is a separator going up
            long rightAddress;
            try {
                if (n.isRoot()) {
                    splitRoot(c, h, k, v, newChild);
                    return;
                }
                rightAddress = allocateOrUnlatch(c, h, level);
            } catch (SharedMemoryFullException e) {
                if (!posting) {
                    throw e; // nothing changed: the caller's insert fails as a whole
                }
                // Shared memory ran out between the leaf split and its parent's. The separator stays
                // unposted: the new node is reachable through its left sibling's right link, which is
                // all a B-link search needs, and the entry is in.
                return;
            }
            long separatorKey;
            long separatorValue;
            GclHandle rh = node.xLock(rightAddress);
            if (leaf) {
                c.guard.adopt(rh);
            }
            try {
                BLinkNode right = c.sibling.wrap(rh);
                // In half, except a leaf whose new entry goes right after the previous insert's (a run of
                // ascending inserts at one spot): it splits at the insertion point, so the run's leaves
                // end up full (a loader's; a district's newest orders), see BLinkNodeLayout.
                int count = n.count();
                int p = leaf ? n.insertionPoint(k, v) : -1;
                boolean run = p > 0 && p == n.lastInsert();
                int m = run ? p : count / 2;
                if (run && p < count) {
                    // The run grows in front of other entries: those move right, and the left node's range
                    // reaches just below them, so it takes this entry and the ones that follow.
                    if (unique) {
                        separatorKey = n.key(p) - 1;
                        separatorValue = 0;
                    } else {
                        long after = n.value(p);
                        separatorKey = after == Long.MIN_VALUE ? n.key(p) - 1 : n.key(p);
                        separatorValue = after == Long.MIN_VALUE ? Long.MAX_VALUE : after - 1;
                    }
                } else {
                    // In half, or at a run's end: every entry stays and the new one starts the right node.
                    separatorKey = n.key(m - 1);
                    separatorValue = n.value(m - 1);
                }
                long versionBefore = n.version();
                right.format(level, BLinkNodeLayout.flags(false, unique, false, n.highInfinite()),
                    separatorKey, separatorValue, n.highKey(), n.highValue(), n.rightLink());
                right.timestamps(n.readTimestamp(), n.writeTimestamp()); // it covers part of n's range
                n.moveEntriesTo(m, right);
                n.setHigh(separatorKey, separatorValue);
                // The right link goes in last under the same X latch: the sibling is complete before
                // anyone can reach it.
                n.setRightLink(rightAddress);
                put(n.compare(k, v, separatorKey, separatorValue) <= 0 ? n : right, k, v, newChild);
                n.bumpVersion();
                if (leaf) {
                    c.guard.afterSplit(c.leafView.wrap(h), versionBefore, c.newLeafView.wrap(rh));
                }
                // The new node reaches memory before the right link that leads to it.
                if (!c.loading) {
                    node.writeThrough(rh, h); // in this order, one round trip
                }
            } finally {
                descent.unlatchAt(c, rh, level);
                descent.unlatchAt(c, h, level);
            }
            // Post the separator. The split node is released first (unless the transaction keeps its
            // leaf): the sibling is reachable through the right link meanwhile, and no thread waits
            // for an internal node while holding another, which rules out deadlock.
            int parentLevel = level + 1;
            // Without a recorded path (the leaf came from a hint) the parent is found by an optimistic
            // descent: starting at the root would X-latch it, invalidating every other node's copy.
            long start = c.path.reaches(parentLevel) ? c.path.at(parentLevel)
                : descent.descendTo(c, parentLevel, separatorKey, separatorValue);
            h = descent.xLatchAt(c, start, parentLevel, separatorKey, separatorValue);
            level = parentLevel;
            k = separatorKey;
            v = separatorValue;
            newChild = rightAddress;
        }
    }

    /**
     * Splits the full root in place so its address never changes: its entries go to two new nodes at
     * its level and it becomes their parent, one level up. Releases all three latches.
     */
    private void splitRoot(TreeContext c, GclHandle rootHandle, long k, long v, long newChild) {
        int level = c.view.wrap(rootHandle).level();
        boolean leaf = level == LEAF_LEVEL;
        long leftAddress = allocateOrUnlatch(c, rootHandle, level);
        long rightAddress;
        try {
            rightAddress = allocateOrUnlatch(c, rootHandle, level);
        } catch (RuntimeException | Error e) {
            node.free(leftAddress);
            throw e;
        }
        GclHandle lh = node.xLock(leftAddress);
        GclHandle rh = node.xLock(rightAddress);
        if (leaf) {
            c.guard.adopt(lh);
            c.guard.adopt(rh);
        }
        try {
            BLinkNode n = c.view.wrap(rootHandle);
            BLinkNode left = c.sibling.wrap(lh);
            BLinkNode right = c.third.wrap(rh);
            if (level == BLinkNodeLayout.MAX_LEVEL) {
                throw new IllegalStateException("tree too high: root=" + GlobalAddress.toString(root) + " level=" + level);
            }
            long versionBefore = n.version();
            int m = n.count() / 2;
            long separatorKey = n.key(m - 1);
            long separatorValue = n.value(m - 1);
            left.format(level, BLinkNodeLayout.flags(false, unique, true, false), 0, 0, separatorKey, separatorValue, rightAddress);
            right.format(level, BLinkNodeLayout.flags(false, unique, false, true), separatorKey, separatorValue, 0, 0, 0);
            left.timestamps(n.readTimestamp(), n.writeTimestamp());
            right.timestamps(n.readTimestamp(), n.writeTimestamp());
            n.moveEntriesTo(m, right);
            n.moveEntriesTo(0, left);
            put(n.compare(k, v, separatorKey, separatorValue) <= 0 ? left : right, k, v, newChild);
            n.setLevel(level + 1);
            n.putInternalEntry(0, separatorKey, separatorValue, leftAddress);
            n.putInternalEntry(1, 0, 0, rightAddress); // separator unused: the root's high fence is infinite
            n.setCount(2);
            n.bumpVersion();
            if (leaf) {
                c.guard.afterSplit(c.leafView.wrap(rootHandle), versionBefore, c.newLeafView.wrap(lh));
                c.guard.afterSplit(c.leafView.wrap(rootHandle), versionBefore, c.newLeafView.wrap(rh));
            }
            if (!c.loading) {
                node.writeThrough(lh, rh, rootHandle); // the children before the root that leads to them
            }
        } finally {
            descent.unlatchAt(c, rh, level);
            descent.unlatchAt(c, lh, level);
            descent.unlatch(c, rootHandle, true); // the root always goes through the guard
        }
    }

    private void put(BLinkNode n, long k, long v, long newChild) {
        if (n.isLeaf()) {
            n.insertLeafEntry(n.insertionPoint(k, v), k, v);
        } else {
            n.insertSeparator(k, v, newChild);
        }
    }

    /** Allocation can fail (memory node full); the latch must not stay held then. */
    private long allocateOrUnlatch(TreeContext c, GclHandle held, int level) {
        try {
            return node.allocate();
        } catch (RuntimeException | Error e) {
            descent.unlatchAt(c, held, level);
            throw e;
        }
    }

    private int capacity(int level) {
        return level == LEAF_LEVEL ? leafCapacity : internalCapacity;
    }
}
