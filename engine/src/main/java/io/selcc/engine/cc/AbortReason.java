package io.selcc.engine.cc;

/** Why a transaction aborted; {@link #isRetryable()} says which are conflicts worth a retry. */
public enum AbortReason {
    /**
     * No-wait 2PL: a latch another transaction holds. Wait-die 2PL: an older transaction holds it (or
     * the wait for a younger one ran out). TO: an older transaction will write the tuple (its write
     * intent), so a younger one may not read it now.
     */
    LOCK_CONFLICT(true),
    /** No-wait 2PL: a shared page changed while its latch was upgraded. */
    UPGRADE_CONFLICT(true),
    /** OCC: a tuple read changed, or its page was busy, at validation. */
    VALIDATION_FAILED(true),
    /** TO: the tuple was read or written by a younger transaction. */
    TIMESTAMP_TOO_OLD(true),
    /**
     * The application found a read stale before commit could (e.g. a key it derived from a row is
     * taken, or a row it found is gone) and aborted: a conflict under any algorithm.
     */
    STALE_READ(true),
    /**
     * A unique key this transaction found free (every insert checks its primary key and its unique
     * secondary keys first, every update a unique secondary key it changes) was committed by a
     * concurrent transaction before this one could: a conflict. A retry sees the key taken, so
     * {@link io.selcc.engine.Transaction#insert} returns false there and the application decides (an
     * update aborts with {@link #UNIQUE_KEY_TAKEN}).
     */
    DUPLICATE_KEY(true),
    /** The application called {@link Transaction#abort()}. */
    USER_ABORT(false),
    /**
     * A row or index node could not be allocated: every memory node is full. The transaction changed
     * nothing; retrying cannot help until shared memory is enlarged.
     */
    SHARED_MEMORY_FULL(false),
    /**
     * The commit log could not take the transaction's record (its device failed or is full): the
     * transaction changed nothing. Retrying cannot help until the log's directory is fixed.
     */
    LOG_FAILED(false),
    /**
     * A branch of a distributed transaction (partitioned mode) was ready to commit, but the transaction
     * as a whole aborted: another participant voted no or did not answer, or the coordinator gave up.
     * A conflict elsewhere, worth a retry of the whole transaction.
     */
    GLOBAL_ABORT(true),
    /**
     * An update would give a row a key of a unique secondary index that another committed row holds
     * (or another row of this transaction): the application's request, not a conflict, so it is not
     * retried; a retry would find the key taken again. An insert of a taken unique key returns false
     * instead, as for a taken primary key. (Last: ordinals travel in 2PC messages.)
     */
    UNIQUE_KEY_TAKEN(false);

    private final boolean retryable;

    AbortReason(boolean retryable) {
        this.retryable = retryable;
    }

    /** True for conflicts that a retry may get past. */
    public boolean isRetryable() {
        return retryable;
    }
}
