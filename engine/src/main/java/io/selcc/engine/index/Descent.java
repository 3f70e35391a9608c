package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.fabric.GlobalAddress;

import static io.selcc.engine.index.BLinkNodeLayout.LEAF_LEVEL;

/**
 * How an operation of one tree finds the node whose range holds a key: from a leaf hint or the root,
 * down one S latch at a time (inner nodes read optimistically where SELCC allows it), then right past
 * any split it raced with, latching the target as the operation needs. The latching rules are
 * {@link BLinkTree}'s class comment's. Leaves, and the root (which may be a leaf), are latched through
 * the operation's {@link LeafGuard}, other nodes directly. Stateless but for the tree it walks; the
 * per-thread state is in the {@link TreeContext} every method takes.
 */
final class Descent {
    /** {@link #descendTo} result when the guard refused the root (no real address is negative). */
    static final long REFUSED = -1;
    private final ComputeNode node;
    private final long root;

    Descent(ComputeNode node, long root) {
        this.node = node;
        this.root = root;
    }

    ComputeNode node() {
        return node;
    }

    /**
     * S-latches the leaf whose range holds (k, v): one latch per level, plus one per right move past
     * a split this descent raced with. Returns the held leaf handle, or null if the guard refused it.
     */
    GclHandle sLatchLeaf(TreeContext c, long k, long v) {
        long hinted = c.hints.take(k, v);
        long address = hinted != 0 ? hinted : root;
        boolean mayBeLeaf = true; // the root, a hinted leaf, or a node whose parent is at level 1
        while (true) {
            if (address != hinted && c.optimistic.read(node, address, k, v)) {
                address = c.optimistic.next;
                mayBeLeaf = !c.optimistic.movedRight && c.optimistic.level == LEAF_LEVEL + 1;
                continue;
            }
            GclHandle h = mayBeLeaf ? c.guard.latch(node, address, false, true) : node.sLock(address);
            if (h == null) {
                return null;
            }
            long next;
            boolean nextMayBeLeaf;
            try {
                BLinkNode n = c.view.wrap(h);
                if (n.isAboveHigh(k, v)) {
                    next = n.rightLink();
                    nextMayBeLeaf = n.isLeaf();
                } else if (n.isLeaf()) {
                    c.hints.reached(address, n, root);
                    return h;
                } else {
                    next = n.child(n.childIndex(k, v));
                    nextMayBeLeaf = n.level() == LEAF_LEVEL + 1;
                }
            } catch (RuntimeException | Error e) {
                unlatch(c, h, mayBeLeaf);
                throw e;
            }
            unlatch(c, h, mayBeLeaf);
            address = next;
            mayBeLeaf = nextMayBeLeaf;
        }
    }

    /**
     * X-latches, through the guard, the leaf whose range holds (k, v) for a change. Returns the held
     * handle, or null if the guard refused a latch.
     */
    GclHandle xLatchLeaf(TreeContext c, long k, long v) {
        long start = startOfLeafLevel(c, k, v);
        return start == REFUSED ? null : xLatchAt(c, start, LEAF_LEVEL, k, v);
    }

    /**
     * Where a leaf-level operation on (k, v) starts: the leaf this thread's previous operation on the
     * tree ended at when (k, v) is still in its range (no inner node read), else the leaf-level node
     * a descent from the root finds. Either way {@link #xLatchAt} then latches and re-checks it.
     */
    private long startOfLeafLevel(TreeContext c, long k, long v) {
        long hinted = c.hints.take(k, v);
        if (hinted != 0) {
            c.path.clear(); // no path: a split posts its separator by a descent from the root
            return hinted;
        }
        return descendTo(c, LEAF_LEVEL, k, v);
    }

