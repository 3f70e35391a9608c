package io.selcc.engine;

/**
 * One compute node's commit log (the wal module's redo log), as the engine uses it. A transaction
 * that changed rows is appended at its commit point: the algorithm has decided to commit and still
 * holds every write latch, so of two conflicting transactions the one that committed first is
 * appended first and gets the lower commit sequence number. The transaction is acknowledged after
 * {@link #awaitDurable} returns, outside its latches, so one force of the log can cover every
 * transaction waiting at that moment (group commit).
 *
 * <p>Implementations are thread-safe: every thread of the node appends through one log.
 */
public interface CommitLog extends AutoCloseable {
    /** {@link #append}'s answer when the record could not be written; the transaction aborts. */
    long FAILED = -1;
    /**
     * {@link #append}'s answer when the write failed at a point where the record may be in the log all
     * the same (a later recovery may replay it): the transaction can neither abort (others would commit
     * on its undone writes, and then the replay would redo it under them) nor commit (it may be
     * missing). Its compute node stops as if it had crashed, and the crash repair decides from the log.
     */
    long OUTCOME_UNKNOWN = -2;

    /**
     * Appends {@code redo} as one committed transaction and returns its commit sequence number (a
     * global order over every node's log: recovery replays by it), or {@link #FAILED}. Called with the
     * transaction's write latches held: it must not wait for the disk. {@link #OUTCOME_UNKNOWN} if the
     * write failed after the record may have become complete.
     */
    long append(Redo redo);

    /**
     * Returns once the transaction with commit sequence number {@code sequence}, and every transaction
     * before it in the global order (on any node), can no longer be lost: once every number up to it
     * is appended when the log does not force ({@code async}; a process kill loses nothing appended),
     * after a force otherwise. A transaction is acknowledged only after this, so it never is before a
     * transaction it read from.
     *
     * @throws NotDurableException if the log failed before the transaction became durable
     */
    void awaitDurable(long sequence);

    /**
     * {@link #awaitDurable} for a read-only transaction: waits until every transaction appended before
     * now (whose writes it may have read) is durable.
     */
    void awaitAppendedDurable();

    /**
     * A mark of what is appended now, in any node's log, for {@link #awaitMarkDurable}: taking it costs
     * no wait, so a caller can take it, do other work (a two-phase-commit coordinator's prepare wave), and
     * wait afterwards for only what was appended before. The default is no mark: the wait then covers
     * whatever is appended when it is made.
     */
    default long appendedMark() {
        return Long.MAX_VALUE;
    }

    /** Returns once everything appended when {@code mark} ({@link #appendedMark}) was taken is durable. */
    default void awaitMarkDurable(long mark) {
        awaitAppendedDurable();
    }

    @Override
    void close();

    /**
     * A commit can no longer become durable: the log failed (a write or a force), or closed, before it
     * was. The transaction committed in memory but was not acknowledged; what was acknowledged stays.
     */
    final class NotDurableException extends IllegalStateException {
        public NotDurableException(String message) {
            super(message);
        }
    }

    /**
     * Opens the logs of a database's compute nodes (one group: the durability of a commit is judged
     * across all of them).
     */
    interface Factory extends AutoCloseable {
        /**
         * The log of compute node {@code computeNode}; {@code nextSequence} draws the next commit
         * sequence number (a fetch-and-add on a global word in shared memory); it throws
         * {@link io.selcc.fabric.NodeFailedException} only when it drew nothing (the node is fenced: the
         * fetch-and-add took no effect), and any other exception leaves the draw's outcome unknown (a
         * reply lost after memory applied it), which the log answers with {@link #OUTCOME_UNKNOWN}
         * after counting the number it may have drawn as lost. Every number up to
         * {@code settledThrough} is settled already (a recovered database's replayed transactions, and
         * numbers lost in the crash): the group's durability starts after it.
         */
        CommitLog open(int computeNode, long settledThrough, java.util.function.LongSupplier nextSequence);

        /**
         * {@link #open(int, long, java.util.function.LongSupplier)} handing the log {@code words}, this node's
         * view of every node's durability word: a log whose acknowledgement spans processes
         * (compute nodes as processes) publishes and reads them; others ignore them (the default).
         */
        default CommitLog open(int computeNode, long settledThrough, java.util.function.LongSupplier nextSequence,
                               SharedWords words) {
            return open(computeNode, settledThrough, nextSequence);
        }

        /**
         * Compute node {@code computeNode}, of another process, is fenced and this process repairs it (it won
         * the repair's claim): before the repair reads the logs, settle what the node drew, so that the logs
         * of the other processes can stop waiting for its durability word (see {@link DurabilityWord#OUT}).
         * A log group that holds every node's log (one process) has nothing to settle: the default.
         */
        default void settleCrashed(int computeNode) {
        }

