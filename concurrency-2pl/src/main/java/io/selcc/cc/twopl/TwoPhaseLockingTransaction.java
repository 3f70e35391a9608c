package io.selcc.cc.twopl;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.AbortException;
import io.selcc.engine.AbortReason;
import io.selcc.engine.CommitOutcome;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.fabric.GlobalAddress;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleLayout;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One no-wait 2PL transaction. Writes happen in place under the page's X latch, after the tuple's
 * before-image is saved for abort; each write bumps the tuple's version.
 *
 * <p>Upgrade S to X without deadlock: release the S latch, {@code tryXLock} (abort if busy), and abort
 * unless every tuple this transaction read on the page still has the version it read. Inserts go into
 * a page this transaction holds in X until commit, marked visible at commit.
 */
final class TwoPhaseLockingTransaction implements CcTransaction {
    private final ComputeNode node;
    /** Latches held, by page address, in acquisition order. */
    private final Map<Long, Held> held = new LinkedHashMap<>();
    private final List<Undo> undo = new ArrayList<>();
    private final Set<Long> undoTaken = new HashSet<>();
    /** This transaction's inserts still alive: record id -> table. */
    private final Map<Long, HeapTable> inserts = new LinkedHashMap<>();
    /** Rows this transaction deleted (existing before it): record id -> table; freed at commit. */
    private final Map<Long, HeapTable> deletes = new LinkedHashMap<>();
    private final Map<HeapTable, TupleView> views = new HashMap<>();
    private boolean active = true;

    private static final class Held {
        GclHandle handle;
        /** While shared: versions of the tuples read on this page, checked on upgrade. */
        final Map<Long, ReadMark> readVersions = new HashMap<>();

        Held(GclHandle handle) {
            this.handle = handle;
        }
    }

    private record Undo(HeapTable table, long rid, byte[] image) {
    }

    private record ReadMark(HeapTable table, long version, int incarnation) {
    }

    TwoPhaseLockingTransaction(ComputeNode node) {
        this.node = node;
    }

