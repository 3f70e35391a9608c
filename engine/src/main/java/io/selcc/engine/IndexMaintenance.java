package io.selcc.engine;

import io.selcc.cache.SharedMemoryFullException;
import io.selcc.engine.PendingIndexChanges.IndexChange;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.engine.index.BLinkTree;
import io.selcc.engine.index.InsertOutcome;

import java.util.Comparator;
import java.util.List;

/**
 * A transaction's part of its commit ({@link CcTransaction#commit}): applies its pending index changes
 * from inside the algorithm's commit, in one global order: by index, then key (then record id where
 * keys repeat), a key's removal before its addition. The order lets algorithms that wait for leaf
 * latches at commit do so without deadlock (leaves are taken left to right in each tree, trees in a
 * fixed order), and a unique key that moves between rows in one transaction is free again before it
 * is added. The commit point between (a branch's vote, the append) is the {@link CommitRecord}'s. One
 * per commit, run by the committing thread.
 */
final class IndexMaintenance implements CommitHook, BLinkTree.InsertListener {
    /** Written out: a chain of five key extractors was a tenth of a New-Order's commit. */
    private static final Comparator<IndexChange> ORDER = (a, b) -> {
        int c = Long.compare(a.index().tree().rootAddress(), b.index().tree().rootAddress());
        if (c == 0) {
            c = Long.compare(a.key(), b.key());
        }
        if (c == 0 && !a.index().isUnique()) {
            c = Long.compare(a.rid(), b.rid());
        }
        if (c == 0) {
            c = Boolean.compare(a.add(), b.add()); // false (removal) first
        }
        return c != 0 ? c : Long.compare(a.rid(), b.rid());
    };

    private final PendingIndexChanges pending;
    private final CcTransaction cc;
    private final CommitRecord commitRecord;

    IndexMaintenance(PendingIndexChanges pending, CcTransaction cc, CommitRecord commitRecord) {
        this.pending = pending;
        this.cc = cc;
        this.commitRecord = commitRecord;
    }

    // The commit's own state, set from beforeInstall on.
    /** Done changes, to put back in reverse order (parallel arrays: no box or array per change). */
    private Index[] doneIndexes;
    private long[] doneKeys;
    private long[] doneRids;
    private boolean[] doneAdded;
    private int doneCount;
    /** A run of additions to one index ({@link #add}), made at the first run of two or more. */
    private long[] runKeys;
    private long[] runRids;
    private Index runIndex;

    @Override
    public AbortReason beforeInstall() {
        List<IndexChange> changes = pending.toApply();
        // Sized once: at most every change is done, then undone.
        int total = changes.size();
        doneIndexes = new Index[total];
        doneKeys = new long[total];
        doneRids = new long[total];
        doneAdded = new boolean[total];
        doneCount = 0;
        changes.sort(ORDER);
        for (int i = 0; i < changes.size(); ) {
            IndexChange change = changes.get(i);
            AbortReason failed;
            if (change.add()) {
                // Consecutive additions to one index are in its order: one run, one latch per leaf.
                int end = i + 1;
                while (end < changes.size() && changes.get(end).add() && changes.get(end).index() == change.index()) {
                    end++;
                }
                failed = add(change.index(), changes, i, end);
                i = end;
            } else {
                failed = remove(change.index(), change.key(), change.rid());
                i++;
            }
            if (failed != null) {
                return fail(failed);
            }
        }
        return null;
    }

    /** Adds changes [from, to), all additions to {@code index} in its order, recording each as done. */
    private AbortReason add(Index index, List<IndexChange> changes, int from, int to) {
        int n = to - from;
        if (n == 1) {
            return add(index, changes.get(from).key(), changes.get(from).rid());
        }
        if (runKeys == null || runKeys.length < n) {
            runKeys = new long[n];
            runRids = new long[n];
        }
        for (int j = 0; j < n; j++) {
            runKeys[j] = changes.get(from + j).key();
            runRids[j] = changes.get(from + j).rid();
        }
        runIndex = index;
        InsertOutcome outcome;
        try {
            outcome = index.tree().insertRun(runKeys, runRids, 0, n, cc.leafGuard(), this);
        } catch (SharedMemoryFullException e) {
            return fail(AbortReason.SHARED_MEMORY_FULL); // the entries before it are recorded: undone
        }
        if (outcome == InsertOutcome.REFUSED) {
            return cc.indexRefusal();
        }
        if (outcome != InsertOutcome.INSERTED) {
            return AbortReason.DUPLICATE_KEY;
        }
        return null;
    }

    private AbortReason add(Index index, long key, long rid) {
        InsertOutcome outcome;
        try {
            outcome = index.tree().insert(key, rid, cc.leafGuard());
        } catch (SharedMemoryFullException e) {
            return fail(AbortReason.SHARED_MEMORY_FULL); // the tree changed nothing (see BLinkTree.insert)
        }
        if (outcome == InsertOutcome.REFUSED) {
            return cc.indexRefusal();
        }
        if (outcome != InsertOutcome.INSERTED) {
            return AbortReason.DUPLICATE_KEY;
        }
        recordDone(index, key, rid, true);
        return null;
    }

    /** The commit record's: the vote of a distributed branch, then the append to the commit log. */
    @Override
    public AbortReason commitPoint() {
        return commitRecord.commitPoint();
    }

    @Override
    public void inserted(long key, long rid) {
        recordDone(runIndex, key, rid, true);
    }

    private AbortReason remove(Index index, long key, long rid) {
        if (index.tree().delete(key, rid, cc.leafGuard())) {
            recordDone(index, key, rid, false);
            return null;
        }
        // Refused, or absent: a concurrent commit removed it first (OCC validates only after index
        // changes, so this is where it learns). Either way a conflict.
        AbortReason refusal = cc.indexRefusal();
        return refusal != null ? refusal : AbortReason.STALE_READ;
    }

    private void recordDone(Index index, long key, long rid, boolean added) {
        doneIndexes[doneCount] = index;
        doneKeys[doneCount] = key;
        doneRids[doneCount] = rid;
        doneAdded[doneCount] = added;
        doneCount++;
    }

    private AbortReason fail(AbortReason reason) {
        undo();
        return reason;
    }

    @Override
    public void undo() {
        for (int i = doneCount - 1; i >= 0; i--) {
            Index index = doneIndexes[i];
            long key = doneKeys[i];
            long rid = doneRids[i];
            boolean undone = doneAdded[i]
                ? index.tree().delete(key, rid, cc.undoGuard())
                : index.tree().insert(key, rid, cc.undoGuard()) == InsertOutcome.INSERTED;
            if (!undone) {
                // The leaves it changed are still protected by this commit: failing here is a bug,
                // and going on would leave an entry of an aborted transaction in the index.
                throw new IllegalStateException("index undo failed: index=" + index.name() + " key=" + key
                    + " rid=" + rid + (cc.indexRefusal() != null ? " refused=" + cc.indexRefusal() : ""));
            }
        }
        doneCount = 0;
    }
}
