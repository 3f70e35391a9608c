package io.selcc.engine.cc.kit;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.index.LeafGuard;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Base of algorithms that buffer writes in a {@link WriteSet} and install them at commit (OCC, TO):
 * updates, deletes, inserts, own-row reads, abort and the commit's steps are the same for all of them.
 * A subclass says how a row other transactions may see is read, and what its commit checks.
 */
public abstract class BufferingTransaction implements CcTransaction {
    protected final ComputeNode node;
    protected final WriteSet writes;
    private boolean active = true;
    private CommitLeaves commitLeaves;

    protected BufferingTransaction(ComputeNode node) {
        this.node = node;
        this.writes = new WriteSet(node);
    }

    /** Reads a row this transaction has not written (the algorithm's read rule). */
    protected abstract boolean readShared(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into);

    /**
     * Reads a row this transaction has not written, to update or delete it. By default the read rule;
     * TO marks the row here (its prewrite).
     */
    protected boolean readToWrite(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        return readShared(table, rid, expected, into);
    }

    /** Called once when the transaction rolls back before its commit, with no latch held. */
    protected void rolledBack() {
    }

    @Override
    public final boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        checkActive();
        WriteSet.Entry own = writes.get(rid);
        return own != null ? writes.readOwn(own, expected, into) : readShared(table, rid, expected, into);
    }

    private boolean readForWrite(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        checkActive();
        WriteSet.Entry own = writes.get(rid);
        return own != null ? writes.readOwn(own, expected, into) : readToWrite(table, rid, expected, into);
    }

    @Override
    public final boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                                TupleBuffer before, TupleBuffer after) {
        // A view of its own for the updater: the buffers' own views are re-wrapped by nested reads. This
        // method is for callers of the algorithm itself (Transaction updates through updateView).
        TupleBuffer image = updateImage(table, rid, expected, updater, before, after, new TupleView(table.schema()));
        if (image == null) {
            return false;
        }
        after.view().copyFrom(image.view()); // this method's contract: the row as updated, in after
        return true;
    }

    /**
     * The row as updated is the write set's own image, which {@code rowView} is pointed at; {@code after}
     * may hold the read.
     */
    @Override
    public final TupleView updateView(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                                      Consumer<TupleView> updater, TupleBuffer before, TupleBuffer after,
                                      TupleView rowView) {
        TupleBuffer image = updateImage(table, rid, expected, updater, before, after, rowView);
        return image == null ? null : rowView.wrapReadOnly(image);
    }

    /**
     * Reads the row to write (into {@code before}, or {@code after} when no before is wanted), buffers it
     * in the write set and applies {@code updater} to the buffered image, which it returns; null when the
     * row is absent or not expected. {@code updaterView} is the caller's, pointed at the image for the
     * updater. The write is in the write set before the updater runs, so a rollback
     * finds it and takes back what reading to write marked on the row (TO's write intent) even when the
     * updater throws: with the updater first, a throwing updater left TO's intent on the row for good.
     */
    private TupleBuffer updateImage(HeapTable table, long rid, Predicate<TupleView> expected,
                                    Consumer<TupleView> updater, TupleBuffer before, TupleBuffer after,
                                    TupleView updaterView) {
        TupleBuffer read = before != null ? before : after;
        if (!readForWrite(table, rid, expected, read)) {
            return null;
        }
        TupleView row = read.view();
        TupleBuffer image = writes.update(table, rid, row.incarnation(), row);
        // The header stays the algorithm's, as 2PL's update in place keeps it; a view no nested read moves.
        updater.accept(updaterView.wrapColumns(image));
        if (!active) { // a nested call aborted the transaction and the updater carried on: the image is gone
            throw new IllegalStateException("the transaction ended while its updater ran (a nested call aborted it)");
        }
        return image;
    }

    @Override
    public final boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before) {
        if (!readForWrite(table, rid, expected, before)) {
            return false;
        }
        writes.delete(table, rid, before);
        return true;
    }

    @Override
    public final long insert(HeapTable table, TupleBuffer row) {
        checkActive();
        return writes.insert(table, row);
    }

    /** The algorithm's guard for index reads and its rules for index changes. */
    protected abstract LeafGuard readGuard();

    /** While committing, the guard that holds every changed leaf to the end of the commit. */
    @Override
    public final LeafGuard leafGuard() {
        return commitLeaves != null ? commitLeaves : readGuard();
    }

    /** Undo happens only inside a commit, on the leaves it holds. */
    @Override
    public final LeafGuard undoGuard() {
        return commitLeaves != null ? commitLeaves : LeafGuard.NONE;
    }

    /** From here until {@link #releaseChangedLeaves}, index changes keep their leaves X-latched. */
    private CommitLeaves holdChangedLeaves() {
        commitLeaves = new CommitLeaves(readGuard());
        return commitLeaves;
    }

    /** Ends a commit's hold on its leaves (after installing or undoing). */
    private void releaseChangedLeaves() {
        if (commitLeaves != null) {
            commitLeaves.releaseAll(node);
            commitLeaves = null;
        }
    }

    @Override
    public final void abort(AbortReason reason) {
        if (active) {
            active = false;
            try {
                writes.freeInserts();
            } finally {
                rolledBack(); // also when freeing failed: what the algorithm holds (TO's ahead token) is let go
            }
            writes.recycle();
        }
    }

    /**
     * Latches the write set's pages for this commit. If that fails part way (a fatal condition), the
     * latches taken are released and the transaction rolled back with short latches (its inserted slots
     * freed, {@link #rolledBack} run) before the failure propagates: {@link #beginCommit} already
     * marked it over, so {@link #abort} would not.
     */
    private LatchedPages latchForCommit() {
        try {
            return writes.latchPages();
        } catch (RuntimeException | Error e) {
            try {
                writes.releaseLatched();
                writes.freeInserts();
                rolledBack();
            } catch (RuntimeException | Error cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * The commit of every buffering algorithm:
     * <ol>
     *   <li>latch the write set's pages (in global order);</li>
     *   <li>{@link #validateRows}: the algorithm's checks of the rows it writes (TO's timestamps);</li>
     *   <li>hold the changed leaves and apply the index changes ({@code hook.beforeInstall}, which may
     *       refuse: a unique key taken meanwhile);</li>
     *   <li>{@link #validateReads}: checks that need the leaves held and the index changes applied (OCC's
     *       read and node sets); a refusal undoes the index changes;</li>
     *   <li>the commit point ({@code hook.commitPoint}, the log, with every write latch still held), then
     *       {@link #beforeInstall} and the install, each written row's version {@link #newVersion};</li>
     * </ol>
     * An abort frees the inserted slots. At the end, whatever happened: {@link #commitEnded}, the leaves
     * and pages released, {@link #afterRelease}.
     */
    @Override
    public final CommitOutcome commit(CommitHook hook) {
        beginCommit();
        LatchedPages latched = LatchedPages.NONE;
        boolean latchedAll = false;
        boolean installed = false;
        try {
            latched = latchForCommit();
            latchedAll = true;
            AbortReason rows = validateRows(latched);
            if (rows != null) {
                writes.freeInserts(latched);
                return CommitOutcome.aborted(rows);
            }
            CommitLeaves leaves = holdChangedLeaves();
            AbortReason refused = hook.beforeInstall();
            if (refused != null) {
                writes.freeInserts(latched);
                return CommitOutcome.aborted(refused);
            }
            AbortReason reads = validateReads(latched, leaves);
            if (reads != null) {
                hook.undo();
                writes.freeInserts(latched);
                return CommitOutcome.aborted(reads);
            }
            AbortReason notLogged = hook.commitPoint(); // write latches still held: logged in commit order
            if (notLogged != null) {
                hook.undo();
                writes.freeInserts(latched);
                return CommitOutcome.aborted(notLogged);
            }
            beforeInstall(latched);
            writes.install(latched, this::newVersion);
            installed = true;
            return CommitOutcome.COMMITTED;
        } finally {
            try {
                commitEnded(latched, latchedAll, installed);
                releaseChangedLeaves();
                writes.releaseLatched();
            } finally {
                afterRelease(); // also when releasing failed (a fatal condition): TO's ahead token must not leak
            }
            writes.recycle(); // the transaction is over: its row images go back to the thread's pool
        }
    }

    /** Checks the rows to write, their pages latched, before any index change; a reason to abort, or null. */
    protected AbortReason validateRows(LatchedPages latched) {
        return null;
    }

    /** Checks with the changed leaves held and the index changes applied; a reason to abort, or null. */
    protected AbortReason validateReads(LatchedPages latched, CommitLeaves leaves) {
        return null;
    }

    /** Runs right before the install, after the commit point, in the same latch hold. */
    protected void beforeInstall(LatchedPages latched) {
    }

    /** A written row's version after the install, from its version before. */
    protected abstract long newVersion(long version);

    /**
     * Runs first when a commit ends, latches still held ({@code latchedAll}: every page of the write set
     * was latched), whether it installed or not.
     */
    protected void commitEnded(LatchedPages latched, boolean latchedAll, boolean installed) {
    }

    /** Runs once a commit released its latches. */
    protected void afterRelease() {
    }

    /** Marks the transaction over at the start of a commit (a failed commit cleans up itself). */
    private void beginCommit() {
        checkActive();
        active = false;
    }

    /**
     * Rolls back and returns the exception the operation throws. Call it holding no latch: rolling back
     * latches the pages of this transaction's inserts, and latches are not reentrant.
     */
    protected final AbortException abortWith(AbortReason reason, String detail) {
        abort(reason);
        return new AbortException(reason, detail);
    }

    protected final void checkActive() {
        if (!active) {
            throw new IllegalStateException("transaction is over");
        }
    }
}
