package io.selcc.cc.occ;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.kit.BufferingTransaction;
import io.selcc.engine.cc.kit.CommitLeaves;
import io.selcc.engine.cc.kit.LatchedPages;
import io.selcc.engine.cc.kit.ReadSet;
import io.selcc.engine.cc.kit.RowViews;
import io.selcc.engine.index.LeafGuard;
import io.selcc.engine.index.LeafView;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One OCC transaction (Silo-style validation over page latches). Serializable: at commit every page
 * it writes is X-latched (in global order, so committers cannot deadlock) and its index changes are
 * made before any read is validated; a read validates only if its tuple's version and slot
 * incarnation are unchanged and no other committer holds its page ({@code trySLock} succeeds).
 *
 * <p>Predicate reads (scans, lookups that found nothing) record the version of every B-link leaf
 * they covered (the node set); commit validates those versions too, so an insert or delete that
 * another transaction committed into a scanned range fails validation (phantom protection). The
 * transaction's own index changes at commit move its recorded versions along, a split of a recorded
 * leaf adds the new sibling.
 */
final class OptimisticTransaction extends BufferingTransaction {
    /** A finished transaction's read set, for the thread's next one (recording a read then allocates nothing). */
    private static final ThreadLocal<ReadSet> SPARE_READS = new ThreadLocal<>();

    /** Rows as first read, by record id: borrowed from the thread (a nested transaction gets a fresh one). */
    private final ReadSet reads;
    private boolean readsReturned;
    /** Leaves covered by predicate reads: address -> version seen (or after this transaction's own change). */
    private final Map<Long, Long> nodeSet = new HashMap<>();
    private final NodeSetGuard guard = new NodeSetGuard();

    OptimisticTransaction(ComputeNode node) {
        super(node);
        ReadSet spare = SPARE_READS.get();
        if (spare != null) {
            SPARE_READS.set(null);
            reads = spare;
        } else {
            reads = new ReadSet();
        }
    }

    /** Gives the read set back to the thread once the transaction is over (committed or rolled back). */
    private void returnReads() {
        if (!readsReturned) {
            readsReturned = true;
            reads.clear();
            if (SPARE_READS.get() == null) {
                SPARE_READS.set(reads);
            }
        }
    }

    @Override
    protected void rolledBack() {
        returnReads();
    }

    @Override
    protected boolean readShared(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        GclHandle page = node.sLock(table.pageOf(rid));
        boolean changed = false;
        try {
            TupleView row = RowViews.of(table).wrap(page, table.slotOf(rid));
            if (!row.isVisible() || !expected.test(row)) {
                return false;
            }
            if (table.insertOnly()) {
                // A committed row of an insert-only table never changes: validating it could only pass,
                // so it stays out of the read set (no latch at commit for each ITEM a New-Order read).
                row.copyTo(into);
                return true;
            }
            int first = reads.indexOf(rid);
            if (first < 0) {
                reads.add(rid, table, row.version(), row.incarnation());
            } else {
                changed = !reads.unchanged(first, row.version(), row.incarnation());
            }
            if (!changed) {
                row.copyTo(into);
            }
        } finally {
            node.unlock(page);
        }
        if (changed) {
            // Changed since we read it: doomed anyway. Roll back only with no latch held: the rollback
            // latches this transaction's insert pages, which may be the page just read.
            throw abortWith(AbortReason.VALIDATION_FAILED, null);
        }
        return true;
    }

    @Override
    protected LeafGuard readGuard() {
        return guard;
    }

    @Override
    public void indexReadDone() {
        // Nothing to complete: the node set is validated at commit, and this guard never refuses.
    }

    @Override
    public AbortReason indexRefusal() {
        return null;
    }

    /** Every read still valid, every covered leaf unchanged, every insert slot intact (a crashed node's cache may take one). */
    @Override
    protected AbortReason validateReads(LatchedPages latched, CommitLeaves leaves) {
        return validate(latched) && validateNodeSet(leaves) && writes.insertsIntact(latched) ? null
            : AbortReason.VALIDATION_FAILED;
    }

    @Override
    protected long newVersion(long version) {
        return version + 1;
    }

    @Override
    protected void afterRelease() {
        returnReads();
    }

    /**
     * Every leaf a predicate read covered still has the version seen (moved along by this commit's
     * own changes), and no other committer holds it.
     */
    private boolean validateNodeSet(CommitLeaves leaves) {
        LeafView view = new LeafView();
        for (Map.Entry<Long, Long> leaf : nodeSet.entrySet()) {
            GclHandle mine = leaves.heldLatch(leaf.getKey());
            GclHandle h = mine != null ? mine : node.trySLock(leaf.getKey());
            if (h == null) {
                return false;
            }
            try {
                if (view.wrap(h).version() != leaf.getValue()) {
                    return false;
                }
            } finally {
                if (mine == null) {
                    node.unlock(h);
                }
            }
        }
        return true;
    }

    /** Plain short latches; records the node set and follows this transaction's own changes. */
    private final class NodeSetGuard implements LeafGuard {
        @Override
        public GclHandle latch(ComputeNode computeNode, long address, boolean exclusive, boolean mayRefuse) {
            return exclusive ? computeNode.xLock(address) : computeNode.sLock(address);
        }

        @Override
        public void unlatch(ComputeNode computeNode, GclHandle handle) {
            computeNode.unlock(handle);
        }

        @Override
        public boolean onRead(LeafView leaf) {
            nodeSet.putIfAbsent(leaf.address(), leaf.version());
            return true;
        }

        @Override
        public void afterChange(LeafView leaf, long versionBefore) {
            nodeSet.replace(leaf.address(), versionBefore, leaf.version());
        }

        @Override
        public void afterSplit(LeafView split, long versionBefore, LeafView newLeaf) {
            Long seen = nodeSet.get(split.address());
            if (seen != null && (seen == versionBefore || seen == split.version())) {
                // Part of the range this transaction read moved to the new leaf: watch it too.
                nodeSet.put(split.address(), split.version());
                nodeSet.put(newLeaf.address(), newLeaf.version());
            }
        }
    }

    private boolean validate(LatchedPages latched) {
        for (int i = 0; i < reads.size(); i++) {
            HeapTable table = reads.table(i);
            long rid = reads.rid(i);
            long pageAddress = table.pageOf(rid);
            GclHandle page = latched.isEmpty() ? null : latched.get(pageAddress); // no boxed key when read-only
            boolean mine = page != null;
            if (!mine) {
                page = node.trySLock(pageAddress);
                if (page == null) {
                    return false; // another committer is changing that page right now
                }
            }
            try {
                TupleView row = RowViews.of(table).wrap(page, table.slotOf(rid));
                if (!row.isVisible() || !reads.unchanged(i, row.version(), row.incarnation())) {
                    return false;
                }
            } finally {
                if (!mine) {
                    node.unlock(page);
                }
            }
        }
        return true;
    }
}
