package io.selcc.engine.cc;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.index.LeafGuard;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One transaction's concurrency control. Called by one thread. Operations that hit a conflict roll
 * the transaction back and throw {@link AbortException}; afterwards only {@link #abort} may be called.
 *
 * <p>"Tuple" means the row at a record id: visible (committed insert) or inserted by this transaction.
 * A transaction reads its own writes. Every operation takes an {@code expected} predicate that the
 * current row must pass (the engine checks that the row still has the key it was found by); when it
 * fails the operation does nothing and returns false.
 */
public interface CcTransaction {
    /**
     * Copies the row at {@code rid} into {@code into}; false if there is none or it is not {@code expected}
     * (then {@code into} may have been written: a latch-free read judges the row on its copy).
     */
    boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into);

    /**
     * Reads the row at {@code rid} into {@code before}, applies {@code updater} to the row (in place, or to
     * the algorithm's buffered write of it) and leaves the row as updated in {@code after}. {@code before}
     * may be null when the caller has no use for the row as it was (a table without secondary indexes).
     * The updater's view refuses writes to the CC header; an updater that throws leaves the row changed or
     * not, and the caller must abort the transaction. {@link #updateView} is the same without the copy to
     * {@code after}.
     */
    boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                   TupleBuffer before, TupleBuffer after);

    /**
     * {@link #read} with a guess at the cache frame that holds the row's page: the {@link #lastFrame()}
     * of an earlier access to the row, or {@code ComputeNode.NO_FRAME}. An algorithm that latches or
     * reads the page through its compute node passes it on ({@code ComputeNode.tryLock}), so a hit skips
     * the lookup from address to frame; a wrong guess costs that lookup, nothing else. The default
     * ignores it.
     */
    default boolean read(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected, TupleBuffer into) {
        return read(table, rid, expected, into);
    }

    /**
     * {@link #read} for a caller that looks at the row only until it next writes through this transaction:
     * the row as a read-only view, or null when there is none or it is not {@code expected}. {@code rowView}
     * is the caller's (one per statement, so a nested read does not move it): an algorithm that holds the
     * row's page latched until its commit may point it at the page itself, where {@link #read} copies (a
     * write of this transaction that re-latches the page, as a 2PL upgrade does, may then move it).
     * The default copies into {@code into} and points {@code rowView} at that copy.
     */
    default TupleView readView(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                               TupleBuffer into, TupleView rowView) {
        return read(table, rid, frameHint, expected, into) ? rowView.wrapReadOnly(into) : null;
    }

    /** {@link #update} with a guess at the row page's cache frame, as {@link #read(HeapTable, long, int, Predicate, TupleBuffer)} takes one. */
    default boolean update(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                           Consumer<TupleView> updater, TupleBuffer before, TupleBuffer after) {
        return update(table, rid, expected, updater, before, after);
    }

    /**
     * {@link #update(HeapTable, long, int, Predicate, Consumer, TupleBuffer, TupleBuffer)} for a caller that
     * looks at the row as updated only until it next calls this transaction: that row as a read-only view,
     * or null when there is none or it is not {@code expected}. {@code rowView} is the caller's (one per
     * statement). An algorithm that holds the row's page X-latched until its commit may apply
     * {@code updater} to the row in place (through {@code rowView}, its CC header protected) and point
     * {@code rowView} at the page, leaving {@code after} unused and two whole-row copies out. Either way,
     * an {@code updater} that throws leaves the row's page changed or not: the caller must abort. An
     * algorithm that overrides it hands the updater {@code rowView} (wrapped columns only), which the caller
     * detaches should the transaction end while the updater runs, and checks after the updater returns that
     * the transaction is still active. The default updates through {@code after} and points
     * {@code rowView} at it.
     */
    default TupleView updateView(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                                 Consumer<TupleView> updater, TupleBuffer before, TupleBuffer after,
                                 TupleView rowView) {
        return update(table, rid, frameHint, expected, updater, before, after) ? rowView.wrapReadOnly(after) : null;
    }

    /**
     * The cache frame the last read or update of this transaction found its row's page in, a hint for a
     * later access to the row; {@code ComputeNode.NO_FRAME} when unknown (the default).
     */
    default int lastFrame() {
        return ComputeNode.NO_FRAME;
    }

    /** Reads the row into {@code before} and deletes it. */
    boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before);

    /** Inserts {@code row} (columns only; the header is the algorithm's) and returns its record id. */
    long insert(HeapTable table, TupleBuffer row);

    /**
     * The guard every index operation of this transaction goes through: it latches leaves the way the
     * algorithm needs (no-wait 2PL holds the leaves a predicate read covered until commit), records
     * them for validation (OCC), or checks their timestamps (TO).
     */
    LeafGuard leafGuard();

    /**
     * Called after each index read (scan or lookup) made through {@link #leafGuard()}: if the guard
     * refused, rolls back and throws {@link AbortException}; otherwise completes the read's protection
     * (TO raises the covered leaves' read timestamps here).
     */
    void indexReadDone();

    /** Why the guard refused an index change (the reason a commit aborts with); null if it did not. */
    AbortReason indexRefusal();

    /**
     * The guard that undoes this transaction's own index changes when its commit fails after them:
     * it latches as {@link #leafGuard()} does where the transaction holds leaves, and never refuses.
     */
    LeafGuard undoGuard();

    /**
     * Validates, runs the hook's index changes with all write latches held (before validating reads,
     * so a committer's predicate conflicts are visible to every later validation), calls the hook's
     * {@code commitPoint} once it has decided to commit, installs, releases. If the commit fails after
     * the hook's {@code beforeInstall} succeeded (a validation, or the commit point), calls its {@code undo}.
     * Never throws for conflicts.
     */
    CommitOutcome commit(CommitHook hook);

    /** Rolls back and releases everything. Idempotent. */
    void abort(AbortReason reason);

    /**
     * From now on a busy latch is refused even where the algorithm would wait for it (no-wait 2PL waits
     * for a transaction's first latch, which cannot close a waits-for cycle inside one transaction): for a
     * branch of a distributed transaction, whose other branches hold latches elsewhere while this one
     * waits. Call before the first access. The default does nothing (the algorithm never waits so).
     */
    default void refuseEveryBusyLatch() {
    }
}
