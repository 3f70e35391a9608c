package io.selcc.engine.cc.kit;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import io.selcc.threads.PerThread;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

/**
 * The buffered writes of one transaction, for algorithms that install at commit (OCC, TO): after
 * images by record id, inserts written invisibly into their slots at once, and the commit steps
 * they share: latch the pages in global address order, install, or roll back. Not thread-safe.
 */
public final class WriteSet {
    /** What a buffered write does. DROP: inserted by this transaction, then deleted by it. */
    enum Kind { UPDATE, DELETE, INSERT, DROP }

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

        /** The buffered row (null for a delete); for tests. */
        TupleBuffer image() {
            return image;
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

    /** Images kept per thread and table: about a New-Order's worth of stock rows and order lines. */
    private static final int POOLED_IMAGES = 32;
    /**
     * Row images recycled per thread and table: an OCC or TO transaction buffers one per row it
     * writes, and allocating them was a third of what such a New-Order allocated. Weak keys, as in
     * {@link RowViews}: a closed database's tables do not stay alive in a long-lived thread's pool.
     */
    private static final PerThread<Map<HeapTable, ArrayDeque<TupleBuffer>>> IMAGES =
        PerThread.withInitial(WeakHashMap::new);

    private final ComputeNode node;
    /** Writes by record id, in the order first written (a lookup boxes no key). */
    private final LongMap<Entry> entries = new LongMap<>();
    /** Every slot this transaction took, to free on abort. */
    private final LongMap<HeapTable> inserted = new LongMap<>();
    private LatchedPages lastLatched = LatchedPages.NONE;

    WriteSet(ComputeNode node) {
        this.node = node;
    }

    public LongMap<Entry> entries() {
        return entries;
    }

    /** This transaction's own version of a row: null if it has not written it. */
    Entry get(long rid) {
        return entries.get(rid);
    }

    /**
     * Reads a row this transaction wrote into {@code into}: false if it deleted it or the row is not
     * {@code expected}.
     */
    boolean readOwn(Entry own, Predicate<TupleView> expected, TupleBuffer into) {
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

    /**
     * Buffers {@code next} as the row's new columns and returns the buffered image (which the caller may
     * go on changing: it is the write); {@code incarnation} is the row's as read.
     */
    TupleBuffer update(HeapTable table, long rid, int incarnation, TupleView next) {
        Entry own = entries.get(rid);
        if (own != null) {
            own.image.view().copyColumnsFrom(next);
            return own.image;
        }
        TupleBuffer image = image(table);
        image.view().copyFrom(next);
        put(rid, new Entry(table, Kind.UPDATE, image, incarnation));
        return image;
    }

    /** Buffers the deletion of a row read into {@code before}. */
    void delete(HeapTable table, long rid, TupleBuffer before) {
        Entry own = entries.get(rid);
        if (own == null) {
            put(rid, new Entry(table, Kind.DELETE, null, incarnation(table, before)));
        } else {
            own.kind = own.kind == Kind.INSERT ? Kind.DROP : Kind.DELETE;
        }
    }

    /** Writes the row's columns into a new slot, invisible until commit, and returns its record id. */
    long insert(HeapTable table, TupleBuffer row) {
        TupleView source = row.view();
        long rid = table.insertCopy(source);
        int incarnation = table.lastInsertIncarnation();
        TupleBuffer image = image(table);
        image.view().copyFrom(source);
        put(rid, new Entry(table, Kind.INSERT, image, incarnation));
        inserted.put(rid, table);
        return rid;
    }

    /** A row image for {@code table}: a recycled one of this thread's, else a new one. */
    private static TupleBuffer image(HeapTable table) {
        ArrayDeque<TupleBuffer> free = IMAGES.get().get(table);
        TupleBuffer image = free != null ? free.pollLast() : null;
        return image != null ? image : new TupleBuffer(table.schema());
    }

    /**
     * Hands this write set's row images back to the thread's pool, for the thread's next transaction;
     * the write set is empty afterwards. Call it once the transaction is over (committed, or rolled back),
     * when nothing reads its images any more.
     */
    void recycle() {
        Map<HeapTable, ArrayDeque<TupleBuffer>> pool = IMAGES.get();
        for (int i = 0; i < entries.size(); i++) {
            Entry entry = entries.valueAt(i);
            if (entry.image != null) {
                ArrayDeque<TupleBuffer> free = pool.computeIfAbsent(entry.table, t -> new ArrayDeque<>());
                if (free.size() < POOLED_IMAGES) {
                    free.addLast(entry.image);
                }
            }
        }
        entries.clear();
    }

    private void put(long rid, Entry entry) {
        entries.put(rid, entry);
    }

    /**
     * X-latches every page this write set touches, in global address order (committers cannot deadlock).
     * If a latch throws, those taken so far are remembered; {@link #releaseLatched()} releases them.
     */
    LatchedPages latchPages() {
        long[] pages = new long[entries.size()];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = entries.valueAt(i).table.pageOf(entries.keyAt(i));
        }
        Arrays.sort(pages);
        int distinct = 0;
        for (int i = 0; i < pages.length; i++) {
            if (distinct == 0 || pages[distinct - 1] != pages[i]) {
                pages[distinct++] = pages[i];
            }
        }
        LatchedPages latched = new LatchedPages(pages, distinct);
        lastLatched = latched;
        for (int i = 0; i < distinct; i++) {
            latched.set(i, node.xLock(latched.addressAt(i)));
        }
        return latched;
    }

    /** The row of {@code rid} in its latched page, through this thread's view of the table (valid until its next use). */
    public TupleView row(long rid, Entry entry, LatchedPages latched) {
        HeapTable table = entry.table;
        return RowViews.of(table).wrap(latched.get(table.pageOf(rid)), table.slotOf(rid));
    }

    /** Installs every write; a written row's version becomes {@code newVersion(old)}. */
    void install(LatchedPages latched, LongUnaryOperator newVersion) {
        for (int i = 0; i < entries.size(); i++) {
            long rid = entries.keyAt(i);
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
    void freeInserts(LatchedPages latched) {
        for (int i = 0; i < inserted.size(); i++) {
            HeapTable table = inserted.valueAt(i);
            long rid = inserted.keyAt(i);
            freeIfOwn(table, latched.get(table.pageOf(rid)), rid);
        }
        inserted.clear();
    }

    /**
     * Whether every slot this transaction inserted into still holds its uncommitted tuple: false when a
     * crashed compute node's cache took the insert with it (the repair restored the page without it and
     * changed the free slot's incarnation). The pages are latched.
     */
    public boolean insertsIntact(LatchedPages latched) {
        for (int i = 0; i < inserted.size(); i++) {
            long rid = inserted.keyAt(i);
            if (!own(inserted.valueAt(i), latched.get(inserted.valueAt(i).pageOf(rid)), rid)) {
                return false;
            }
        }
        return true;
    }

    /** The slot still holds this transaction's uncommitted insert (see {@link #insertsIntact}). */
    private boolean own(HeapTable table, GclHandle page, long rid) {
        TupleView row = RowViews.of(table).wrap(page, table.slotOf(rid));
        Entry entry = entries.get(rid);
        return row.isUsed() && !row.isVisible() && entry != null && row.incarnation() == entry.incarnation;
    }

    /** Frees an inserted slot unless a crash repair gave it away (then it is not this transaction's). */
    private void freeIfOwn(HeapTable table, GclHandle page, long rid) {
        if (own(table, page, rid)) {
            table.freeSlot(page, table.slotOf(rid));
        }
    }

    /** Frees this transaction's inserted slots, latching each page briefly (an abort before commit). */
    void freeInserts() {
        for (int i = 0; i < inserted.size(); i++) {
            HeapTable table = inserted.valueAt(i);
            long rid = inserted.keyAt(i);
            GclHandle page = node.xLock(table.pageOf(rid));
            try {
                freeIfOwn(table, page, rid);
            } finally {
                node.unlock(page);
            }
        }
        inserted.clear();
    }

    /**
     * Releases the latches the last {@link #latchPages()} took (also when it threw part way) and
     * forgets them, so a second call releases nothing.
     */
    void releaseLatched() {
        LatchedPages latched = lastLatched;
        lastLatched = LatchedPages.NONE;
        release(latched);
    }

    /** Releases the latches of {@link #latchPages()} (any that were taken). */
    void release(LatchedPages latched) {
        for (int i = 0; i < latched.size(); i++) {
            GclHandle handle = latched.handleAt(i);
            if (handle != null) {
                node.unlock(handle);
            }
        }
    }

    private static int incarnation(HeapTable table, TupleBuffer before) {
        return before.view().incarnation();
    }
}
