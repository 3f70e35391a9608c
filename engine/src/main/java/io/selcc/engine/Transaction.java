package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.cache.SharedMemoryFullException;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.index.BLinkTree;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A serializable transaction on one compute node, run by one thread. Rows are found by key through
 * the table's indexes; reads return private copies valid until the transaction ends; updates happen
 * through a flyweight. The concurrency-control algorithm behind it is the database's choice.
 *
 * <p>Index changes wait for commit: a key this transaction inserts enters its indexes, and a key it
 * deletes leaves them, only while the algorithm holds the write latches at commit. Other transactions
 * never see uncommitted inserts; an abort leaves the indexes untouched. The transaction itself sees
 * its own inserts and deletes.
 *
 * <p>Conflicts throw {@link AbortException} after rolling back; {@link #commit()} returns its outcome
 * as a value.
 *
 * <p>Predicate reads are protected (no phantoms): a scan, or a lookup that finds no row, covers the
 * B-link leaves it read, and the algorithm makes sure no other transaction changes those ranges
 * between this transaction's read and its commit ({@link CcTransaction#leafGuard()}). A lookup that
 * finds an entry whose row is gone by the time it is read aborts with {@link AbortReason#STALE_READ}
 * (its absence was not covered).
 */
public final class Transaction implements AutoCloseable {
    /** No record id: a record id is never 0. */
    static final long NONE = 0;

    private enum State { ACTIVE, COMMITTED, ABORTED }

    private final DatabaseNode db;
    private final CcTransaction cc;
    private final CounterSnapshot startCounters;
    /** The beginning thread's slot, which counts this transaction until it ends ({@link #end}). */
    private final CommitsInFlight.Slot runningOn;
    /** The index entries this transaction's writes add and remove at commit. */
    private final PendingIndexChanges pending = new PendingIndexChanges();
    /** The changes this transaction's writes make, for the commit log, and their way there at commit. */
    private final CommitRecord commitRecord;
    /** What {@link #prefetch} loaded, summed: kept so that its loads are not optimised away; means nothing. */
    private long prefetched;
    private State state = State.ACTIVE;
    private CommitOutcome outcome;
    /** This transaction's scans, made at its first (many transactions scan nothing). */
    private OverlayingScan scan;
    /**
     * The rows the caller's code now running was handed, one per level (an updater may update another row,
     * a reader read one): updaters' rows, readers' rows and a range read's rows in place; made at the first.
     * Should the transaction end while one runs (a nested call aborted it and the callback carried on), they
     * are detached: an access through one then throws instead of reaching a page no longer latched, or a
     * buffer handed back to its pool.
     */
    private TupleView[] handedRows;
    private int rowsHanded;
    private int updatersRunning;
    /** Readers and scans (with their visitors) now running: commit, abort and close are refused meanwhile. */
    private int readersRunning;
    /** Insert writers now running: as readers. */
    private int writersRunning;

    Transaction(DatabaseNode db, CcTransaction cc, CounterSnapshot startCounters, CommitsInFlight.Slot runningOn) {
        this.db = db;
        this.cc = cc;
        this.startCounters = startCounters;
        this.runningOn = runningOn;
        this.commitRecord = new CommitRecord(db);
    }

    // ================================================================ reads

    /** The row with primary key {@code key}, or null. */
    public TupleView get(Table table, long key) {
        checkActive();
        TupleBuffer copy = new TupleBuffer(table.schema());
        Table.Scratch scratch = table.scratchFor(key);
        try {
            return readByKey(table, key, scratch.hasKey, copy, new TupleView(table.schema()).wrap(copy), false);
        } finally {
            scratch.release();
        }
    }

    /**
     * Hands the row with primary key {@code key} to {@code reader}, read-only (see {@link RowReader}): the
     * row in its page where the algorithm holds the page to commit (2PL), else the statement's scratch
     * copy; false (reader not called) when there is none. The point read of hot paths: a row already
     * cached on this node is read without allocating (no row buffer, view or predicate per call), where
     * {@link #get} returns a copy the caller may keep. A read nested in the reader's call works, with a
     * scratch of its own; a write through this transaction inside the call may move the reader's row.
     */
    public boolean read(Table table, long key, RowReader reader) {
        checkActive();
        Table.Scratch scratch = table.scratchFor(key);
        try {
            TupleView row = readByKey(table, key, scratch.hasKey, scratch.first, scratch.rowView, true);
            if (row == null) {
                return false;
            }
            readersRunning++;
            rowHanded(row);
            try {
                reader.read(row); // the page's row itself where the algorithm holds it to commit: no copy
            } catch (AbortException e) {
                throw ended(e); // the reader's own abort (or a nested call's, passed on) ends the transaction
            } finally {
                rowReturned();
                readersRunning--;
            }
            checkNotEndedUnder("reader"); // as an updater's: its read stands in no transaction
            return true;
        } finally {
            scratch.release();
        }
    }

    /**
     * The key's row, found through its hint or the index; null if none. Not {@code inPlace}: copied into
     * {@code into}, and the answer is {@code rowView}, the caller's view of {@code into}. In place: the
     * answer is {@code rowView} on the row, read-only ({@link CcTransaction#readView}).
     */
    private TupleView readByKey(Table table, long key, Predicate<TupleView> hasKey, TupleBuffer into,
                                TupleView rowView, boolean inPlace) {
        Table.RidHints hints = table.ridHints(); // one per-thread lookup per access
        long hinted = hint(table, hints, key);
        if (hinted != NONE) {
            int frame = hints.foundFrame();
            TupleView row = readRow(table, hinted, frame, hasKey, into, rowView, inPlace);
            if (row != null) {
                noteFrame(hints, key, frame);
                return row;
            }
            hints.forget(key);
        }
        long rid = locate(table, key);
        if (rid == NONE) {
            return null;
        }
        TupleView row = readRow(table, rid, ComputeNode.NO_FRAME, hasKey, into, rowView, inPlace);
        if (row == null) {
            throw staleEntry(table, key);
        }
        learn(table, key, rid);
        return row;
    }

    /** The algorithm's read into {@code into}, with its abort turned into the transaction's end (no lambda: hot path). */
    boolean readRow(Table table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        try {
            return cc.read(table.heap(), rid, ComputeNode.NO_FRAME, expected, into);
        } catch (AbortException e) {
            throw ended(e);
        }
    }

    /** {@link #readRow(Table, long, Predicate, TupleBuffer)} for a visitor: the row read-only, in place where it can be. */
    TupleView readRowView(Table table, long rid, Predicate<TupleView> expected, Table.Scratch scratch) {
        return readRow(table, rid, ComputeNode.NO_FRAME, expected, scratch.first, scratch.rowView, true);
    }

    /** {@code rowView} on the row (in place: {@link CcTransaction#readView}; else over the copy in {@code into}), or null. */
    private TupleView readRow(Table table, long rid, int frameHint, Predicate<TupleView> expected, TupleBuffer into,
                              TupleView rowView, boolean inPlace) {
        try {
            if (!inPlace) {
                return cc.read(table.heap(), rid, frameHint, expected, into) ? rowView : null;
            }
            return cc.readView(table.heap(), rid, frameHint, expected, into, rowView);
        } catch (AbortException e) {
            throw ended(e);
        }
    }

    /**
     * Stores where the index found {@code key}, unless this transaction inserted or deleted rows of the
     * table: the node's hints are read by its other threads, and a record id of this transaction's own
     * uncommitted insert would send them to a page it holds (under no-wait 2PL: an abort for a key the
     * index would have called absent).
     */
    private void learn(Table table, long key, long rid) {
        if (!pending.changedRowsOf(table)) {
            table.ridHints().put(key, rid, cc.lastFrame());
        }
    }

    /** After a hinted access: keeps the hint's frame true when the row's page was found in another. */
    private void noteFrame(Table.RidHints hints, long key, int hintedFrame) {
        int frame = cc.lastFrame();
        if (frame != hintedFrame) {
            hints.moved(key, frame);
        }
    }

    /**
     * Where this thread last found {@code key}'s row (0 if unknown), when the transaction changed no
     * row of the table itself (its own inserts and deletes are answered by {@link #locate}). The
     * caller reads the row with the key as the expected predicate and falls back to the index.
     */
    private long hint(Table table, Table.RidHints hints, long key) {
        return pending.changedRowsOf(table) ? NONE : hints.get(key);
    }

    /**
     * Says that this transaction will soon access the rows of {@code keys[0..count)} in {@code table}: the
     * entries of its record id hints and, where a hint names the cache frame of a row's page, the row's
     * bytes are loaded into the CPU's cache in two passes, so that their misses to memory overlap instead
     * of each access waiting for its own in turn (a New-Order knows its ten items and stock rows at its
     * start). Only loads: nothing is read under the concurrency control, latched, counted or changed, and
     * a key without a hint, a row not cached or a table this transaction changed rows of costs a look.
     *
     * @throws IndexOutOfBoundsException if {@code count} is negative or more than {@code keys.length}
     * @throws IllegalStateException if the transaction has ended
     */
    public void prefetch(Table table, long[] keys, int count) {
        checkActive();
        java.util.Objects.checkFromIndexSize(0, count, keys.length);
        if (pending.changedRowsOf(table)) {
            return; // its accesses go through the index (see hint)
        }
        Table.RidHints hints = table.ridHints();
        long sum = 0;
        for (int i = 0; i < count; i++) {
            sum += hints.bucketWord(keys[i]); // the buckets' lines, all requested before any is needed
        }
        HeapTable heap = table.heap();
        for (int i = 0; i < count; i++) {
            long rid = hints.peek(keys[i]);
            if (rid != NONE) {
                sum += heap.prefetch(rid, hints.foundFrame());
            }
        }
        prefetched += sum;
    }

    /** Forward scan of {@code index} over keys in [low, high]; at most {@code limit} rows. Returns rows delivered. */
    public int scan(Index index, long low, long high, int limit, RowVisitor visitor) {
        return scan(index, low, high, limit, true, true, visitor);
    }

    /** Backward scan of {@code index} over keys in [low, high], highest first. */
    public int scanBackward(Index index, long low, long high, int limit, RowVisitor visitor) {
        return scan(index, low, high, limit, false, true, visitor);
    }

    /**
     * While a scan's visitor runs: where the row it was handed lives in this run's shared memory (a
     * checkpoint records it, so a crashed node's heap pages can be restored from the checkpoint).
     */
    public long visitingRecordId() {
        return scan == null ? NONE : scan.visitingRecordId();
    }

    /**
     * A forward scan like {@link #scan} (same rows, same protection) whose rows are read-only views, valid
     * only during the visitor's call, as {@link RowReader}'s (a nested read is fine, a write through this
     * transaction may move the row): of the row in its page where the algorithm holds the page to commit,
     * else of one scratch copy. No row is copied into a buffer of its own, which for a scan of a few
     * hundred rows (Stock-Level's order lines) was most of what it allocated.
     */
    public int readRange(Index index, long low, long high, int limit, RowVisitor visitor) {
        return scan(index, low, high, limit, true, false, visitor);
    }

    private int scan(Index index, long low, long high, int limit, boolean forward, boolean keepRows,
                     RowVisitor visitor) {
        checkActive();
        if (scan == null) {
            scan = new OverlayingScan(this, cc, pending);
        }
        readersRunning++;
        try {
            return scan.run(index, low, high, limit, forward, keepRows, visitor);
        } catch (AbortException e) {
            throw ended(e); // a visitor's own abort ends the transaction (the algorithm's ended it already)
        } finally {
            readersRunning--;
        }
    }

    // ================================================================ writes

    /**
     * Inserts a row built by {@code writer} (which sees a zeroed row, nullable columns NULL).
     *
     * @return false if a row with the same primary key exists, or another row holds the row's key in a
     *         unique secondary index (nothing inserted): a taken key is the application's to handle, not
     *         a conflict to retry
     */
    public boolean insert(Table table, Consumer<TupleView> writer) {
        checkActive();
        Table.Scratch scratch = table.scratch();
        try {
            TupleBuffer image = scratch.first;
            image.clear();
            TupleView row = scratch.firstView;
            row.setNullableColumnsNull();
            writersRunning++;
            try {
                writer.accept(row);
            } catch (AbortException e) {
                throw ended(e); // the writer's own abort (or a nested call's, passed on) ends the transaction
            } finally {
                writersRunning--;
            }
            checkNotEndedUnder("row writer");
            long key = table.primaryKey(row);
            if (locateToInsert(table, key) != NONE) {
                return false;
            }
            return insertImage(table, key, image, row);
        } finally {
            scratch.release();
        }
    }

    /**
     * Inserts {@code count} rows into {@code table}, row {@code i} written by {@code writer} with primary
     * key {@code keys[i]}: the same as {@link #insert} of each row in turn, stopping at the first that
     * finds its key taken, except that when the keys are strictly ascending the primary index is probed
     * for them before the first row is written, one latch and one predicate read per leaf instead of per
     * row ({@link BLinkTree#lookupRunToInsert}; a New-Order's order lines share a leaf). The run probes
     * what the inserts one by one would probe, earlier: the keys up to the first that this transaction
     * inserted itself or that the index holds, leaving out those it deleted. A row stopped by a unique
     * secondary key, which only its row shows, cannot be foreseen: the run has then also probed the keys
     * after it. Keys in any other order are probed row by row.
     *
     * @return the number of rows inserted: {@code count}, or the index of the first row whose primary key
     *         (or a key of a unique secondary index) is taken: the rows before it are inserted, it and the
     *         rows after it are not, and its writer is not called when its primary key is taken
     * @throws IllegalArgumentException if a row's primary key is not its {@code keys} entry (the
     *         transaction is aborted)
     * @throws IndexOutOfBoundsException if {@code count} is negative or more than {@code keys.length}
     */
    public int insertAll(Table table, long[] keys, int count, BatchWriter writer) {
        checkActive();
        java.util.Objects.checkFromIndexSize(0, count, keys.length);
        Table.Scratch scratch = table.scratch();
        try {
            scratch.probed = 0;
            if (count > 1 && strictlyAscending(keys, count)) {
                probeToInsert(table, keys, count, scratch);
            }
            int nextProbe = 0; // the run's entries are in row order
            for (int i = 0; i < count; i++) {
                long key = keys[i];
                long holder;
                if (nextProbe < scratch.probed && scratch.probeRows[nextProbe] == i) {
                    holder = holderAfterProbe(table, key, scratch.probeFound[nextProbe++]);
                } else {
                    holder = locateToInsert(table, key); // not in the run: probed as insert probes
                }
                if (holder != NONE) {
                    return i;
                }
                TupleBuffer image = scratch.first;
                image.clear();
                TupleView row = scratch.firstView;
                row.setNullableColumnsNull();
                writersRunning++;
                try {
                    writer.write(i, row);
                } catch (AbortException e) {
                    throw ended(e);
                } finally {
                    writersRunning--;
                }
                checkNotEndedUnder("row writer");
                if (table.primaryKey(row) != key) {
                    abortQuietly();
                    throw new IllegalArgumentException("insertAll: row " + i + " has primary key "
                        + table.primaryKey(row) + ", not its keys entry " + key + ": table=" + table.name()
                        + " (transaction aborted)");
                }
                if (!insertImage(table, key, image, row)) {
                    return i;
                }
            }
            return count;
        } finally {
            scratch.release();
        }
    }

    private static boolean strictlyAscending(long[] keys, int count) {
        for (int i = 1; i < count; i++) {
            if (keys[i - 1] >= keys[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Probes in one run ({@link BLinkTree#lookupRunToInsert}) the keys of {@code keys[0..count)} that the
     * inserts one by one would look up in the index: up to the first this transaction inserted itself
     * (the call stops there), without those it deleted (free whatever the index says); fills the
     * scratch's probe arrays, {@code probed} of them looked up.
     */
    private void probeToInsert(Table table, long[] keys, int count, Table.Scratch scratch) {
        if (scratch.probeKeys.length < count) {
            scratch.probeKeys = new long[count];
            scratch.probeRows = new int[count];
            scratch.probeFound = new long[count];
        }
        int n = 0;
        for (int i = 0; i < count; i++) {
            long key = keys[i];
            if (pending.insertedRow(table, key) != NONE) {
                break;
            }
            if (!pending.deletedRow(table, key)) {
                scratch.probeKeys[n] = key;
                scratch.probeRows[n] = i;
                n++;
            }
        }
        if (n < 2) {
            return; // nothing to share: the rows probe as insert does
        }
        int probed = table.primaryIndex().tree().lookupRunToInsert(scratch.probeKeys, 0, n, scratch.probeFound, NONE,
            cc.leafGuard());
        indexReadDone(); // a refusal rolls back and throws here
        if (probed < 0) {
            abortQuietly();
            throw new IllegalStateException("the index refused a probe but the algorithm did not abort: table="
                + table.name());
        }
        scratch.probed = probed;
    }

    /**
     * As {@link #locateToInsert} after the run found {@code indexed} for {@code key}: this transaction's
     * own row or deletion first (its earlier rows' writers may have changed them), then the run's entry,
     * confirmed as {@link #locateToInsert} confirms it.
     */
    private long holderAfterProbe(Table table, long key, long indexed) {
        long own = pending.insertedRow(table, key);
        if (own != NONE) {
            return own;
        }
        return pending.deletedRow(table, key) ? NONE : confirmedHolder(table, key, indexed);
    }

    /**
     * The rest of an insert once its primary key is free: the unique secondary keys checked, then the
     * row inserted through the algorithm and recorded. False if a unique secondary key is taken.
     */
    private boolean insertImage(Table table, long key, TupleBuffer image, TupleView row) {
        Index[] unique = table.maintainedSecondaries();
        for (int i = 0; i < unique.length; i++) {
            if (unique[i].isUnique() && uniqueKeyTaken(unique[i], unique[i].keyOf(row), NONE)) {
                return false;
            }
        }
        long rid;
        try {
            rid = cc.insert(table.heap(), image);
        } catch (AbortException e) {
            throw ended(e);
        } catch (SharedMemoryFullException e) {
            // No page for the row: nothing of it was written (allocation comes first). Roll back.
            abortQuietly(AbortReason.SHARED_MEMORY_FULL); // counted as what it was
            throw ended(new AbortException(AbortReason.SHARED_MEMORY_FULL, e.getMessage()));
        }
        pending.inserted(table, key, rid, row);
        commitRecord.inserted(table, key, rid, image);
        return true;
    }

    /**
     * Updates the row with primary key {@code key} in place through {@code updater}, which may change the
     * row's columns (a write to its CC header or a whole-tuple copy over it throws).
     *
     * @return false if there is no such row
     * @throws AbortException with {@link AbortReason#UNIQUE_KEY_TAKEN} (not retried) if the updated row's
     *         key in a unique secondary index is held by another row (the transaction is aborted)
     * @throws IllegalArgumentException if the updater changed the primary key (the transaction is aborted)
     * @throws UnsupportedOperationException if the table is insert-only (the transaction is aborted)
     * @throws RuntimeException whatever {@code updater} throws, after the transaction is aborted (the
     *         row may have been changed in place: no part of the transaction may commit)
     */
    public boolean update(Table table, long key, Consumer<TupleView> updater) {
        checkActive();
        refuseIfInsertOnly(table, "update");
        Table.Scratch scratch = table.scratchFor(key);
        try {
            Table.RidHints hints = table.ridHints();
            long hinted = hint(table, hints, key);
            if (hinted != NONE) {
                int frame = hints.foundFrame();
                if (update(table, key, hinted, frame, updater, scratch, false)) {
                    noteFrame(hints, key, frame);
                    return true;
                }
                hints.forget(key);
            }
            long rid = locate(table, key);
            if (rid == NONE) {
                return false;
            }
            update(table, key, rid, ComputeNode.NO_FRAME, updater, scratch, true);
            learn(table, key, rid);
            return true;
        } finally {
            scratch.release();
        }
    }

    /** {@code row} is handed to the caller's code (an updater, a reader, a visitor) until {@link #rowReturned}. */
    void rowHanded(TupleView row) {
        if (handedRows == null) {
            handedRows = new TupleView[2];
        } else if (rowsHanded == handedRows.length) {
            handedRows = java.util.Arrays.copyOf(handedRows, 2 * rowsHanded);
        }
        handedRows[rowsHanded++] = row;
    }

    /** The callback handed the last {@link #rowHanded} row returned or threw. */
    void rowReturned() {
        rowsHanded--;
    }

    /**
     * Commit, abort and close end the transaction under a running callback's feet: refused. An updater
     * aborts its transaction by throwing; a reader's or visitor's row may be in a page the transaction
     * holds only until it ends, and a scan goes on after its visitor returns.
     */
    private void refuseInsideCallback(String what) {
        if (updatersRunning > 0) {
            throw new IllegalStateException(what + " inside an updater: an updater aborts its transaction by"
                + " throwing, and the transaction commits after its updates return");
        }
        if (readersRunning > 0) {
            throw new IllegalStateException(what + " inside a reader or scan visitor: end the transaction after"
                + " the read or scan returns (a callback aborts it by throwing AbortException)");
        }
        if (writersRunning > 0) {
            throw new IllegalStateException(what + " inside a row writer: end the transaction after the insert"
                + " returns (a callback aborts it by throwing AbortException)");
        }
    }

    /**
     * A nested call ended the transaction and the caller's code (an updater, an insert's writer, a reader, a
     * scan's visitor) carried on and returned: its update or insert is void, its read stands in no
     * transaction, and a scan goes no further.
     */
    void checkNotEndedUnder(String callback) {
        if (state != State.ACTIVE) {
            throw new IllegalStateException("the transaction ended while its " + callback + " ran (a nested call"
                + " aborted it): outcome=" + outcome);
        }
    }

    /** False only for a hint ({@code fromIndex} false) whose row is not the key's. */
    private boolean update(Table table, long key, long rid, int frameHint, Consumer<TupleView> updater,
                           Table.Scratch scratch, boolean fromIndex) {
        Index[] secondaries = table.maintainedSecondaries();
        // The row as it was serves only to compare secondary keys: without them, no copy of it is made.
        TupleBuffer before = secondaries.length == 0 ? null : scratch.first;
        TupleView newRow; // the row as updated: in its page (2PL) or in the algorithm's buffered write
        rowHanded(scratch.rowView);
        updatersRunning++;
        try {
            newRow = cc.updateView(table.heap(), rid, frameHint, scratch.hasKey, updater, before, scratch.second,
                scratch.rowView);
        } catch (AbortException e) {
            throw ended(e); // caught inline: a wrapping lambda would capture per update
        } catch (Throwable e) {
            // The updater threw (or the algorithm failed) with the row perhaps half changed in its page:
            // nothing of this transaction may commit. Rolled back, the row is what it was. (Throwable: an
            // exception thrown past the compiler's checks must not leave the half-changed row to a commit.)
            try {
                abortQuietly();
            } catch (Throwable cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        } finally {
            updatersRunning--;
            rowReturned();
        }
        checkNotEndedUnder("updater"); // the algorithms check this too; here it holds for any algorithm
        if (newRow == null) {
            if (!fromIndex) {
                return false;
            }
            throw staleEntry(table, key);
        }
        TupleView oldRow = scratch.firstView;
        commitRecord.updated(table, key, rid, newRow);
        long newPrimaryKey = table.primaryKey(newRow);
        if (newPrimaryKey != key) {
            abortQuietly(); // newRow is the page's row under 2PL: read before the rollback restores it
            throw new IllegalArgumentException("an update changed the primary key: table=" + table.name()
                + " key=" + key + " newKey=" + newPrimaryKey + " (transaction aborted)");
        }
        for (int i = 0; i < secondaries.length; i++) {
            Index index = secondaries[i];
            long oldKey = index.keyOf(oldRow);
            long newKey = index.keyOf(newRow);
            if (oldKey != newKey) {
                if (index.isUnique() && uniqueKeyTaken(index, newKey, rid)) {
                    cc.abort(AbortReason.UNIQUE_KEY_TAKEN);
                    throw ended(new AbortException(AbortReason.UNIQUE_KEY_TAKEN, "unique key taken: index="
                        + index.name() + " key=" + newKey + " (table=" + table.name() + " row=" + key + ")"));
                }
                pending.keyChanged(index, oldKey, newKey, rid);
            }
        }
        return true;
    }

    /**
     * Deletes the row with primary key {@code key}; false if there is none.
     *
     * @throws UnsupportedOperationException if the table is insert-only (the transaction is aborted)
     */
    public boolean delete(Table table, long key) {
        checkActive();
        refuseIfInsertOnly(table, "delete");
        long rid = locate(table, key);
        if (rid == NONE) {
            return false;
        }
        Table.Scratch scratch = table.scratchFor(key);
        try {
            return delete(table, key, rid, scratch);
        } finally {
            scratch.release();
        }
    }

    private boolean delete(Table table, long key, long rid, Table.Scratch scratch) {
        TupleBuffer before = scratch.first;
        boolean found;
        try {
            found = cc.delete(table.heap(), rid, scratch.hasKey, before);
        } catch (AbortException e) {
            throw ended(e);
        }
        if (!found) {
            throw staleEntry(table, key);
        }
        TupleView oldRow = scratch.firstView;
        commitRecord.deleted(table, key, rid);
        pending.deleted(table, key, rid, oldRow);
        return true;
    }

    // ================================================================ end

    /**
     * Commits; the outcome says whether it did. After this the transaction is over. Inside an updater,
     * reader or scan visitor it throws (a callback aborts its transaction by throwing, and the transaction
     * commits after its callbacks return).
     */
    public CommitOutcome commit() {
        return commitAs(0, null);
    }

    /**
     * Commits this transaction as one branch of a distributed transaction (two-phase commit): once the
     * algorithm has decided it can commit, with every write latch held and the index changes made, it
     * calls {@code vote}, which prepares the branch (forces what it needs), votes, and returns the
     * global decision. The branch installs and releases if that is to commit, and rolls back with
     * {@link AbortReason#GLOBAL_ABORT} otherwise. A branch that fails before (a validation) never calls
     * it: that is its "no". Its commit record goes to the commit log after the decision, as any
     * commit's does; once the decision is to commit the branch installs even if that append fails
     * (every other branch commits: the decision and this branch's prepare record hold it). The commit
     * record carries {@code globalId}, so a recovery knows which branches of a decided transaction the
     * log holds and which it must take from the two-phase-commit logs.
     *
     * @throws RuntimeException what the vote threw, after the branch was rolled back (latches released,
     *                          index changes undone)
     */
    public CommitOutcome commit(long globalId, BranchVote vote) {
        if (globalId == 0) {
            throw new IllegalArgumentException("a distributed transaction's global id is never 0");
        }
        return commitAs(globalId, java.util.Objects.requireNonNull(vote, "vote"));
    }

    private CommitOutcome commitAs(long globalId, BranchVote vote) {
        checkActive();
        refuseInsideCallback("commit");
        commitRecord.branchOf(globalId, vote);
        try {
            try {
                outcome = cc.commit(new IndexMaintenance(pending, cc, commitRecord));
            } catch (RuntimeException | Error e) {
                // The algorithm failed (its cache exhausted, its node fenced): the transaction is over, rolled
                // back as DatabaseNode.run rolls back a body that threw, so nothing keeps it open.
                try {
                    abortQuietly(e instanceof AbortException abort ? abort.reason() : AbortReason.USER_ABORT);
                } catch (RuntimeException | Error cleanup) {
                    e.addSuppressed(cleanup);
                }
                throw e;
            }
            end(outcome.committed() ? State.COMMITTED : State.ABORTED);
            db.transactionCounts().ended(outcome);
            commitRecord.rethrowVoteFailure();
            commitRecord.installed(); // installed and released: a checkpoint need not replay it
            if (outcome.committed()) {
                commitRecord.awaitDurable(); // acknowledged only once durable
            }
            return outcome;
        } finally {
            commitRecord.installed(); // idempotent: also after a commit that threw
            commitRecord.release();
        }
    }

    /**
     * After a commit: whether its commit record is durable (or needs none: the database logs nothing,
     * or the transaction wrote nothing), that is, whether its durability wait returned. False for a
     * distributed branch that installed as decided although its append failed ({@link #commit(long, BranchVote)}),
     * and for a commit whose durability wait threw: a participant must then not tell its coordinator the
     * decision is applied, or the coordinator would forget it.
     */
    public boolean commitRecordDurable() {
        return state == State.COMMITTED && !commitRecord.lost();
    }

    /**
     * Rolls back. The outcome is {@link AbortReason#USER_ABORT}. The transaction is over even if the
     * rollback throws (its node crashed, or a memory node is gone): nothing more can be done with it.
     * Inside an updater, reader or scan visitor it throws (a callback aborts its transaction by throwing).
     */
    public void abort() {
        checkActive();
        refuseInsideCallback("abort");
        abortQuietly(AbortReason.USER_ABORT);
    }

    void abortQuietly() {
        abortQuietly(AbortReason.USER_ABORT);
    }

    /** Rolls back if still active, counting the end as {@code reason} (an abort the body threw itself). */
    void abortQuietly(AbortReason reason) {
        commitRecord.release();
        if (state == State.ACTIVE) {
            try {
                cc.abort(AbortReason.USER_ABORT);
            } finally {
                // Over either way: a rollback that threw cannot be tried again, and Database.close must not
                // count the transaction as open for good.
                end(State.ABORTED);
                outcome = CommitOutcome.aborted(reason);
                db.transactionCounts().ended(outcome);
            }
        }
    }

    /** Aborts the transaction if it is still active; inside a callback it throws, as {@link #abort} does. */
    @Override
    public void close() {
        if (state == State.ACTIVE) {
            refuseInsideCallback("close");
        }
        abortQuietly();
    }

    /**
     * Marks this transaction as one branch of a distributed transaction (two-phase commit): it never waits
     * for a busy latch, not even its first one, because its other branches hold latches on other nodes
     * while it would wait, and a waits-for cycle could then close across nodes. Call before the first
     * access; returns this transaction.
     */
    public Transaction asDistributedBranch() {
        checkActive();
        cc.refuseEveryBusyLatch();
        return this;
    }

    public boolean isActive() {
        return state == State.ACTIVE;
    }

    /** The outcome once the transaction ended; null while active. */
    public CommitOutcome outcome() {
        return outcome;
    }

    /** What this transaction's thread counted on its compute node since begin: round trips, messages, bytes, retries. */
    public CounterSnapshot counters() {
        return db.computeNode().counters().threadSnapshot().minus(startCounters);
    }

    // ================================================================ internals

    /** The record id of the row with primary key {@code key} as this transaction sees it; NONE if absent. */
    private long locate(Table table, long key) {
        return locate(table, key, false);
    }

    /**
     * Whether {@code key} is taken as this transaction sees it, before inserting it: NONE if free.
     * A row found through the index is read to confirm it (a stale entry aborts, as in {@link #get}).
     */
    private long locateToInsert(Table table, long key) {
        return locate(table, key, true);
    }

    /** This transaction's own row or deletion first, then the primary index ({@code lookupToInsert} to insert). */
    private long locate(Table table, long key, boolean toInsert) {
        long own = pending.insertedRow(table, key);
        if (own != NONE) {
            return own;
        }
        if (pending.deletedRow(table, key)) {
            return NONE;
        }
        BLinkTree tree = table.primaryIndex().tree();
        long rid = toInsert ? tree.lookupToInsert(key, NONE, cc.leafGuard()) : tree.lookup(key, NONE, cc.leafGuard());
        indexReadDone();
        return toInsert ? confirmedHolder(table, key, rid) : rid;
    }

    /**
     * {@code rid}, the primary index's entry for {@code key} found before an insert (NONE: none), once its
     * row is read and still has the key; a row gone meanwhile aborts (a stale entry, as in {@link #get}).
     */
    private long confirmedHolder(Table table, long key, long rid) {
        if (rid != NONE) {
            TupleBuffer buffer = new TupleBuffer(table.schema());
            if (!readRow(table, rid, row -> table.primaryKey(row) == key, buffer)) {
                throw staleEntry(table, key);
            }
        }
        return rid;
    }

    /**
     * Whether a row other than {@code self} holds {@code key} in unique secondary {@code index} as this
     * transaction sees it, checked when an insert or update would file a row under the key (as
     * {@link #locateToInsert} checks a primary key): this transaction's own index changes first (a row
     * it filed under the key, an entry it removed), then the tree. An absence is a predicate read, as a
     * lookup that finds nothing is; an entry's row is read to confirm it still has the key (a row the
     * tree names without it aborts as a stale read, retried). Without the check a taken key was found
     * only at commit, as a retryable {@link AbortReason#DUPLICATE_KEY}, and every retry met it again.
     */
    private boolean uniqueKeyTaken(Index index, long key, long self) {
        long removed = NONE; // the row whose entry under the key this transaction removed, if any
        Map<Long, Integer> net = pending.netEntries(index, key);
        if (net != null) {
            for (Map.Entry<Long, Integer> e : net.entrySet()) {
                if (e.getValue() > 0 && e.getKey() != self) {
                    return true; // another row of this transaction
                }
                if (e.getValue() < 0) {
                    removed = e.getKey();
                }
            }
        }
        long holder = index.tree().lookupToInsert(key, NONE, cc.leafGuard());
        indexReadDone();
        if (holder == NONE || holder == self || holder == removed) {
            return false;
        }
        Table table = index.table();
        TupleBuffer buffer = new TupleBuffer(table.schema());
        if (!readRow(table, holder, row -> index.keyOf(row) == key, buffer)) {
            cc.abort(AbortReason.STALE_READ);
            throw ended(new AbortException(AbortReason.STALE_READ, "row changed meanwhile: index=" + index.name()
                + " key=" + key));
        }
        return true;
    }

    /** Tells the algorithm an index read is over, with its abort turned into the transaction's end. */
    void indexReadDone() {
        try {
            cc.indexReadDone();
        } catch (AbortException e) {
            throw ended(e);
        }
    }

    /**
     * The primary index had an entry for {@code key} but its row was gone when read: a concurrent
     * delete committed in between. Only a miss in the index covers the key's absence, so abort.
     */
    private AbortException staleEntry(Table table, long key) {
        cc.abort(AbortReason.STALE_READ);
        return ended(new AbortException(AbortReason.STALE_READ, "row deleted meanwhile: table=" + table.name()
            + " key=" + key));
    }

    /** Insert-only tables promise every algorithm that committed rows never change: a bug to break. */
    private void refuseIfInsertOnly(Table table, String operation) {
        if (table.heap().insertOnly()) {
            abortQuietly();
            throw new UnsupportedOperationException(operation + " of a row in an insert-only table: table="
                + table.name() + " (transaction aborted)");
        }
    }

    /** Leaves {@link State#ACTIVE} for {@code end}: the transaction no longer runs (counted once). */
    private void end(State end) {
        if (state == State.ACTIVE) {
            db.commitsInFlight().ended(runningOn);
        }
        state = end;
        for (int i = 0; i < rowsHanded; i++) {
            handedRows[i].detach();
        }
    }

    /**
     * Whether the caller's code runs inside this transaction now (an updater, a reader, a scan's visitor, an
     * insert's writer):
     * commit, abort and close are refused meanwhile (a distributed transaction defers its home branch's
     * rollback to when none runs).
     */
    public boolean insideCallback() {
        return updatersRunning > 0 || readersRunning > 0 || writersRunning > 0;
    }

    private void checkActive() {
        if (state != State.ACTIVE) {
            throw new IllegalStateException("transaction is over: outcome=" + outcome);
        }
    }

    /**
     * An abort was thrown: this transaction is over. The algorithm rolled back already when it threw; when
     * the caller's code threw it (an updater, a reader or a scan visitor), the algorithm rolls back here
     * (its abort does nothing once it has rolled back): without it, 2PL's latches and TO's write intents
     * stayed behind. The first end's reason stays the outcome (a callback passing a nested call's abort on
     * ends it a second time).
     */
    private AbortException ended(AbortException e) {
        commitRecord.release();
        boolean wasActive = state == State.ACTIVE;
        if (wasActive) {
            try {
                cc.abort(e.reason());
            } catch (RuntimeException | Error cleanup) {
                e.addSuppressed(cleanup);
            }
        }
        end(State.ABORTED);
        if (wasActive) {
            outcome = CommitOutcome.aborted(e.reason());
            db.transactionCounts().ended(outcome);
        }
        return e;
    }
}
