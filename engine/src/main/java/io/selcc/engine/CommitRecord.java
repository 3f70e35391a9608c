package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

/**
 * A transaction's commit record on its way to the node's commit log: the changes its writes make
 * (gathered from the first write on, nothing when the database logs nothing), the append at the commit
 * point (after a distributed branch's vote), and after the install the wait until the record is
 * durable. One per transaction, used by the transaction's thread only.
 */
final class CommitRecord {
    private final DatabaseNode db;
    /** The changes for the commit log, from the first write on; null when nothing is logged or written. */
    private Redo redo;
    /** The commit sequence number the log gave this transaction at its commit point; 0 if none. */
    private long commitSequence;
    /** Set by {@link #branchOf}: this transaction is one branch of a distributed transaction. */
    private BranchVote branchVote;
    /** The distributed transaction's global id, for this branch's commit record (0: a local transaction). */
    private long globalId;
    /** What the vote threw: the branch was rolled back, then it is rethrown to the committer. */
    private Throwable voteFailure;
    /** The record is not durable: a branch installed as decided though the log could not take it, or the wait threw. */
    private boolean lost;

    CommitRecord(DatabaseNode db) {
        this.db = db;
    }

    /** Records an insert for the commit log (nothing when the database logs nothing). */
    void inserted(Table table, long key, long rid, TupleBuffer image) {
        int at = reserve(Redo.INSERT, table, key, rid, image.rowBytes());
        if (at >= 0) {
            image.copyRowTo(redo.images(), at);
        }
    }

    /** Records an update with the row as updated (in its page, or a copy), for the commit log. */
    void updated(Table table, long key, long rid, TupleView row) {
        int at = reserve(Redo.UPDATE, table, key, rid, row.rowBytes());
        if (at >= 0) {
            row.copyRowTo(redo.images(), at);
        }
    }

    /** Records a delete for the commit log. */
    void deleted(Table table, long key, long rid) {
        reserve(Redo.DELETE, table, key, rid, 0);
    }

    /** Room for a change's {@code imageBytes} in the redo images, at the offset returned; -1 when nothing is logged. */
    private int reserve(byte kind, Table table, long key, long rid, int imageBytes) {
        if (db.commitLog() == null) {
            return -1;
        }
        if (redo == null) {
            redo = db.takeRedo();
        }
        return redo.add(kind, table.heap().tableId(), key, rid, imageBytes);
    }

    /** The transaction commits as a branch of distributed transaction {@code globalId} (0 and null: a local one). */
    void branchOf(long globalId, BranchVote vote) {
        this.branchVote = vote;
        this.globalId = globalId;
    }

    /**
     * The commit point ({@link io.selcc.engine.cc.CommitHook#commitPoint}, through
     * {@link IndexMaintenance}): a distributed branch votes, then the record goes to the log while every
     * write latch is held.
     */
    AbortReason commitPoint() {
        if (branchVote != null) {
            boolean commit;
            try {
                commit = branchVote.prepared(redo);
            } catch (RuntimeException | Error e) {
                voteFailure = e; // rolled back below as for a no, then rethrown by commit
                return AbortReason.GLOBAL_ABORT;
            }
            if (!commit) {
                return AbortReason.GLOBAL_ABORT; // undone as a failed validation would be
            }
        }
        CommitLog log = db.commitLog();
        if (log == null || redo == null || redo.size() == 0) {
            return null;
        }
        long sequence;
        redo.globalId(globalId);
        try {
            sequence = log.append(redo);
        } catch (RuntimeException e) {
            sequence = CommitLog.FAILED; // a closed or broken log: the commit aborts like a failed append
        } catch (Error e) {
            db.commitsInFlight().done(); // a number may have been drawn: it must not hold checkpoints back
            throw e;
        }
        if (sequence == CommitLog.OUTCOME_UNKNOWN) {
            db.commitsInFlight().done();
            // Neither abort (the undone writes would be committed upon, and the record replayed
            // under them) nor commit: the node stops here, latches held, as a crash would.
            throw db.failStop.apply("a log append failed after its record may have become complete (outcome unknown)");
        }
        if (sequence == CommitLog.FAILED) {
            lost = true;
            db.commitsInFlight().done(); // a number drawn for a record the log could not take
            // A branch decided to commit must: the other branches do. Its durability is the 2PC
            // log's (prepare record and decision); the failed log stops the node's next local commit.
            return branchVote != null ? null : AbortReason.LOG_FAILED;
        }
        commitSequence = sequence;
        return null;
    }

    /** After the algorithm's commit: rethrows what the vote threw (the branch was rolled back), if it threw. */
    void rethrowVoteFailure() {
        if (voteFailure != null) {
            if (voteFailure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) voteFailure;
        }
    }

    /**
     * The commit is installed (or failed): a record the log took no longer holds a checkpoint's replay
     * start back ({@link CommitsInFlight#done}). Idempotent.
     */
    void installed() {
        if (commitSequence != 0) {
            db.commitsInFlight().done();
        }
    }

    /** After a commit: waits until the record is durable, and never before what it read from (any node's). */
    void awaitDurable() {
        CommitLog log = db.commitLog();
        if (log == null) {
            return;
        }
        boolean durable = false;
        try {
            if (commitSequence != 0) {
                log.awaitDurable(commitSequence);
            } else {
                log.awaitAppendedDurable();
            }
            durable = true;
        } finally {
            lost |= !durable; // see Transaction.commitRecordDurable: only a wait that returned counts
        }
    }

    /** Whether the record may not be durable ({@link Transaction#commitRecordDurable}). */
    boolean lost() {
        return lost;
    }

    /** Gives the redo buffer back to the node, as the transaction ends. */
    void release() {
        if (redo != null) {
            db.returnRedo(redo);
            redo = null;
        }
    }
}
