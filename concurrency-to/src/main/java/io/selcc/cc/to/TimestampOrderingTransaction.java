package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.AbortException;
import io.selcc.engine.AbortReason;
import io.selcc.engine.CommitOutcome;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One TO transaction with timestamp {@code ts}. The tuple header's version is its write timestamp
 * (wts), its read timestamp is rts.
 *
 * <ul>
 *   <li>read: abort if wts > ts (a younger transaction wrote it); raise rts to ts (an X latch only
 *       when rts must change).</li>
 *   <li>write: buffered; at commit, with the write set's pages X-latched in global order, abort if
 *       rts > ts (a younger transaction read it) or wts > ts (it wrote it), then install with wts = ts.
 *       With the Thomas write rule an update older than wts (but not than rts) is skipped instead.</li>
 * </ul>
 * Serializable in timestamp order; no dirty reads since writes appear only at commit.
 */
final class TimestampOrderingTransaction implements CcTransaction {
    /** DROP: inserted by this transaction, then deleted by it; the slot is simply freed. */
    private enum Kind { UPDATE, DELETE, INSERT, DROP }

    private final ComputeNode node;
    private final long ts;
    private final boolean thomasWriteRule;
    private final Map<Long, Write> writes = new LinkedHashMap<>();
    /** Every slot this transaction took, to free on abort. */
    private final Map<Long, HeapTable> inserted = new HashMap<>();
    private boolean active = true;

    private static final class Write {
        final HeapTable table;
        Kind kind;
        final TupleBuffer image;
        /** The slot's incarnation when the row was read: a reused slot holds another row. */
        final int incarnation;

        Write(HeapTable table, Kind kind, TupleBuffer image, int incarnation) {
            this.table = table;
            this.kind = kind;
            this.image = image;
            this.incarnation = incarnation;
        }
    }

    TimestampOrderingTransaction(ComputeNode node, long ts, boolean thomasWriteRule) {
        this.node = node;
        this.ts = ts;
        this.thomasWriteRule = thomasWriteRule;
    }

    long timestamp() {
        return ts;
    }

