package io.selcc.cc.occ;

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
 * One OCC transaction (Silo-style validation over page latches). Serializable: at commit every page
 * it writes is X-latched (in global order, so committers cannot deadlock) before any read is
 * validated, and a read validates only if its tuple's version is unchanged and no other committer
 * holds its page ({@code trySLock} succeeds).
 */
final class OptimisticTransaction implements CcTransaction {
    /** DROP: inserted by this transaction, then deleted by it; the slot is simply freed. */
    private enum Kind { UPDATE, DELETE, INSERT, DROP }

    private final ComputeNode node;
    /** Versions of the rows read (first read), by record id. */
    private final Map<Long, Read> reads = new HashMap<>();
    /** Buffered writes by record id, in order. */
    private final Map<Long, Write> writes = new LinkedHashMap<>();
    /** Every slot this transaction took, to free on abort. */
    private final Map<Long, HeapTable> inserted = new HashMap<>();
    private boolean active = true;

    /** A row as first read: its version and its slot's incarnation (a reused slot is another row). */
    private record Read(HeapTable table, long version, int incarnation) {
    }

    private static final class Write {
        final HeapTable table;
        Kind kind;
        final TupleBuffer image;

        Write(HeapTable table, Kind kind, TupleBuffer image) {
            this.table = table;
            this.kind = kind;
            this.image = image;
        }
    }

    OptimisticTransaction(ComputeNode node) {
        this.node = node;
    }

    @Override
    public boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        checkActive();
        Write own = writes.get(rid);
        if (own != null) {
            return readOwn(own, expected, into);
        }
        GclHandle page = node.sLock(table.pageOf(rid));
        try {
            TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
            if (!row.isVisible() || !expected.test(row)) {
                return false;
            }
            Read previous = reads.putIfAbsent(rid, new Read(table, row.version(), row.incarnation()));
            if (previous != null && (previous.version() != row.version() || previous.incarnation() != row.incarnation())) {
                throw abortWith(AbortReason.VALIDATION_FAILED); // changed since we read it: doomed anyway
            }
            new TupleView(table.schema()).wrap(into).copyFrom(row);
            return true;
        } finally {
            node.unlock(page);
        }
    }

    private boolean readOwn(Write own, Predicate<TupleView> expected, TupleBuffer into) {
        if (own.kind == Kind.DELETE || own.kind == Kind.DROP) {
            return false;
        }
        TupleView row = new TupleView(own.table.schema()).wrap(own.image);
        if (!expected.test(row)) {
            return false;
        }
        new TupleView(own.table.schema()).wrap(into).copyFrom(row);
        return true;
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
            writes.put(rid, new Write(table, Kind.UPDATE, image));
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
            writes.put(rid, new Write(table, Kind.DELETE, null));
        } else if (own.kind == Kind.INSERT) {
            own.kind = Kind.DROP; // the slot is freed at commit or abort; nobody ever sees the row
        } else {
            own.kind = Kind.DELETE;
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
        writes.put(rid, new Write(table, Kind.INSERT, image));
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
            if (!validate(latched)) {
                return rollback(latched, AbortReason.VALIDATION_FAILED);
            }
            AbortReason refused = hook.beforeInstall();
            if (refused != null) {
                return rollback(latched, refused);
            }
            for (Map.Entry<Long, Write> entry : writes.entrySet()) {
                install(entry.getKey(), entry.getValue(), latched);
            }
            hook.afterInstall();
            return CommitOutcome.COMMITTED;
        } finally {
            release(latched);
            active = false;
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

    private void install(long rid, Write write, TreeMap<Long, GclHandle> latched) {
        HeapTable table = write.table;
        GclHandle page = latched.get(table.pageOf(rid));
        TupleView row = new TupleView(table.schema()).wrap(page, table.slotOf(rid));
        switch (write.kind) {
            case UPDATE -> {
                row.copyColumnsFrom(new TupleView(table.schema()).wrap(write.image));
                row.version(row.version() + 1);
            }
            case DELETE -> {
                row.version(row.version() + 1);
                table.freeSlot(page, table.slotOf(rid));
            }
            case DROP -> table.freeSlot(page, table.slotOf(rid));
            case INSERT -> {
                row.copyColumnsFrom(new TupleView(table.schema()).wrap(write.image));
                row.version(1);
                table.markVisible(page, table.slotOf(rid));
            }
        }
    }

    /** Frees the slots this transaction inserted (their pages are latched) and reports the abort. */
    private CommitOutcome rollback(TreeMap<Long, GclHandle> latched, AbortReason reason) {
        for (Map.Entry<Long, HeapTable> insert : inserted.entrySet()) {
            HeapTable table = insert.getValue();
            table.freeSlot(latched.get(table.pageOf(insert.getKey())), table.slotOf(insert.getKey()));
        }
        inserted.clear();
        return CommitOutcome.aborted(reason);
    }

    private void release(TreeMap<Long, GclHandle> latched) {
        for (GclHandle handle : latched.values()) {
            if (handle != null) {
                node.unlock(handle);
            }
        }
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
        return new AbortException(reason, null);
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("transaction is over");
        }
    }
}
