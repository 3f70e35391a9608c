package io.selcc.engine.cc.kit;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.cc.CommitHook;
import io.selcc.engine.index.LeafGuard;
import io.selcc.engine.index.LeafView;

import java.util.HashMap;
import java.util.Map;

/**
 * The guard of a commit's index changes for algorithms that hold no leaf between operations (OCC,
 * TO): every leaf the commit changes stays X-latched until the commit ends, installed or undone.
 * Nobody sees half of a commit's index changes (a key this commit removed and then puts back
 * because a later change failed, say), and undoing them cannot fail or collide with another
 * transaction's change.
 *
 * <p>It waits for latches instead of refusing. That cannot deadlock: a commit takes its heap pages
 * first, then its leaves in (index, key) order ({@link CommitHook#beforeInstall}), and leaf order
 * along a B-link level never changes (a split only adds a node to the right); internal nodes are
 * held briefly by threads that wait for nothing else meanwhile.
 *
 * <p>The algorithm's own rules ({@code rules}: TO's timestamps, OCC's node set) still decide
 * whether a leaf may change and learn what changed. Not thread-safe: one commit, one thread.
 */
public final class CommitLeaves implements LeafGuard {
    private final LeafGuard rules;
    private final Map<Long, GclHandle> held = new HashMap<>();

    CommitLeaves(LeafGuard rules) {
        this.rules = rules;
    }

    /** The X latch this commit holds on {@code address}, or null. */
    public GclHandle heldLatch(long address) {
        return held.get(address);
    }

    /** Releases every leaf; the commit is over. */
    void releaseAll(ComputeNode node) {
        for (GclHandle h : held.values()) {
            node.unlock(h);
        }
        held.clear();
    }

    @Override
    public GclHandle latch(ComputeNode node, long address, boolean exclusive, boolean mayRefuse) {
        GclHandle h = held.get(address);
        if (h != null) {
            return h; // held ones are X: good for either mode
        }
        return exclusive ? node.xLock(address) : node.sLock(address);
    }

    @Override
    public void unlatch(ComputeNode node, GclHandle handle) {
        if (held.get(handle.address()) != handle) {
            node.unlock(handle);
        }
    }

    @Override
    public void adopt(GclHandle newLeaf) {
        held.put(newLeaf.address(), newLeaf);
    }

    @Override
    public boolean onRead(LeafView leaf) {
        return rules.onRead(leaf);
    }

    @Override
    public boolean beforeChange(LeafView leaf) {
        if (!rules.beforeChange(leaf)) {
            return false;
        }
        held.putIfAbsent(leaf.address(), leaf.handle());
        return true;
    }

    @Override
    public void afterChange(LeafView leaf, long versionBefore) {
        rules.afterChange(leaf, versionBefore);
    }

    /** A root that was a leaf and split in place is internal now: it is let go (its range moved to the new leaves). */
    @Override
    public void afterSplit(LeafView split, long versionBefore, LeafView newLeaf) {
        rules.afterSplit(split, versionBefore, newLeaf);
        if (!split.isLeaf()) {
            held.remove(split.address());
        }
    }

    @Override
    public String refused() {
        return rules.refused();
    }
}
