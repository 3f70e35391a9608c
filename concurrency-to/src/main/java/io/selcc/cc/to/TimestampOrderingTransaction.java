package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.AbortReason;
import io.selcc.engine.CommitOutcome;
import io.selcc.engine.cc.BufferingTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.engine.cc.WriteSet;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One TO transaction with timestamp {@code ts}. The tuple header's version is its write timestamp
 * (wts), its read timestamp is rts.
 *
 * <ul>
 *   <li>read: abort if wts > ts (a younger transaction wrote it); raise rts to ts (an X latch only
 *       when rts must change).</li>
 *   <li>write: buffered; at commit, with the write set's pages X-latched in global order, abort if
 *       rts > ts (a younger transaction read it), wts > ts (it wrote it) or the slot holds another row
 *       now, then install with wts = ts. With the Thomas write rule an update older than wts (but not
 *       than rts) is skipped instead.</li>
 * </ul>
 * Serializable in timestamp order; no dirty reads since writes appear only at commit.
 */
final class TimestampOrderingTransaction extends BufferingTransaction {
    private final long ts;
    private final boolean thomasWriteRule;

    TimestampOrderingTransaction(ComputeNode node, long ts, boolean thomasWriteRule) {
        super(node);
        this.ts = ts;
        this.thomasWriteRule = thomasWriteRule;
    }

    @Override
    protected boolean readShared(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        long pageAddress = table.pageOf(rid);
        GclHandle page = node.sLock(pageAddress);
        TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
        if (row.isVisible() && expected.test(row) && row.version() <= ts && row.readTimestamp() < ts) {
            // rts must rise: that is a write to the page.
            node.unlock(page);
            page = node.xLock(pageAddress);
            row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
        }
        boolean tooOld = false;
        try {
            if (!row.isVisible() || !expected.test(row)) {
                return false;
            }
            tooOld = row.version() > ts;
            if (!tooOld) {
                if (row.readTimestamp() < ts) {
                    row.readTimestamp(ts);
                }
                new TupleView(table.schema()).wrap(into).copyFrom(row);
            }
        } finally {
            node.unlock(page);
        }
        if (tooOld) {
            // Roll back only with no latch held: the rollback latches this transaction's insert pages,
            // which may be the page just read (latches are not reentrant).
            throw abortWith(AbortReason.TIMESTAMP_TOO_OLD, "ts=" + ts);
        }
        return true;
    }

    @Override
    public CommitOutcome commit(CommitHook hook) {
        beginCommit();
        TreeMap<Long, GclHandle> latched = new TreeMap<>();
        try {
            latched = writes.latchPages();
            Set<Long> obsolete = new HashSet<>();
            for (Map.Entry<Long, WriteSet.Entry> e : writes.entries().entrySet()) {
                WriteSet.Entry write = e.getValue();
                if (!write.touchesSharedRow()) {
                    continue; // this transaction's own inserts: nobody else can see them
                }
                TupleView row = writes.row(e.getKey(), write, latched);
                if (!row.isVisible() || row.incarnation() != write.incarnation() || row.readTimestamp() > ts) {
                    writes.freeInserts(latched);
                    return CommitOutcome.aborted(AbortReason.TIMESTAMP_TOO_OLD);
                }
                if (row.version() > ts) {
                    if (thomasWriteRule && write.kind() == WriteSet.Kind.UPDATE) {
                        obsolete.add(e.getKey()); // a younger write already won
                    } else {
                        writes.freeInserts(latched);
                        return CommitOutcome.aborted(AbortReason.TIMESTAMP_TOO_OLD);
                    }
                }
            }
            AbortReason refused = hook.beforeInstall();
            if (refused != null) {
                writes.freeInserts(latched);
                return CommitOutcome.aborted(refused);
            }
            writes.install(latched, version -> ts, obsolete);
            hook.afterInstall();
            return CommitOutcome.COMMITTED;
        } finally {
            writes.release(latched);
        }
    }
}
