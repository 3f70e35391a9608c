package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.kit.BufferingTransaction;
import io.selcc.engine.cc.kit.LatchedPages;
import io.selcc.engine.cc.kit.LongMap;
import io.selcc.engine.cc.kit.RowViews;
import io.selcc.engine.cc.kit.WriteSet;
import io.selcc.engine.index.LeafGuard;
import io.selcc.engine.index.LeafView;
import io.selcc.fabric.Counter;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * One TO transaction with timestamp {@code ts}. The tuple header's version is its write timestamp
 * (wts), its read timestamp is rts.
 *
 * <ul>
 *   <li>read: abort if wts > ts (a younger transaction wrote it); raise rts to ts (an X latch only
 *       when rts must change; never for an insert-only table, whose committed rows no writer changes).</li>
 *   <li>write: buffered; at commit, with the write set's pages X-latched in global order, abort if
 *       rts > ts (a younger transaction read it), wts > ts (it wrote it) or the slot holds another row
 *       now, then install with wts = ts.</li>
 * </ul>
 * Serializable in timestamp order; no dirty reads since writes appear only at commit.
 *
 * <p>The read rule applies to the slot, whatever it holds now: a slot's version only grows (a freed
 * slot keeps the timestamp of the delete that freed it, and an insert into a slot with a younger
 * version aborts), so a row a younger transaction deleted, even if its slot was reused since, makes
 * an older reader abort instead of reading as absent.
 *
 * <p>Predicate reads follow the same rules on B-link leaves: a scan (or a lookup that found nothing)
 * aborts if a younger transaction changed a leaf it covers (leaf write timestamp), and raises each
 * leaf's read timestamp; an index change at commit aborts if a younger transaction's predicate read
 * covered its leaf (read timestamp above ts), and raises the leaf's write timestamp.
 *
 * <p>An ahead attempt (a transaction that kept failing, {@link TimestampCounter}) follows the same rules
 * with a timestamp younger than every transaction that begins while it runs; two things differ, both to
 * keep the conflicts left to it from failing it: it waits (a while) for an older writer's intent instead
 * of aborting, and it latches the leaves it reads in X and raises their read timestamps at once. It gives
 * the token back when it ends, committed or not.
 */
final class TimestampOrderingTransaction extends BufferingTransaction {
    /**
     * Re-reads an ahead attempt makes of a row an older writer's intent is on, before it aborts: about
     * 0.1 s, longer than a writer holds an intent unless it is stuck.
     */
    private static final int AHEAD_INTENT_WAITS = 1_000;
    /** Pauses between those re-reads double from 1 us up to this. */
    private static final long AHEAD_INTENT_PAUSE_MAX_NANOS = 100_000;

    private final long ts;
    private final TimestampGuard guard = new TimestampGuard();
    /** Leaves the current index read covered: address, version seen (pairs). */
    private final List<long[]> coveredLeaves = new ArrayList<>();
    private AbortReason refusal;

    /** The counter that gave {@code ts}; an ahead attempt gives its token back through it. */
    private final TimestampCounter timestamps;
    /** This attempt took the ahead token and has not given it back yet. */
    private boolean holdsAheadToken;

    TimestampOrderingTransaction(ComputeNode node, long ts, TimestampCounter timestamps) {
        super(node);
        this.ts = ts;
        this.timestamps = timestamps;
        this.holdsAheadToken = TimestampCounter.isAhead(ts);
    }

    /** Gives the ahead token back once the attempt is over (a rollback, or a commit that ended either way). */
    private void releaseAheadToken() {
        if (holdsAheadToken) {
            holdsAheadToken = false;
            timestamps.releaseAhead();
        }
    }

    /**
     * Whether {@code row} carries a write intent of a transaction that can still commit: an intent
     * whose owner's node crashed is nobody's (the owner never commits, and nothing else clears it).
     */
    private boolean liveIntent(TupleView row) {
        return row.hasWriteIntent() && !node.peerCrashed(TimestampCounter.nodeOf(row.readTimestamp()));
    }

    @Override
    protected boolean readShared(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        return readRow(table, rid, expected, into, false);
    }

    @Override
    protected boolean readToWrite(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        return readRow(table, rid, expected, into, true);
    }

    /**
     * The read rule; {@code toWrite} also checks the write rule now (a younger reader already makes the
     * write too late) and sets the write intent, so no younger transaction reads the row until this
     * one commits or rolls back.
     */
    private boolean readRow(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into, boolean toWrite) {
        RowRead outcome = readRowOnce(table, rid, expected, into, toWrite);
        // An ahead attempt waits (a while) for an older writer's intent instead of aborting: every writer
        // beginning while it runs is older, so meeting intents is what could still make it fail. No cycle:
        // the owner never waits for it (only the ahead attempt waits, and it holds no latch meanwhile).
        for (int waits = 0; outcome == RowRead.OLDER_INTENT && holdsAheadToken && waits < AHEAD_INTENT_WAITS; waits++) {
            node.counters().increment(Counter.TO_AHEAD_INTENT_WAITS);
            LockSupport.parkNanos(Math.min(AHEAD_INTENT_PAUSE_MAX_NANOS, 1_000L << Math.min(waits, 20)));
            outcome = readRowOnce(table, rid, expected, into, toWrite);
        }
        return switch (outcome) {
            case READ -> true;
            case ABSENT -> false;
            // Roll back only with no latch held: the rollback latches this transaction's insert pages,
            // which may be the page just read (latches are not reentrant).
            case TOO_OLD -> throw abortWith(AbortReason.TIMESTAMP_TOO_OLD, "ts=" + ts);
            case OLDER_INTENT -> throw abortWith(AbortReason.LOCK_CONFLICT, "ts=" + ts); // an older transaction writes it
        };
    }

