package io.selcc.engine.cc;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

/**
 * The buffered writes of one transaction, for algorithms that install at commit (OCC, TO): after
 * images by record id, inserts written invisibly into their slots at once, and the commit steps
 * they share: latch the pages in global address order, install, or roll back. Not thread-safe.
 */
public final class WriteSet {
    /** What a buffered write does. DROP: inserted by this transaction, then deleted by it. */
    public enum Kind { UPDATE, DELETE, INSERT, DROP }

    /** One buffered write. */
    public static final class Entry {
        private final HeapTable table;
        private Kind kind;
        private final TupleBuffer image;
        private final int incarnation;

        Entry(HeapTable table, Kind kind, TupleBuffer image, int incarnation) {
            this.table = table;
            this.kind = kind;
            this.image = image;
            this.incarnation = incarnation;
        }

        public HeapTable table() {
            return table;
        }

        public Kind kind() {
            return kind;
        }

        /** The slot's incarnation when the row was read (a reused slot holds another row). */
        public int incarnation() {
            return incarnation;
        }

        /** True for rows other transactions could also see (updates and deletes of existing rows). */
        public boolean touchesSharedRow() {
            return kind == Kind.UPDATE || kind == Kind.DELETE;
        }
    }

    private final ComputeNode node;
    /** Writes by record id, in the order first written (a lookup boxes no key). */
    private final LongMap<Entry> entries = new LongMap<>();
    /** Every slot this transaction took, to free on abort. */
    private final Map<Long, HeapTable> inserted = new HashMap<>();

    public WriteSet(ComputeNode node) {
        this.node = node;
    }

    public LongMap<Entry> entries() {
        return entries;
    }

    /** This transaction's own version of a row: null if it has not written it. */
    public Entry get(long rid) {
        return entries.get(rid);
    }

    /**
     * Reads a row this transaction wrote into {@code into}: false if it deleted it or the row is not
     * {@code expected}.
     */
    public boolean readOwn(Entry own, Predicate<TupleView> expected, TupleBuffer into) {
        if (own.kind == Kind.DELETE || own.kind == Kind.DROP) {
            return false;
        }
        TupleView row = own.image.view();
        if (!expected.test(row)) {
            return false;
        }
        into.view().copyFrom(row);
        return true;
    }

    /** Buffers {@code next} as the row's new columns; {@code before} is the row as read (with its header). */
    public void update(HeapTable table, long rid, TupleBuffer before, TupleView next) {
        Entry own = entries.get(rid);
        if (own != null) {
            own.image.view().copyColumnsFrom(next);
            return;
        }
        TupleBuffer image = new TupleBuffer(table.schema());
        image.view().copyFrom(next);
        put(rid, new Entry(table, Kind.UPDATE, image, incarnation(table, before)));
    }

    /** Buffers the deletion of a row read into {@code before}. */
    public void delete(HeapTable table, long rid, TupleBuffer before) {
        Entry own = entries.get(rid);
        if (own == null) {
            put(rid, new Entry(table, Kind.DELETE, null, incarnation(table, before)));
        } else {
            own.kind = own.kind == Kind.INSERT ? Kind.DROP : Kind.DELETE;
        }
    }

    /** Writes the row's columns into a new slot, invisible until commit, and returns its record id. */
    public long insert(HeapTable table, TupleBuffer row) {
        TupleView source = row.view();
        long rid = table.insertCopy(source);
        TupleBuffer image = new TupleBuffer(table.schema());
        image.view().copyFrom(source);
        put(rid, new Entry(table, Kind.INSERT, image, 0));
        inserted.put(rid, table);
        return rid;
    }

    private void put(long rid, Entry entry) {
        entries.put(rid, entry);
    }

    /** X-latches every page this write set touches, in global address order (committers cannot deadlock). */
    public TreeMap<Long, GclHandle> latchPages() {
        TreeMap<Long, GclHandle> latched = new TreeMap<>();
        for (int i = 0; i < entries.size(); i++) {
            latched.put(entries.valueAt(i).table.pageOf(entries.keyAt(i)), null);
        }
        for (Map.Entry<Long, GclHandle> page : latched.entrySet()) {
            page.setValue(node.xLock(page.getKey()));
        }
        return latched;
    }

    /** The row of {@code rid} in its latched page. */
    public TupleView row(long rid, Entry entry, TreeMap<Long, GclHandle> latched) {
        HeapTable table = entry.table;
        return new TupleView(table.schema()).wrap(latched.get(table.pageOf(rid)), table.slotOf(rid));
    }

    /**
     * Installs every write except those in {@code skip}; a written row's version becomes
     * {@code newVersion(old)}.
     */
    public void install(TreeMap<Long, GclHandle> latched, LongUnaryOperator newVersion, java.util.Set<Long> skip) {
        for (int i = 0; i < entries.size(); i++) {
            long rid = entries.keyAt(i);
            if (skip.contains(rid)) {
                continue;
            }
            Entry entry = entries.valueAt(i);
            HeapTable table = entry.table;
            GclHandle page = latched.get(table.pageOf(rid));
            TupleView row = row(rid, entry, latched);
            switch (entry.kind) {
                case UPDATE -> {
                    row.copyColumnsFrom(entry.image.view());
                    row.version(newVersion.applyAsLong(row.version()));
                }
                case DELETE -> {
                    row.version(newVersion.applyAsLong(row.version()));
                    table.freeSlot(page, table.slotOf(rid));
                }
                case INSERT -> {
                    row.copyColumnsFrom(entry.image.view());
                    row.version(newVersion.applyAsLong(row.version()));
                    table.markVisible(page, table.slotOf(rid));
                }
                case DROP -> table.freeSlot(page, table.slotOf(rid));
            }
        }
    }

    /** Frees this transaction's inserted slots in pages it holds latched (a commit that failed). */
    public void freeInserts(TreeMap<Long, GclHandle> latched) {
        for (Map.Entry<Long, HeapTable> insert : inserted.entrySet()) {
            HeapTable table = insert.getValue();
            table.freeSlot(latched.get(table.pageOf(insert.getKey())), table.slotOf(insert.getKey()));
        }
        inserted.clear();
    }

    /** Frees this transaction's inserted slots, latching each page briefly (an abort before commit). */
    public void freeInserts() {
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

    /** Releases the latches of {@link #latchPages()} (any that were taken). */
    public void release(TreeMap<Long, GclHandle> latched) {
        for (GclHandle handle : latched.values()) {
            if (handle != null) {
                node.unlock(handle);
            }
        }
    }

    private static int incarnation(HeapTable table, TupleBuffer before) {
        return before.view().incarnation();
    }
}