    /**
     * Descends with S latches, one at a time, and returns (unlatched) the node at {@code level} whose
     * range held (k, v) when its parent was read: that node or one left of the node that holds it now.
     * Records in the context's path the node it left at each higher level, where a split posts its
     * separator. Returns the root itself when the root is at {@code level}, {@link #REFUSED} when the
     * guard refused the root.
     */
    long descendTo(TreeContext c, int level, long k, long v) {
        long address = root;
        c.path.clear();
        while (true) {
            if (c.optimistic.read(node, address, k, v) && c.optimistic.level > level) {
                int nodeLevel = c.optimistic.level;
                c.path.visited(nodeLevel);
                if (!c.optimistic.movedRight) {
                    c.path.remember(nodeLevel, address);
                    if (nodeLevel - 1 == level) {
                        return c.optimistic.next;
                    }
                }
                address = c.optimistic.next;
                continue;
            }
            // The root may be a leaf (and held by the transaction): it goes through the guard, which may
            // refuse only where nothing changed yet (a leaf-level operation's start).
            boolean viaGuard = address == root;
            GclHandle h = viaGuard ? c.guard.latch(node, address, false, level == LEAF_LEVEL) : node.sLock(address);
            if (h == null) {
                return REFUSED;
            }
            long next;
            try {
                BLinkNode n = c.view.wrap(h);
                int nodeLevel = n.level();
                c.path.visited(nodeLevel);
                if (nodeLevel <= level) {
                    if (nodeLevel < level || address != root) {
                        throw new IllegalStateException("descent passed its target level: level=" + level
                            + " nodeLevel=" + nodeLevel + " node=" + GlobalAddress.toString(address));
                    }
                    return address;
                }
                if (n.isAboveHigh(k, v)) {
                    next = n.rightLink();
                } else {
                    c.path.remember(nodeLevel, address);
                    next = n.child(n.childIndex(k, v));
                    if (nodeLevel - 1 == level) {
                        return next;
                    }
                }
            } finally {
                unlatch(c, h, viaGuard);
            }
            address = next;
        }
    }

    /**
     * X-latches the node at {@code level} whose range holds (k, v), starting at {@code start}: a node
     * of that level at or left of it, or the root. Moves right one latch at a time. Null if the guard
     * refused a latch.
     */
    GclHandle xLatchAt(TreeContext c, long start, int level, long k, long v) {
        long address = start;
        while (true) {
            boolean viaGuard = level == LEAF_LEVEL || address == root;
            GclHandle h = viaGuard ? c.guard.latch(node, address, true, level == LEAF_LEVEL) : node.xLock(address);
            if (h == null) {
                return null;
            }
            boolean rootGrew;
            long next = 0;
            try {
                BLinkNode n = c.view.wrap(h);
                rootGrew = n.level() != level;
                if (rootGrew) {
                    // Only the root changes level, when it splits in place: find the node at this level anew.
                    if (address != root) {
                        throw new IllegalStateException("node changed level: node=" + GlobalAddress.toString(address)
                            + " expected=" + level + " found=" + n.level());
                    }
                } else if (n.isAboveHigh(k, v)) {
                    next = n.rightLink();
                } else {
                    if (level == LEAF_LEVEL) {
                        c.hints.reached(address, n, root);
                    }
                    return h;
                }
            } catch (RuntimeException | Error e) {
                unlatch(c, h, viaGuard);
                throw e;
            }
            unlatch(c, h, viaGuard);
            address = rootGrew ? descendTo(c, level, k, v) : next;
            if (address == REFUSED) {
                return null;
            }
        }
    }

    /** Releases a latch taken through the guard ({@code viaGuard}) or directly. */
    void unlatch(TreeContext c, GclHandle h, boolean viaGuard) {
        if (viaGuard) {
            c.guard.unlatch(node, h);
        } else {
            node.unlock(h);
        }
    }

    /** Releases a latch on a node at {@code level}: leaves and the root through the guard. */
    void unlatchAt(TreeContext c, GclHandle h, int level) {
        unlatch(c, h, level == LEAF_LEVEL || h.address() == root);
    }
}
