package io.selcc.engine.index;

import io.selcc.cache.GclHandle;

/**
 * One thread's scratch for one tree, reused so the hot paths allocate nothing: the node views an
 * operation works through, the operation's settings, the descent's optimistic reads and path, the leaf
 * hints, and a scan's buffer. Not thread-safe: {@link BLinkTree} hands each thread its own and a nested
 * operation (a scan's visitor using the same tree) a fresh one.
 */
final class TreeContext {
    // Views over the latched nodes in hand: the node, a split's new sibling, a root split's second child.
    final BLinkNode view;
    final BLinkNode sibling;
    final BLinkNode third;
    final LeafView leafView = new LeafView();
    final LeafView newLeafView = new LeafView();

    // The operation in progress.
    LeafGuard guard = LeafGuard.NONE;
    /** A bulk load's insert ({@link BLinkTree#loadSorted}): splits stay in the cache, not written through. */
    boolean loading;
    /** Why the last {@link BLinkTree#insertRun} stopped early. */
    InsertOutcome runOutcome;
    boolean inUse;

    // The descent's parts: its latch-free reads of inner nodes, the path it took, the leaves it ended at.
    final OptimisticRead optimistic;
    final DescentPath path = new DescentPath();
    final LeafHints hints;

    // A scan's cursors, one per direction, and the buffer a leaf's entries are copied to.
    final LeafCursor forward = new LeafCursor.Forward();
    final LeafCursor backward = new LeafCursor.Backward();
    final long[] keys;
    final long[] values;

    TreeContext(boolean unique, int leafCapacity, GclHandle optimistic) {
        this.optimistic = new OptimisticRead(optimistic, unique);
        this.view = new BLinkNode(unique);
        this.sibling = new BLinkNode(unique);
        this.third = new BLinkNode(unique);
        this.hints = new LeafHints(unique);
        this.keys = new long[leafCapacity];
        this.values = new long[leafCapacity];
    }
}