        /** {@link #open(int, long, java.util.function.LongSupplier)} for a database that has committed nothing yet. */
        default CommitLog open(int computeNode, java.util.function.LongSupplier nextSequence) {
            return open(computeNode, 0, nextSequence);
        }

        /** Whether {@link #seal} and {@link #openRepair} work (a crashed node can be repaired from these logs). */
        default boolean canReadBack() {
            return false;
        }

        /**
         * Compute node {@code computeNode} crashed: its log takes no append from now on (a commit of it
         * still in flight aborts with a failed append), and what it appended is forced and counted as it
         * would have been. Once this returns no number it drew is on its way into the log any more (a
         * number is drawn under the log's append lock), so every commit it made is in the log.
         */
        default void seal(int computeNode) {
            throw new UnsupportedOperationException("this commit log cannot be sealed");
        }

        /**
         * Rows were bulk-loaded into the database (a load writes no log): a checkpoint taken before does
         * not hold them, so it can no longer be a crashed node's repair base until a checkpoint taken
         * after the load is published.
         */
        default void bulkLoaded() {
        }

        /**
         * What repairing a crashed node's lines reads, while the other nodes go on: a base state and every
         * logged change after it. Until the source is closed, nothing it reads is removed (a checkpoint
         * published meanwhile truncates nothing).
         *
         * @throws IllegalStateException if part of a log the repair needs is gone (removed, or damaged)
         */
        default RepairSource openRepair() {
            throw new UnsupportedOperationException("this commit log cannot be read back");
        }

        @Override
        void close();
    }

    /**
     * One compute node's access to the durability words of every compute node ({@link DurabilityWord}) and to
     * the commit sequence counter, in shared memory. Thread-safe; each call is one round trip.
     */
    interface SharedWords {
        /** This compute node's id (its word's index). */
        int computeNode();

        /** Compute nodes with a word: every node of the cluster, in this process or another. */
        int computeNodes();

        /**
         * Writes {@code mine} as this node's word, then reads every node's word into {@code words}
         * ({@link #computeNodes} of them; the read sees the write), and reads the commit sequence counter,
         * whose value it returns (the highest number drawn so far). One round trip.
         */
        long publishAndRead(long mine, long[] words);

        /** Reads every node's word into {@code words} and returns the commit sequence counter, as {@link #publishAndRead} without the write. */
        long read(long[] words);

        /** Compare-and-swap on node {@code computeNode}'s word; returns the word found. */
        long compareAndSet(int computeNode, long expected, long update);

        /** Whether this process knows compute node {@code computeNode} to be fenced off the fabric (crashed). */
        boolean fenced(int computeNode);
    }

    /**
     * See {@link Factory#openRepair}. The base is one of two: shared memory as it was when logging
     * started ({@link #baseIsCheckpoint} false: memory held everything then, and what memory holds now
     * of a row no logged transaction changed is still that), or a checkpoint of this run, whose rows
     * carry their record ids ({@link #forEachBaseRow}). Either way every committed change after the base
     * is among {@link #forEachChange}'s.
     */
    interface RepairSource extends AutoCloseable {
        /** True: the base is a checkpoint's rows; false: memory when logging started. */
        boolean baseIsCheckpoint();

        /**
         * The checkpoint's rows (only when {@link #baseIsCheckpoint}): each committed row as of some
         * moment after every transaction numbered up to the checkpoint's replay start had installed, and
         * no row committed before then is missing; the changes after that start make it current.
         */
        void forEachBaseRow(BaseRowVisitor visitor);

        /**
         * Every change logged after the base, node by node: each node's records in its log's order
         * (ascending numbers), a transaction's changes in the order it made them, the nodes' logs not
         * merged (so nothing has to be held).
         */
        void forEachChange(ChangeVisitor visitor);

        /** What the base is, for the repair's report. */
        String describeBase();

        @Override
        void close();
    }

    /** One row of a checkpoint, as {@link RepairSource#forEachBaseRow} hands it over. */
    @FunctionalInterface
    interface BaseRowVisitor {
        /**
         * @param recordId where the row lives in this run's shared memory
         * @param buffer   the row after the tuple header at {@code offset}; valid only during the call
         */
        void row(int tableId, long recordId, byte[] buffer, int offset);
    }

    /** One logged change, as {@link RepairSource#forEachChange} hands it over. */
    @FunctionalInterface
    interface ChangeVisitor {
        /**
         * @param kind     {@link Redo#INSERT}, {@link Redo#UPDATE} or {@link Redo#DELETE}
         * @param recordId where the row lives in this run's shared memory
         * @param image    the row after the tuple header; empty for a delete
         */
        void change(long sequence, byte kind, int tableId, long key, long recordId, byte[] image);
    }
}
