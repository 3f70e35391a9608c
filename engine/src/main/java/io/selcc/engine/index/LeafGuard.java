package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;

/**
 * A transaction's say over the leaves an index operation touches: how they are latched (a
 * transaction may already hold one, and latches are not reentrant; no-wait 2PL never blocks), which
 * leaves a predicate read covered (a scan, or a lookup that found nothing), and whether a leaf may
 * change. The tree calls it only for nodes that are (or, for the root, may be) leaves; internal
 * nodes are latched briefly as before.
 *
 * <p>A guard that refuses (returns null or false) makes the operation stop early without changing
 * anything; the operation's caller asks the guard why ({@link #refused()}). Not thread-safe: one
 * transaction, one thread.
 */
public interface LeafGuard {
    /** Plain latches, no protection: for loaders, checks, tests and anything outside a transaction. */
    LeafGuard NONE = new Plain();

    /**
     * Latches a leaf (or the root, whose level the tree learns only once latched). May return a
     * latch the transaction holds already. Null refuses (the leaf is busy and the caller does not
     * wait); allowed only when {@code mayRefuse}: the tree asks without it where it already changed
     * something (posting a split's separator into the root).
     */
    GclHandle latch(ComputeNode node, long address, boolean exclusive, boolean mayRefuse);

    /** The tree is done with a handle from {@link #latch} or {@link #adopt}; release it unless the transaction keeps it. */
    void unlatch(ComputeNode node, GclHandle handle);

    /** Whether a lookup before an insert latches its leaf in X (no-wait 2PL: no S-to-X upgrade at commit). */
    default boolean latchesLeafToInsert() {
        return false;
    }

    /** A split created this X-latched leaf; it is released through {@link #unlatch} like the others. */
    default void adopt(GclHandle newLeaf) {
    }

    /**
     * A predicate read covered this latched leaf: a scan read entries from it, or a lookup found
     * nothing in it. False refuses.
     */
    default boolean onRead(LeafView leaf) {
        return true;
    }

    /** The X-latched leaf is about to get or lose an entry (or split). False refuses: nothing changes. */
    default boolean beforeChange(LeafView leaf) {
        return true;
    }

    /** The X-latched leaf changed; its version was {@code versionBefore}. */
    default void afterChange(LeafView leaf, long versionBefore) {
    }

    /**
     * The X-latched leaf {@code split} (version {@code versionBefore} before the split) gave part of
     * its range to the new X-latched leaf {@code newLeaf}. A root that was a leaf calls this once per
     * new child.
     */
    default void afterSplit(LeafView split, long versionBefore, LeafView newLeaf) {
    }

    /** Why the last refusal happened; null if none did. */
    default String refused() {
        return null;
    }

    /** Blocking latches released at once; never refuses. */
    final class Plain implements LeafGuard {
        @Override
        public GclHandle latch(ComputeNode node, long address, boolean exclusive, boolean mayRefuse) {
            return exclusive ? node.xLock(address) : node.sLock(address);
        }

        @Override
        public void unlatch(ComputeNode node, GclHandle handle) {
            node.unlock(handle);
        }
    }
}