    @Override
    public boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        checkActive();
        Write own = writes.get(rid);
        if (own != null) {
            if (own.kind == Kind.DELETE || own.kind == Kind.DROP) {
                return false;
            }
            TupleView row = new TupleView(table.schema()).wrap(own.image);
            if (!expected.test(row)) {
                return false;
            }
            new TupleView(table.schema()).wrap(into).copyFrom(row);
            return true;
        }
        long pageAddress = table.pageOf(rid);
        GclHandle page = node.sLock(pageAddress);
        TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
        if (row.isVisible() && expected.test(row) && row.version() <= ts && row.readTimestamp() < ts) {
            // rts must rise: that is a write to the page.
            node.unlock(page);
            page = node.xLock(pageAddress);
            row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
        }
        try {
            if (!row.isVisible() || !expected.test(row)) {
                return false;
            }
            if (row.version() > ts) {
                throw abortWith(AbortReason.TIMESTAMP_TOO_OLD);
            }
            if (row.readTimestamp() < ts) {
                row.readTimestamp(ts);
            }
            new TupleView(table.schema()).wrap(into).copyFrom(row);
            return true;
        } finally {
            node.unlock(page);
        }
    }

    @Override
    public boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                          TupleBuffer before, TupleBuffer after) {
        if (!read(table, rid, expected, before)) {
            return false;
        }
        TupleView next = new TupleView(table.schema()).wrap(after);
        next.copyFrom(new TupleView(table.schema()).wrap(before));
        updater.accept(next);
        Write own = writes.get(rid);
        if (own != null) {
            new TupleView(table.schema()).wrap(own.image).copyColumnsFrom(next);
        } else {
            TupleBuffer image = new TupleBuffer(table.schema());
            new TupleView(table.schema()).wrap(image).copyFrom(next);
            writes.put(rid, new Write(table, Kind.UPDATE, image, new TupleView(table.schema()).wrap(before).incarnation()));
        }
        return true;
    }

    @Override
    public boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before) {
        if (!read(table, rid, expected, before)) {
            return false;
        }
        Write own = writes.get(rid);
        if (own == null) {
            writes.put(rid, new Write(table, Kind.DELETE, null, new TupleView(table.schema()).wrap(before).incarnation()));
        } else {
            own.kind = own.kind == Kind.INSERT ? Kind.DROP : Kind.DELETE;
        }
        return true;
    }

    @Override
    public long insert(HeapTable table, TupleBuffer row) {
        checkActive();
        TupleView source = new TupleView(table.schema()).wrap(row);
        long rid = table.insert(slot -> slot.copyColumnsFrom(source)); // used, not visible
        TupleBuffer image = new TupleBuffer(table.schema());
        new TupleView(table.schema()).wrap(image).copyFrom(source);
        writes.put(rid, new Write(table, Kind.INSERT, image, 0));
        inserted.put(rid, table);
        return rid;
    }

    @Override
    public CommitOutcome commit(CommitHook hook) {
        checkActive();
        TreeMap<Long, GclHandle> latched = new TreeMap<>();
        for (Map.Entry<Long, Write> write : writes.entrySet()) {
            latched.put(write.getValue().table.pageOf(write.getKey()), null);
        }
        try {
            for (Map.Entry<Long, GclHandle> page : latched.entrySet()) {
                page.setValue(node.xLock(page.getKey())); // global order: committers cannot deadlock
            }
            Map<Long, Boolean> skip = new HashMap<>();
            for (Map.Entry<Long, Write> entry : writes.entrySet()) {
                Write write = entry.getValue();
                if (write.kind == Kind.INSERT || write.kind == Kind.DROP) {
                    continue; // nobody else can see these rows
                }
                HeapTable table = write.table;
                TupleView row = new TupleView(table.schema()).wrap(latched.get(table.pageOf(entry.getKey())),
                    table.slotOf(entry.getKey()));
                if (!row.isVisible() || row.incarnation() != write.incarnation || row.readTimestamp() > ts) {
                    return rollback(latched, AbortReason.TIMESTAMP_TOO_OLD);
                }
                if (row.version() > ts) {
                    if (thomasWriteRule && write.kind == Kind.UPDATE) {
                        skip.put(entry.getKey(), Boolean.TRUE); // obsolete: a younger write already won
                    } else {
                        return rollback(latched, AbortReason.TIMESTAMP_TOO_OLD);
                    }
                }
            }
            AbortReason refused = hook.beforeInstall();
            if (refused != null) {
                return rollback(latched, refused);
            }
            for (Map.Entry<Long, Write> entry : writes.entrySet()) {
                if (!skip.containsKey(entry.getKey())) {
                    install(entry.getKey(), entry.getValue(), latched);
                }
            }
            hook.afterInstall();
            return CommitOutcome.COMMITTED;
        } finally {
            for (GclHandle handle : latched.values()) {
                if (handle != null) {
                    node.unlock(handle);
                }
            }
            active = false;
        }
    }

    private void install(long rid, Write write, TreeMap<Long, GclHandle> latched) {
        HeapTable table = write.table;
        GclHandle page = latched.get(table.pageOf(rid));
        TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
        switch (write.kind) {
            case UPDATE -> {
                row.copyColumnsFrom(new TupleView(table.schema()).wrap(write.image));
                row.version(ts);
            }
            case DELETE, DROP -> table.freeSlot(page, table.slotOf(rid));
            case INSERT -> {
                row.copyColumnsFrom(new TupleView(table.schema()).wrap(write.image));
                row.version(ts);
                row.readTimestamp(ts);
                table.markVisible(page, table.slotOf(rid));
            }
        }
    }

    private CommitOutcome rollback(TreeMap<Long, GclHandle> latched, AbortReason reason) {
        for (Map.Entry<Long, HeapTable> insert : inserted.entrySet()) {
            HeapTable table = insert.getValue();
            table.freeSlot(latched.get(table.pageOf(insert.getKey())), table.slotOf(insert.getKey()));
        }
        inserted.clear();
        return CommitOutcome.aborted(reason);
    }

    @Override
    public void abort(AbortReason reason) {
        if (!active) {
            return;
        }
        active = false;
        for (Map.Entry<Long, HeapTable> insert : inserted.entrySet()) {
            HeapTable table = insert.getValue();
            GclHandle page = node.xLock(table.pageOf(insert.getKey()));
            try {
                table.freeSlot(page, table.slotOf(insert.getKey()));
            } finally {
                node.unlock(page);
            }
        }
        inserted.clear();
    }

    private AbortException abortWith(AbortReason reason) {
        abort(reason);
        return new AbortException(reason, "ts=" + ts);
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("transaction is over");
        }
    }
}