    /** One try of {@link #readRow}; no latch held when it returns. */
    private RowRead readRowOnce(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into,
                                boolean toWrite) {
        long pageAddress = table.pageOf(rid);
        int slot = table.slotOf(rid);
        boolean exclusive = toWrite;
        GclHandle page = exclusive ? node.xLock(pageAddress) : node.sLock(pageAddress);
        TupleView row = RowViews.of(table).wrap(page, slot);
        // An insert-only table's committed rows never change, so no older writer can come late to one
        // and its read timestamp guards nothing: raising it (a write, which under SELCC invalidates every
        // other node's copy of a page all of them read, like TPC-C's ITEM) is skipped.
        boolean raise;
        try {
            raise = !exclusive && !table.insertOnly() && row.isVisible() && expected.test(row) && row.version() <= ts
                && row.readTimestamp() < ts && !liveIntent(row);
        } catch (RuntimeException | Error e) {
            node.unlock(page); // the caller's key function threw: no latch may outlive this read
            throw e;
        }
        if (raise) {
            // rts must rise: that is a write to the page.
            node.unlock(page);
            page = node.xLock(pageAddress);
            exclusive = true;
            row = RowViews.of(table).wrap(page, slot);
        }
        try {
            // First the slot's write timestamp, whatever the slot holds: a younger delete (or a younger
            // insert into the freed slot) means this transaction should still see the row it looks for.
            if (row.version() > ts) {
                return RowRead.TOO_OLD;
            } else if (!row.isVisible() || !expected.test(row)) {
                return RowRead.ABSENT;
            } else if (liveIntent(row) && row.readTimestamp() < ts) {
                return RowRead.OLDER_INTENT;
            } else if (toWrite && row.readTimestamp() > ts) {
                return RowRead.TOO_OLD; // a younger transaction read it
            } else {
                if (exclusive && row.hasWriteIntent() && !liveIntent(row)) {
                    // A crashed node's intent: raising the read timestamp below would make it look like one
                    // of this node's, which nobody would ever clear.
                    row.writeIntent(false);
                }
                if (exclusive && !table.insertOnly() && row.readTimestamp() < ts) {
                    row.readTimestamp(ts);
                }
                if (toWrite) {
                    row.writeIntent(true);
                }
                row.copyTo(into);
                return RowRead.READ;
            }
        } finally {
            node.unlock(page);
        }
    }

    /** What one try of a row read found. */
    private enum RowRead {
        /** Copied (and marked: read timestamp, write intent). */
        READ,
        /** No row, or not the expected one. */
        ABSENT,
        /** A younger transaction wrote the slot, or (to write it) read the row. */
        TOO_OLD,
        /** An older transaction's write intent: it writes the row at its commit. */
        OLDER_INTENT
    }

    /** Takes back the write intents of a transaction that rolls back before its commit. */
    @Override
    protected void rolledBack() {
        try {
            dropIntents();
        } finally {
            releaseAheadToken();
        }
    }

    private void dropIntents() {
        LongMap<WriteSet.Entry> entries = writes.entries();
        for (int at = 0; at < entries.size(); at++) {
            long rid = entries.keyAt(at);
            WriteSet.Entry write = entries.valueAt(at);
            if (write.touchesSharedRow()) {
                HeapTable table = write.table();
                GclHandle page = node.xLock(table.pageOf(rid));
                try {
                    dropIntent(new TupleView(table.schema()).wrap(page, table.slotOf(rid)), write);
                } finally {
                    node.unlock(page);
                }
            }
        }
    }

    /** Clears this transaction's write intent on {@code row} (if it still holds the row this write read). */
    private void dropIntent(TupleView row, WriteSet.Entry write) {
        if (row.isUsed() && row.incarnation() == write.incarnation() && row.hasWriteIntent() && row.readTimestamp() == ts) {
            row.writeIntent(false);
        }
    }

    /** In a commit, with every written page latched: clears every intent this transaction set. */
    private void dropIntents(LatchedPages latched) {
        LongMap<WriteSet.Entry> entries = writes.entries();
        for (int at = 0; at < entries.size(); at++) {
            long rid = entries.keyAt(at);
            WriteSet.Entry write = entries.valueAt(at);
            if (write.touchesSharedRow()) {
                dropIntent(writes.row(rid, write, latched), write);
            }
        }
    }

