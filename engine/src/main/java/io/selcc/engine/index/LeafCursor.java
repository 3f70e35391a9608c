package io.selcc.engine.index;

import io.selcc.cache.GclHandle;

/**
 * A scan's way through the leaves that hold a key range, ascending ({@link Forward}) or descending
 * ({@link Backward}), and the one loop both run ({@link #scan}): per leaf, copy the range's entries in
 * the cursor's order under the leaf's S latch, release it, deliver the copies, go to the next leaf (what
 * a scan promises is in {@link BLinkTree}'s class comment).
 *
 * <p>A forward scan follows right links, resuming after the previous leaf's high fence. A backward scan
 * cannot (there are no left links): every node keeps its low fence, which splits never change, and
 * after a leaf the scan descends again from the root for that fence value: it reaches the left
 * neighbour (or, if that split meanwhile, its rightmost part), which holds the next entries down, and
 * continues from the fence. That costs one descent ({@code height} S latches) per leaf instead of one
 * latch, and stays correct under concurrent splits because splits only ever move entries to new nodes
 * on the right of the fence.
 *
 * <p>Reused, so a scan allocates nothing: a thread's {@link TreeContext} holds one cursor of each
 * direction and the buffer the entries are copied to.
 */
abstract sealed class LeafCursor {
    /** The scan's key range, both bounds inclusive. */
    long low;
    long high;

    /**
     * Delivers the entries with {@code low <= key <= high} in this cursor's order, at most {@code limit}
     * ({@code > 0}) of them, until the visitor returns false or {@code c.guard} refuses a leaf; every leaf
     * the scan copies from (or finds none in) is a predicate read ({@link LeafGuard#onRead}). Returns how
     * many it delivered.
     */
    final int scan(Descent descent, TreeContext c, long low, long high, int limit, EntryVisitor visitor) {
        this.low = low;
        this.high = high;
        LeafGuard guard = c.guard;
        int delivered = 0;
        GclHandle h = firstLeaf(descent, c);
        while (h != null) {
            int copied;
            boolean last;
            boolean refused;
            try {
                BLinkNode leaf = c.view.wrap(h);
                copied = copy(leaf, c.keys, c.values, limit - delivered);
                last = leave(leaf);
                refused = !guard.onRead(c.leafView.wrap(h));
            } finally {
                guard.unlatch(descent.node(), h);
            }
            if (refused) {
                return delivered;
            }
            for (int i = 0; i < copied; i++) {
                delivered++;
                if (!visitor.visit(c.keys[i], c.values[i])) {
                    return delivered;
                }
            }
            if (last || delivered == limit) {
                return delivered;
            }
            h = nextLeaf(descent, c);
        }
        return delivered;
    }

    /**
     * Copies into {@code keys}/{@code values}, in this cursor's order, at most {@code wanted} entries of
     * the latched {@code leaf} that lie in the range, from {@link #startIndex} on; returns how many.
     */
    private int copy(BLinkNode leaf, long[] keys, long[] values, int wanted) {
        int step = step();
        int n = leaf.count();
        int copied = 0;
        for (int i = startIndex(leaf); i >= 0 && i < n && copied < wanted; i += step) {
            long k = leaf.key(i);
            if (k < low || k > high) {
                break; // past the range's end (entries from the start index on never lie before its start)
            }
            keys[copied] = k;
            values[copied] = leaf.value(i);
            copied++;
        }
        return copied;
    }

    /** S-latches, through the guard, the leaf the scan starts at; null if the guard refused it. */
    abstract GclHandle firstLeaf(Descent descent, TreeContext c);

    /** The index of the first entry of the latched {@code leaf} this scan has not delivered yet. */
    abstract int startIndex(BLinkNode leaf);

    /** +1 ascending, -1 descending. */
    abstract int step();

    /**
     * Notes from the latched {@code leaf}'s fences where the next leaf resumes; returns true if no
     * further leaf can hold an entry of the range.
     */
    abstract boolean leave(BLinkNode leaf);

    /** S-latches, through the guard, the leaf after the one left; null if the guard refused it. */
    abstract GclHandle nextLeaf(Descent descent, TreeContext c);

    /** Ascending: along right links, each leaf resuming after the previous leaf's high fence. */
    static final class Forward extends LeafCursor {
        private boolean first;
        private long afterKey;
        private long afterValue;
        private long right;

        @Override
        GclHandle firstLeaf(Descent descent, TreeContext c) {
            first = true;
            return descent.sLatchLeaf(c, low, Long.MIN_VALUE);
        }

        @Override
        int startIndex(BLinkNode leaf) {
            // Later leaves resume after the previous leaf's high fence, which skips entries a split moved
            // here after we copied them from the left.
            return first ? leaf.lowerBound(low, Long.MIN_VALUE) : leaf.upperBound(afterKey, afterValue);
        }

        @Override
        int step() {
            return 1;
        }

        @Override
        boolean leave(BLinkNode leaf) {
            // Entries right of this leaf are > its high fence; none qualify once the fence reaches high.
            boolean last = leaf.highInfinite() || leaf.compare(leaf.highKey(), leaf.highValue(), high, Long.MAX_VALUE) >= 0;
            afterKey = leaf.highKey();
            afterValue = leaf.highValue();
            right = leaf.rightLink();
            first = false;
            return last;
        }

        @Override
        GclHandle nextLeaf(Descent descent, TreeContext c) {
            return c.guard.latch(descent.node(), right, false, true);
        }
    }

    /** Descending: after each leaf a new descent for its low fence, resuming below it. */
    static final class Backward extends LeafCursor {
        private long upperKey;
        private long upperValue;

        @Override
        GclHandle firstLeaf(Descent descent, TreeContext c) {
            upperKey = high;
            upperValue = Long.MAX_VALUE;
            return nextLeaf(descent, c);
        }

        @Override
        int startIndex(BLinkNode leaf) {
            return leaf.upperBound(upperKey, upperValue) - 1;
        }

        @Override
        int step() {
            return -1;
        }

        @Override
        boolean leave(BLinkNode leaf) {
            // Entries left of this leaf are <= its low fence; none qualify once the fence is below low.
            boolean last = leaf.lowInfinite() || leaf.lowKey() < low;
            upperKey = leaf.lowKey();
            upperValue = leaf.lowValue();
            return last;
        }

        @Override
        GclHandle nextLeaf(Descent descent, TreeContext c) {
            return descent.sLatchLeaf(c, upperKey, upperValue);
        }
    }
}
