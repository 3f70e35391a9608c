package io.selcc.engine.cc;

import io.selcc.engine.AbortException;
import io.selcc.engine.AbortReason;
import io.selcc.engine.CommitOutcome;
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
    /** Copies the row at {@code rid} into {@code into}; false if there is none or it is not {@code expected}. */
    boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into);

    /**
     * Reads the row at {@code rid} into {@code before}, copies it to {@code after}, applies
     * {@code updater} to {@code after} and makes that this transaction's write of the row.
     */
    boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                   TupleBuffer before, TupleBuffer after);

    /** Reads the row into {@code before} and deletes it. */
    boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before);

    /** Inserts {@code row} (columns only; the header is the algorithm's) and returns its record id. */
    long insert(HeapTable table, TupleBuffer row);

    /** Validates, runs the hook with all write latches held, installs, releases. Never throws for conflicts. */
    CommitOutcome commit(CommitHook hook);

    /** Rolls back and releases everything. Idempotent. */
    void abort(AbortReason reason);
}
