package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.fabric.GlobalAddress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Checks the structure of a quiescent tree, for tests and diagnostics. It walks every level from its
 * leftmost node along the right links and checks, for every node: magic, level, flags; entries
 * strictly sorted; every entry within (low fence, high fence]; low fence equal to the left
 * neighbour's high fence (infinite for the leftmost, high fence infinite exactly for the rightmost).
 * Between levels it checks that the nodes reached by right links are exactly the children of the
 * level above, in order, with fences equal to the separators that bound them: every child pointer is
 * reachable and no node is orphaned. The leaf level yields all entries in order.
 *
 * <p>Run it when no writer is active: a tree being written to has transient states (a split whose
 * separator is not posted yet) that it reports as violations. It takes one S latch at a time.
 */
final class BLinkTreeChecker {
    private BLinkTreeChecker() {
    }

    /** What a successful check saw. Levels are indexed by level number (0 = leaves). */
    record Report(int height, int[] nodesPerLevel, long[] keys, long[] values) {
        int entries() {
            return keys.length;
        }
    }

    /**
     * @throws IllegalStateException naming the node and the broken invariant
     */
    static Report check(BLinkTree tree) {
        return new Walk(tree).run();
    }

    /** A node as the level above describes it: address and fences. */
    private record Expected(long address, boolean lowInfinite, long lowKey, long lowValue,
                            boolean highInfinite, long highKey, long highValue) {
    }

    private static final class Walk {
        private final ComputeNode node;
        private final boolean unique;
        private final long root;
        private final int leafCapacity;
        private final int internalCapacity;
        private final BLinkNode view;
        private long[] keys = new long[64];
        private long[] values = new long[64];
        private int entries;

        Walk(BLinkTree tree) {
            this.node = tree.node();
            this.unique = tree.isUnique();
            this.root = tree.rootAddress();
            this.leafCapacity = tree.leafCapacity();
            this.internalCapacity = tree.internalCapacity();
            this.view = new BLinkNode(unique);
        }

        Report run() {
            GclHandle h = node.sLock(root);
            int rootLevel;
            try {
                rootLevel = view.wrap(h).level();
            } finally {
                node.unlock(h);
            }
            int[] nodesPerLevel = new int[rootLevel + 1];
            List<Expected> expected = List.of(new Expected(root, true, 0, 0, true, 0, 0));
            for (int level = rootLevel; level >= 0; level--) {
                List<Expected> below = new ArrayList<>();
                long address = expected.getFirst().address();
                int index = 0;
                while (address != 0) {
                    if (index >= expected.size()) {
                        throw fail(address, "reachable by right links but no child of the level above", "level=" + level);
                    }
                    Expected e = expected.get(index);
                    if (e.address() != address) {
                        throw fail(address, "right-link order differs from the parent's child order",
                            "level=" + level + " expectedNode=" + GlobalAddress.toString(e.address()));
                    }
                    address = checkNode(e, level, below);
                    index++;
                }
                if (index != expected.size()) {
                    throw fail(expected.get(index).address(), "child not reachable along its level's right links", "level=" + level);
                }
                nodesPerLevel[level] = index;
                expected = below;
            }
            return new Report(rootLevel + 1, nodesPerLevel, Arrays.copyOf(keys, entries), Arrays.copyOf(values, entries));
        }

