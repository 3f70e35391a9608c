package io.selcc.cc.occ;

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

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One OCC transaction (Silo-style validation over page latches). Serializable: at commit every page
 * it writes is X-latched (in global order, so committers cannot deadlock) before any read is
 * validated, and a read validates only if its tuple's version and slot incarnation are unchanged and
 * no other committer holds its page ({@code trySLock} succeeds).
 */
final class OptimisticTransaction extends BufferingTransaction {
    /** Rows as first read, by record id. */
    private final Map<Long, Read> reads = new HashMap<>();

    /** A row as first read: its version and its slot's incarnation (a reused slot is another row). */
    private record Read(HeapTable table, long version, int incarnation) {
    }

    OptimisticTransaction(ComputeNode node) {
        super(node);
    }

    @Override
    protected boolean readShared(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        GclHandle page = node.sLock(table.pageOf(rid));
        boolean changed = false;
        try {
            TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
            if (!row.isVisible() || !expected.test(row)) {
                return false;
            }
            Read first = reads.putIfAbsent(rid, new Read(table, row.version(), row.incarnation()));
            changed = first != null && (first.version() != row.version() || first.incarnation() != row.incarnation());
            if (!changed) {
                new TupleView(table.schema()).wrap(into).copyFrom(row);
            }
        } finally {
            node.unlock(page);
        }
        if (changed) {
            // Changed since we read it: doomed anyway. Roll back only with no latch held: the rollback
            // latches this transaction's insert pages, which may be the page just read.
            throw abortWith(AbortReason.VALIDATION_FAILED, null);
        }
        return true;
    }

    @Override
    public CommitOutcome commit(CommitHook hook) {
        beginCommit();
        TreeMap<Long, GclHandle> latched = new TreeMap<>();
        try {
            latched = writes.latchPages();
            if (!validate(latched)) {
                writes.freeInserts(latched);
                return CommitOutcome.aborted(AbortReason.VALIDATION_FAILED);
            }
            AbortReason refused = hook.beforeInstall();
            if (refused != null) {
                writes.freeInserts(latched);
                return CommitOutcome.aborted(refused);
            }
            writes.install(latched, version -> version + 1, Set.of());
            hook.afterInstall();
            return CommitOutcome.COMMITTED;
        } finally {
            writes.release(latched);
        }
    }

    private boolean validate(TreeMap<Long, GclHandle> latched) {
        for (Map.Entry<Long, Read> read : reads.entrySet()) {
            HeapTable table = read.getValue().table();
            long rid = read.getKey();
            long pageAddress = table.pageOf(rid);
            GclHandle page = latched.get(pageAddress);
            boolean mine = page != null;
            if (!mine) {
                page = node.trySLock(pageAddress);
                if (page == null) {
                    return false; // another committer is changing that page right now
                }
            }
            try {
                TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
                if (!row.isVisible() || row.version() != read.getValue().version()
                    || row.incarnation() != read.getValue().incarnation()) {
                    return false;
                }
            } finally {
                if (!mine) {
                    node.unlock(page);
                }
            }
        }
        return true;
    }
}
