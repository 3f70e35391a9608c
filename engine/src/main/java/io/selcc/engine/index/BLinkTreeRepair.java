package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.fabric.GlobalAddress;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * What crash repair ({@code io.selcc.engine.CrashRecovery}) needs of a B-link tree after a compute node
 * crashed with tree nodes in its cache: recognise a leaf in memory's copy of a line, find a tree's leaves
 * in memory, and rebuild an adopted leaf's entries from the table's rows. Only the survivors' repair calls
 * it, with no operation of the crashed node's running on the tree; it relies on every structure change
 * having been written through before its latches went (see {@link BLinkTree}).
 */
public final class BLinkTreeRepair {
    private BLinkTreeRepair() {
    }

    /** The level of the B-link node in a GCL's data (a snapshot or a held handle), or -1 if it is not one. */
    public static int nodeLevel(GclHandle gcl) {
        return gcl.getInt(BLinkNodeLayout.MAGIC_OFFSET) == BLinkNodeLayout.MAGIC
            ? Byte.toUnsignedInt(gcl.getByte(BLinkNodeLayout.LEVEL_OFFSET)) : -1;
    }

    /**
     * The tree's leaves as memory holds them, each once, read with {@link ComputeNode#snapshots} through
     * {@code reader}, without a latch. Memory's structure is whole: every split and post was written
     * through (see {@link BLinkTree}). The tree is read level by level from the root, every node of a
     * level in batches: a level is its parents' children plus any node reached only by a right link (a
     * split whose post to the parent had not happened). One round trip per node took seconds over a
     * network fabric for the indexes of a TPC-C warehouse.
     */
    public static void forEachLeafInMemory(BLinkTree tree, ComputeNode reader, LongConsumer leaf) {
        long root = tree.rootAddress();
        BLinkNode n = new BLinkNode(tree.isUnique());
        List<Long> level = List.of(root);
        int expectedLevel = -1;
        while (true) {
            LinkedHashSet<Long> members = new LinkedHashSet<>(level);
            List<Long> children = new ArrayList<>();
            List<Long> toRead = new ArrayList<>(level);
            boolean leaves = false;
            while (!toRead.isEmpty()) {
                long[] addresses = toRead.stream().mapToLong(Long::longValue).toArray();
                toRead = new ArrayList<>();
                GclHandle[] images = reader.snapshots(addresses);
                for (GclHandle image : images) {
                    long address = image.address();
                    n.wrap(image);
                    if (n.magic() != BLinkNodeLayout.MAGIC) {
                        throw new IllegalStateException("not a B-link node in memory: " + GlobalAddress.toString(address)
                            + " (tree " + GlobalAddress.toString(root) + ")");
                    }
                    if (expectedLevel >= 0 && n.level() != expectedLevel) {
                        throw new IllegalStateException("a node of level " + n.level() + " where level " + expectedLevel
                            + " was expected: " + GlobalAddress.toString(address) + " (tree " + GlobalAddress.toString(root) + ")");
                    }
                    expectedLevel = n.level();
                    if (n.isLeaf()) {
                        leaves = true;
                        leaf.accept(address);
                    } else {
                        for (int i = 0; i < n.count(); i++) {
                            children.add(n.child(i));
                        }
                    }
                    long next = n.rightLink();
                    if (next != 0 && members.add(next)) {
                        toRead.add(next); // reached only through a right link so far
                    }
                }
            }
            if (leaves) {
                return;
            }
            expectedLevel--;
            // A child is listed once: a split not yet posted leaves the parent with its old range.
            level = new ArrayList<>(new LinkedHashSet<>(children));
        }
    }

    /**
     * Makes the entries of leaf {@code h} of {@code tree} (held in X, adopted from a crashed node) exactly
     * the pairs of {@code keys}/{@code values}[0, n), sorted ascending by (key, value), that fall in its
     * range (low, high]. The caller computes the pairs from the rows (an index is a function of its
     * table's visible rows). Returns how many the leaf holds now.
     *
     * @throws IllegalStateException if {@code h} is not a leaf of a tree of this kind, or the pairs in
     *                               its range do not fit (they always did before the crash: a bug)
     */
    public static int rebuildLeaf(BLinkTree tree, GclHandle h, long[] keys, long[] values, int n) {
        boolean unique = tree.isUnique();
        BLinkNode leaf = new BLinkNode(unique).wrap(h);
        if (leaf.magic() != BLinkNodeLayout.MAGIC || !leaf.isLeaf()) {
            throw new IllegalStateException("not a leaf: " + GlobalAddress.toString(h.address()));
        }
        int from = leaf.lowInfinite() ? 0 : firstAbove(unique, keys, values, n, leaf.lowKey(), leaf.lowValue());
        int to = leaf.highInfinite() ? n : firstAbove(unique, keys, values, n, leaf.highKey(), leaf.highValue());
        int count = Math.max(0, to - from);
        if (count > tree.leafCapacity()) {
            throw new IllegalStateException("a rebuilt leaf would hold " + count + " entries, more than its "
                + tree.leafCapacity() + ": " + GlobalAddress.toString(h.address()));
        }
        leaf.setCount(0);
        for (int i = from; i < to; i++) {
            if (unique && i > from && keys[i] == keys[i - 1]) {
                throw new IllegalStateException("two rows with key " + keys[i] + " for a unique index: rids "
                    + values[i - 1] + " and " + values[i]);
            }
            leaf.insertLeafEntry(leaf.count(), keys[i], values[i]);
        }
        leaf.jumpVersion(); // not +1: see there
        return count;
    }

    /**
     * The keys a leaf can hold, from its fences (a {@link ComputeNode#snapshot} or a held handle):
     * {low, high}, both inclusive, {@code Long.MIN_VALUE}/{@code MAX_VALUE} for an infinite fence. By
     * key alone (a non-unique tree orders by key and value), so a superset of the leaf's pairs.
     */
    public static long[] leafKeyRange(GclHandle leaf) {
        BLinkNode node = new BLinkNode(false).wrap(leaf);
        return new long[] {node.lowInfinite() ? Long.MIN_VALUE : node.lowKey(),
            node.highInfinite() ? Long.MAX_VALUE : node.highKey()};
    }

    /** The first i in [0, n) whose pair is above (k, v) in the tree's order, else n. */
    private static int firstAbove(boolean unique, long[] keys, long[] values, int n, long k, long v) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (BLinkNode.compare(unique, keys[mid], values[mid], k, v) > 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