        /** Checks one node; appends its children to {@code below} or its entries to the output. Returns its right link. */
        private long checkNode(Expected e, int level, List<Expected> below) {
            long address = e.address();
            GclHandle h = node.sLock(address);
            try {
                BLinkNode n = view.wrap(h);
                if (n.magic() != BLinkNodeLayout.MAGIC) {
                    throw fail(address, "bad magic", "magic=0x" + Integer.toHexString(n.magic()));
                }
                if (n.level() != level) {
                    throw fail(address, "wrong level", "level=" + n.level() + " expected=" + level);
                }
                if (n.isRoot() != (address == root)) {
                    throw fail(address, "root flag on a non-root node or missing on the root", "flags=" + n.flags());
                }
                if (((n.flags() & BLinkNodeLayout.FLAG_UNIQUE) != 0) != unique) {
                    throw fail(address, "unique flag differs from the tree's", "flags=" + n.flags());
                }
                if (n.lowInfinite() != e.lowInfinite()
                    || !e.lowInfinite() && (n.lowKey() != e.lowKey() || n.lowValue() != e.lowValue())) {
                    throw fail(address, "low fence differs from the separator before it in the parent (or the left neighbour's high fence)",
                        "low=" + fence(n.lowInfinite(), n.lowKey(), n.lowValue())
                            + " expected=" + fence(e.lowInfinite(), e.lowKey(), e.lowValue()));
                }
                if (n.highInfinite() != e.highInfinite()
                    || !e.highInfinite() && (n.highKey() != e.highKey() || n.highValue() != e.highValue())) {
                    throw fail(address, "high fence differs from its separator in the parent",
                        "high=" + fence(n.highInfinite(), n.highKey(), n.highValue())
                            + " expected=" + fence(e.highInfinite(), e.highKey(), e.highValue()));
                }
                if (n.highInfinite() != (n.rightLink() == 0)) {
                    throw fail(address, "right link must be 0 exactly on the rightmost node",
                        "right=" + GlobalAddress.toString(n.rightLink()) + " highInfinite=" + n.highInfinite());
                }
                int count = n.count();
                int capacity = n.isLeaf() ? leafCapacity : internalCapacity;
                if (count > capacity || (!n.isLeaf() && count < 1)) {
                    throw fail(address, "entry count out of range", "count=" + count + " capacity=" + capacity);
                }
                // Entries checked against the fences: leaf entries and separators (except the implicit last) lie in (low, high].
                int checked = n.isLeaf() ? count : count - 1;
                for (int i = 0; i < checked; i++) {
                    long k = n.key(i);
                    long v = n.value(i);
                    if (i > 0 && n.compareEntry(i - 1, k, v) >= 0) {
                        throw fail(address, "entries not strictly ascending", "index=" + i + " entry=" + entry(k, v));
                    }
                    if (n.isAtOrBelowLow(k, v) || n.isAboveHigh(k, v)) {
                        throw fail(address, "entry outside the node's fences", "index=" + i + " entry=" + entry(k, v)
                            + " low=" + fence(n.lowInfinite(), n.lowKey(), n.lowValue())
                            + " high=" + fence(n.highInfinite(), n.highKey(), n.highValue()));
                    }
                    if (!n.isLeaf() && !n.highInfinite() && n.compare(k, v, n.highKey(), n.highValue()) == 0) {
                        throw fail(address, "separator equal to the high fence before the last entry", "index=" + i);
                    }
                }
                if (n.isLeaf()) {
                    for (int i = 0; i < count; i++) {
                        append(address, n.key(i), n.value(i));
                    }
                } else {
                    for (int i = 0; i < count; i++) {
                        boolean lowInf = i == 0 ? n.lowInfinite() : false;
                        long lowKey = i == 0 ? n.lowKey() : n.key(i - 1);
                        long lowValue = i == 0 ? n.lowValue() : n.value(i - 1);
                        boolean last = i == count - 1;
                        below.add(new Expected(n.child(i), lowInf, lowKey, lowValue,
                            last && n.highInfinite(), last ? n.highKey() : n.key(i), last ? n.highValue() : n.value(i)));
                    }
                }
                return n.rightLink();
            } finally {
                node.unlock(h);
            }
        }

        private void append(long address, long k, long v) {
            if (entries > 0 && BLinkNode.compare(unique, keys[entries - 1], values[entries - 1], k, v) >= 0) {
                throw fail(address, "leaf level not strictly ascending across leaves",
                    "previous=" + entry(keys[entries - 1], values[entries - 1]) + " entry=" + entry(k, v));
            }
            if (entries == keys.length) {
                keys = Arrays.copyOf(keys, entries * 2);
                values = Arrays.copyOf(values, entries * 2);
            }
            keys[entries] = k;
            values[entries] = v;
            entries++;
        }

        private String fence(boolean infinite, long k, long v) {
            return infinite ? "inf" : unique ? Long.toString(k) : "(" + k + "," + v + ")";
        }

        private static String entry(long k, long v) {
            return "(" + k + "," + v + ")";
        }

        private IllegalStateException fail(long address, String invariant, String details) {
            return new IllegalStateException("B-link invariant violated: " + invariant + ": node="
                + GlobalAddress.toString(address) + " root=" + GlobalAddress.toString(root) + " " + details);
        }
    }
}