    @Override
    public boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        Held page = latch(table.pageOf(rid), false);
        TupleView row = view(table).wrap(page.handle, table.slotOf(rid));
        if (!readable(row, rid) || !expected.test(row)) {
            return false;
        }
        if (!page.handle.isExclusive()) {
            page.readVersions.putIfAbsent(rid, new ReadMark(table, row.version(), row.incarnation()));
        }
        new TupleView(table.schema()).wrap(into).copyFrom(row);
        return true;
    }

    @Override
    public boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                          TupleBuffer before, TupleBuffer after) {
        Held page = latch(table.pageOf(rid), true);
        TupleView row = view(table).wrap(page.handle, table.slotOf(rid));
        if (!readable(row, rid) || !expected.test(row)) {
            return false;
        }
        saveUndo(table, rid, row);
        new TupleView(table.schema()).wrap(before).copyFrom(row);
        TupleView next = new TupleView(table.schema()).wrap(after);
        next.copyFrom(row);
        updater.accept(next);
        row.copyColumnsFrom(next); // the CC header stays ours, whatever the updater did
        row.version(row.version() + 1);
        return true;
    }

    @Override
    public boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before) {
        Held page = latch(table.pageOf(rid), true);
        TupleView row = view(table).wrap(page.handle, table.slotOf(rid));
        if (!readable(row, rid) || !expected.test(row)) {
            return false;
        }
        new TupleView(table.schema()).wrap(before).copyFrom(row);
        if (inserts.remove(rid) != null) {
            table.freeSlot(page.handle, table.slotOf(rid)); // never visible to anyone
            return true;
        }
        saveUndo(table, rid, row);
        row.flags(TupleLayout.USED); // invisible from now on; freed at commit
        row.version(row.version() + 1);
        deletes.put(rid, table);
        return true;
    }

    @Override
    public long insert(HeapTable table, TupleBuffer image) {
        TupleView source = new TupleView(table.schema()).wrap(image);
        while (true) {
            long pageAddress = table.targetPage();
            Held page = latch(pageAddress, true);
            int slot = table.insertInto(page.handle, row -> row.copyColumnsFrom(source));
            if (slot >= 0) {
                long rid = table.recordId(pageAddress, slot);
                inserts.put(rid, table);
                return rid;
            }
            table.pageFull(pageAddress);
        }
    }

    @Override
    public CommitOutcome commit(CommitHook hook) {
        checkActive();
        AbortReason refused = hook.beforeInstall();
        if (refused != null) {
            rollback();
            return CommitOutcome.aborted(refused);
        }
        for (Map.Entry<Long, HeapTable> insert : inserts.entrySet()) {
            HeapTable table = insert.getValue();
            long rid = insert.getKey();
            GclHandle page = held.get(table.pageOf(rid)).handle;
            view(table).wrap(page, table.slotOf(rid)).version(1);
            table.markVisible(page, table.slotOf(rid));
        }
        for (Map.Entry<Long, HeapTable> delete : deletes.entrySet()) {
            HeapTable table = delete.getValue();
            long rid = delete.getKey();
            table.freeSlot(held.get(table.pageOf(rid)).handle, table.slotOf(rid));
        }
        hook.afterInstall();
        releaseAll();
        return CommitOutcome.COMMITTED;
    }

    @Override
    public void abort(AbortReason reason) {
        if (active) {
            rollback();
        }
    }

    // ------------------------------------------------------------ internals

    /** A row this transaction may see: visible, or its own insert (not deleted). */
    private boolean readable(TupleView row, long rid) {
        return row.isVisible() && !deletes.containsKey(rid) || row.isUsed() && inserts.containsKey(rid);
    }

    private TupleView view(HeapTable table) {
        return views.computeIfAbsent(table, t -> new TupleView(t.schema()));
    }

    private void saveUndo(HeapTable table, long rid, TupleView row) {
        if (!inserts.containsKey(rid) && undoTaken.add(rid)) {
            byte[] image = new byte[table.schema().tupleSize()];
            row.copyTo(image);
            undo.add(new Undo(table, rid, image));
        }
    }

    /** The page's latch in the mode needed, taking or upgrading it without waiting; aborts when busy. */
    private Held latch(long page, boolean exclusive) {
        checkActive();
        Held h = held.get(page);
        if (h == null) {
            GclHandle handle = exclusive ? node.tryXLock(page) : node.trySLock(page);
            if (handle == null) {
                throw abortWith(AbortReason.LOCK_CONFLICT, page);
            }
            h = new Held(handle);
            held.put(page, h);
            return h;
        }
        if (exclusive && !h.handle.isExclusive()) {
            node.unlock(h.handle);
            GclHandle upgraded = node.tryXLock(page);
            if (upgraded == null) {
                held.remove(page);
                throw abortWith(AbortReason.UPGRADE_CONFLICT, page);
            }
            h.handle = upgraded;
            for (Map.Entry<Long, ReadMark> read : h.readVersions.entrySet()) {
                HeapTable table = read.getValue().table();
                TupleView row = view(table).wrap(upgraded, table.slotOf(read.getKey()));
                if (row.version() != read.getValue().version() || row.incarnation() != read.getValue().incarnation()) {
                    throw abortWith(AbortReason.UPGRADE_CONFLICT, page); // changed while we held no latch
                }
            }
            h.readVersions.clear();
        }
        return h;
    }

    private AbortException abortWith(AbortReason reason, long page) {
        rollback();
        return new AbortException(reason, "page=" + GlobalAddress.toString(page));
    }

    /** Restores before-images, frees this transaction's inserts, releases every latch. */
    private void rollback() {
        for (int i = undo.size() - 1; i >= 0; i--) {
            Undo u = undo.get(i);
            Held page = held.get(u.table().pageOf(u.rid()));
            view(u.table()).wrap(page.handle, u.table().slotOf(u.rid())).copyFrom(u.image());
        }
        for (Map.Entry<Long, HeapTable> insert : inserts.entrySet()) {
            HeapTable table = insert.getValue();
            long rid = insert.getKey();
            table.freeSlot(held.get(table.pageOf(rid)).handle, table.slotOf(rid));
        }
        releaseAll();
    }

    private void releaseAll() {
        for (Held h : held.values()) {
            node.unlock(h.handle);
        }
        held.clear();
        active = false;
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("transaction is over");
        }
    }
}