    @Override
    protected LeafGuard readGuard() {
        return guard;
    }

    @Override
    public void indexReadDone() {
        checkActive();
        AbortReason failed = refusal;
        if (failed == null) {
            LeafView view = new LeafView();
            for (long[] leaf : coveredLeaves) {
                GclHandle h = node.xLock(leaf[0]);
                try {
                    view.wrap(h);
                    if (view.version() != leaf[1] || view.writeTimestamp() > ts) {
                        failed = AbortReason.TIMESTAMP_TOO_OLD; // changed since the scan read it
                        break;
                    }
                    view.raiseReadTimestamp(ts);
                } finally {
                    node.unlock(h);
                }
            }
        }
        coveredLeaves.clear();
        if (failed != null) {
            throw abortWith(failed, "ts=" + ts + " (index leaf)");
        }
    }

    @Override
    public AbortReason indexRefusal() {
        return refusal;
    }

    /**
     * Every written row still carries this transaction's intent and no younger write; own inserts' slots
     * are intact and no younger than {@code ts}.
     */
    @Override
    protected AbortReason validateRows(LatchedPages latched) {
        if (!writes.insertsIntact(latched)) {
            return AbortReason.TIMESTAMP_TOO_OLD; // a crashed node's cache took an insert slot with it
        }
        LongMap<WriteSet.Entry> entries = writes.entries();
        for (int at = 0; at < entries.size(); at++) {
            long rid = entries.keyAt(at);
            WriteSet.Entry write = entries.valueAt(at);
            TupleView row = writes.row(rid, write, latched);
            if (!write.touchesSharedRow()) {
                // Own inserts: nobody else can see them, but the slot's version must only grow.
                if (row.version() > ts) {
                    return AbortReason.TIMESTAMP_TOO_OLD;
                }
                continue;
            }
            if (!row.isVisible() || row.incarnation() != write.incarnation() || !row.hasWriteIntent()
                    || row.readTimestamp() != ts) {
                if (node.anyPeerCrashed()) {
                    // A crash repair restamped the row's line (its cache took the intent with it): others
                    // may have read or written the row since, so this write can no longer commit.
                    return AbortReason.TIMESTAMP_TOO_OLD;
                }
                // The intent keeps younger readers and every writer off the row: losing it is a bug.
                throw new IllegalStateException("TO write intent lost on record " + rid + " ts=" + ts
                    + " rts=" + row.readTimestamp() + " visible=" + row.isVisible());
            }
            if (row.version() > ts) {
                return AbortReason.TIMESTAMP_TOO_OLD; // a younger transaction wrote the row
            }
        }
        return null;
    }

    @Override
    protected void beforeInstall(LatchedPages latched) {
        dropIntents(latched); // in the same latch hold as the install: nobody sees the gap
    }

    @Override
    protected long newVersion(long version) {
        return ts;
    }

    @Override
    protected void commitEnded(LatchedPages latched, boolean latchedAll, boolean installed) {
        if (!installed && latchedAll) {
            dropIntents(latched); // a failed commit: the rows stay as they were, without the intents
        }
    }

    @Override
    protected void afterRelease() {
        releaseAheadToken();
    }

    /**
     * Plain short latches; the TO rules on leaf timestamps. An ahead attempt latches the leaves it reads
     * in X and raises their read timestamps at once ({@link #onRead}): otherwise an older writer could
     * change one between the read and {@link #indexReadDone}, the one conflict left that makes it abort.
     */
    private final class TimestampGuard implements LeafGuard {
        @Override
        public GclHandle latch(ComputeNode computeNode, long address, boolean exclusive, boolean mayRefuse) {
            return exclusive || holdsAheadToken ? computeNode.xLock(address) : computeNode.sLock(address);
        }

        @Override
        public void unlatch(ComputeNode computeNode, GclHandle handle) {
            computeNode.unlock(handle);
        }

        @Override
        public boolean onRead(LeafView leaf) {
            if (leaf.writeTimestamp() > ts) {
                refusal = AbortReason.TIMESTAMP_TOO_OLD; // a younger transaction changed this range
                return false;
            }
            if (leaf.handle().isExclusive()) {
                leaf.raiseReadTimestamp(ts);
            } else {
                coveredLeaves.add(new long[] {leaf.address(), leaf.version()});
            }
            return true;
        }

        @Override
        public boolean beforeChange(LeafView leaf) {
            if (leaf.readTimestamp() > ts) {
                refusal = AbortReason.TIMESTAMP_TOO_OLD; // a younger predicate read covered this range
                return false;
            }
            return true;
        }

        @Override
        public void afterChange(LeafView leaf, long versionBefore) {
            leaf.raiseWriteTimestamp(ts);
        }

        @Override
        public void afterSplit(LeafView split, long versionBefore, LeafView newLeaf) {
            split.raiseWriteTimestamp(ts);
            newLeaf.raiseWriteTimestamp(ts);
        }
    }
}
