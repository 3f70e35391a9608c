package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;

import static io.selcc.engine.index.BLinkNodeLayout.LEAF_LEVEL;

/**
 * A descent's read of an inner node without latching it (SELCC's cached copy, validated by the frame's
 * latch stamp), and what the last successful read found: the node's level and where (k, v) goes from
 * it. Inner nodes are never part of a transaction's read set, so nothing but a consistent copy is
 * needed, and readers then never write the hottest lines (the root). Reused: part of a thread's
 * {@link TreeContext}.
 */
final class OptimisticRead {
    private final GclHandle handle;
    private final BLinkNode view;
    // What the last successful read found (set only by it): the node's level, and where (k, v) goes
    // from it: its child for (k, v), or its right sibling when (k, v) lay above its high fence.
    int level;
    long next;
    boolean movedRight;

    OptimisticRead(GclHandle handle, boolean unique) {
        this.handle = handle;
        this.view = new BLinkNode(unique);
    }

    /**
     * Reads inner node {@code address} for (k, v) and returns true with {@link #level}, {@link #next}
     * and {@link #movedRight} set; false when the node must be latched instead: not cached readable, a
     * leaf (the guard decides about leaves), or changed while it was read.
     */
    boolean read(ComputeNode node, long address, long k, long v) {
        GclHandle h = handle;
        if (!node.tryOptimisticRead(address, h)) {
            return false;
        }
        int level;
        long next;
        boolean movedRight;
        try {
            BLinkNode n = view.wrap(h);
            level = n.level();
            if (level == LEAF_LEVEL) {
                node.validate(h);
                return false;
            }
            movedRight = n.isAboveHigh(k, v);
            next = movedRight ? n.rightLink() : n.child(n.childIndex(k, v));
        } catch (RuntimeException e) {
            if (node.validate(h)) {
                throw e; // a consistent copy: a real bug, not a torn read
            }
            return false;
        }
        if (!node.validate(h)) {
            return false;
        }
        this.level = level;
        this.next = next;
        this.movedRight = movedRight;
        return true;
    }
}
