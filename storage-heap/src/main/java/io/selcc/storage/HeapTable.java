package io.selcc.storage;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.cache.SharedMemoryFullException;
import io.selcc.fabric.GlobalAddress;
import io.selcc.threads.PerThread;
import io.selcc.threads.ThreadRegistry;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.function.Consumer;

/**
 * A heap table: fixed-size tuples packed into GCL pages in insertion order. One instance per compute
 * node and table, shared by the node's threads. Each thread of each compute node fills its own open
 * page, so inserts do not contend; pages where the thread freed slots are filled first, by it alone
 * (shared among a node's threads, one freed page drew every thread's next insert, and under no-wait
 * 2PL each collision aborted and freed more slots).
 *
 * <p>The table's root GCL ({@link TableRootLayout}) holds its schema and the head of its page chain,
 * so any compute node can {@link #open} it from the root address.
 *
 * <p>Latching: {@link #insert} takes a short X latch on the page it fills, and opening a page takes
 * short X latches on it and the root. {@link #insertInto} and everything else work on pages the
 * caller latched, so a transaction can hold its insert page until commit (no-wait 2PL).
 */
public final class HeapTable {
    private final ComputeNode node;
    private final long rootAddress;
    private final int tableId;
    private final String name;
    private final Schema schema;
    private final int slotsPerPage;
    private final boolean insertOnly;
    private final int gclSize;
    private final byte[] zeroTuple;
    /**
     * This thread's insert targets. A thread that ended leaves its open and linked pages to the next new
     * thread (the registry recycles them): the engine is called from any number of short-lived virtual
     * threads, and each would otherwise strand a run of half-empty pages in shared memory.
     */
    private final ThreadRegistry<InsertPages> insertTargets = ThreadRegistry.recycling();
    private final PerThread<InsertPages> insertPages =
        PerThread.withInitial(() -> insertTargets.registerReused(InsertPages::new));
    /**
     * This thread's view of the slot {@link #insertInto} fills, {@link #markVisible} publishes or
     * {@link #freeSlot} frees (one per row was a New-Order's tenth of a KiB).
     */
    private final PerThread<TupleView> insertViews;

    /** One thread's insert targets: its open page and the pages where it freed slots, in order. */
    private static final class InsertPages {
        long open;
        /** Pages linked into the chain ahead of time, for this thread's next open pages (see linkNewPages). */
        final ArrayDeque<Long> linked = new ArrayDeque<>();
        /** The incarnation the thread's last insert gave its slot (see {@link #lastInsertIncarnation}). */
        int lastIncarnation;
        final ArrayDeque<Long> reusable = new ArrayDeque<>();
        final HashSet<Long> queued = new HashSet<>();
    }

    private HeapTable(ComputeNode node, long rootAddress, int tableId, String name, Schema schema, int slotsPerPage,
                      boolean insertOnly) {
        this.node = node;
        this.rootAddress = rootAddress;
        this.tableId = tableId;
        this.name = name;
        this.schema = schema;
        this.slotsPerPage = slotsPerPage;
        this.insertOnly = insertOnly;
        this.gclSize = node.gclSize();
        this.zeroTuple = new byte[schema.tupleSize()];
        this.insertViews = PerThread.withInitial(() -> new TupleView(schema));
    }

    /**
     * Creates a table with a new root GCL.
     *
     * @param onePerPage one tuple per GCL, for hot rows (WAREHOUSE, DISTRICT) so page-level latching
     *                   does not serialize unrelated rows
     */
    public static HeapTable create(ComputeNode node, int tableId, String name, Schema schema, boolean onePerPage) {
        return create(node, tableId, name, schema, onePerPage, false);
    }

    /**
     * Creates a table with a new root GCL.
     *
     * @param onePerPage one tuple per GCL (see {@link #create(ComputeNode, int, String, Schema, boolean)})
     * @param insertOnly the table's rows are never updated or deleted once committed (TPC-C's ITEM and
     *                   HISTORY); recorded in the root so every node knows, see {@link #insertOnly()}
     */
    public static HeapTable create(ComputeNode node, int tableId, String name, Schema schema, boolean onePerPage,
                                   boolean insertOnly) {
        byte[] nameBytes = name.getBytes(StandardCharsets.ISO_8859_1);
        if (nameBytes.length == 0 || nameBytes.length > TableRootLayout.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("table name length must be in [1, " + TableRootLayout.MAX_NAME_LENGTH
                + "]: table=" + name);
        }
        int capacity = HeapPageLayout.capacity(node.dataSize(), schema.tupleSize());
        if (capacity < 1) {
            throw new IllegalArgumentException("tuple does not fit in a GCL: table=" + name + " tupleSize="
                + schema.tupleSize() + " gclDataSize=" + node.dataSize());
        }
        int slotsPerPage = onePerPage ? 1 : capacity;
        long root = node.allocate();
        GclHandle h = node.xLock(root);
        try {
            h.putInt(TableRootLayout.MAGIC_OFFSET, TableRootLayout.MAGIC);
            h.putInt(TableRootLayout.TABLE_ID_OFFSET, tableId);
            h.putInt(TableRootLayout.TUPLE_SIZE_OFFSET, schema.tupleSize());
            h.putInt(TableRootLayout.SLOTS_PER_PAGE_OFFSET, slotsPerPage);
            h.putInt(TableRootLayout.FLAGS_OFFSET, insertOnly ? TableRootLayout.FLAG_INSERT_ONLY : 0);
            int at = TableRootLayout.NAME_OFFSET;
            at = putShortBytes(h, at, nameBytes, name);
            requireRoom(h, at, 2, name);
            h.putByte(at, (byte) (schema.columnCount() >>> 8));
            h.putByte(at + 1, (byte) schema.columnCount());
            at += 2;
            for (Column c : schema.columns()) {
                byte[] columnName = c.name().getBytes(StandardCharsets.ISO_8859_1);
                requireRoom(h, at, 5 + columnName.length, name);
                h.putByte(at, (byte) c.type().ordinal());
                h.putByte(at + 1, (byte) (c.nullable() ? 1 : 0));
                h.putByte(at + 2, (byte) (c.maxLength() >>> 8));
                h.putByte(at + 3, (byte) c.maxLength());
                h.putByte(at + 4, (byte) columnName.length);
                h.putBytes(at + 5, columnName, 0, columnName.length);
                at += 5 + columnName.length;
            }
        } catch (RuntimeException e) {
            node.unlock(h);
            node.free(root);
            throw e;
        }
        node.unlock(h);
        return new HeapTable(node, root, tableId, name, schema, slotsPerPage, insertOnly);
    }

    /** Opens a table another compute node created, from its root address. */
    public static HeapTable open(ComputeNode node, long rootAddress) {
        GclHandle h = node.sLock(rootAddress);
        try {
            if (h.getInt(TableRootLayout.MAGIC_OFFSET) != TableRootLayout.MAGIC) {
                throw new IllegalArgumentException("not a table root: address=" + GlobalAddress.toString(rootAddress));
            }
            int tableId = h.getInt(TableRootLayout.TABLE_ID_OFFSET);
            int slotsPerPage = h.getInt(TableRootLayout.SLOTS_PER_PAGE_OFFSET);
            boolean insertOnly = (h.getInt(TableRootLayout.FLAGS_OFFSET) & TableRootLayout.FLAG_INSERT_ONLY) != 0;
            int at = TableRootLayout.NAME_OFFSET;
            int nameLength = readShort(h, at);
            byte[] nameBytes = new byte[nameLength];
            h.getBytes(at + 2, nameBytes, 0, nameLength);
            at += 2 + nameLength;
            int columns = readShort(h, at);
            at += 2;
            Schema.Builder builder = Schema.builder();
            for (int i = 0; i < columns; i++) {
                ColumnType type = ColumnType.values()[h.getByte(at)];
                boolean nullable = h.getByte(at + 1) != 0;
                int maxLength = readShort(h, at + 2);
                int columnNameLength = h.getByte(at + 4) & 0xFF;
                byte[] columnName = new byte[columnNameLength];
                h.getBytes(at + 5, columnName, 0, columnNameLength);
                builder.add(new String(columnName, StandardCharsets.ISO_8859_1), type, maxLength, nullable);
                at += 5 + columnNameLength;
            }
            Schema schema = builder.build();
            if (schema.tupleSize() != h.getInt(TableRootLayout.TUPLE_SIZE_OFFSET)) {
                throw new IllegalStateException("table root is corrupt: address=" + GlobalAddress.toString(rootAddress)
                    + " tupleSize mismatch");
            }
            return new HeapTable(node, rootAddress, tableId, new String(nameBytes, StandardCharsets.ISO_8859_1),
                schema, slotsPerPage, insertOnly);
        } finally {
            node.unlock(h);
        }
    }

    public long rootAddress() {
        return rootAddress;
    }

    public int tableId() {
        return tableId;
    }

    public String name() {
        return name;
    }

    public Schema schema() {
        return schema;
    }

    public int slotsPerPage() {
        return slotsPerPage;
    }

    /**
     * True when the table's committed rows are never updated or deleted (the engine refuses both). A
     * committed row of such a table then never changes, which lets concurrency controls skip what only
     * guards against a later writer of it: TO does not raise its read timestamp (a write to the page,
     * which under SELCC invalidates every other node's copy of a page all of them read).
     */
    public boolean insertOnly() {
        return insertOnly;
    }

    public ComputeNode node() {
        return node;
    }

    /** The page of a record id. */
    public long pageOf(long rid) {
        return RecordId.page(rid, gclSize);
    }

    /** The slot of a record id. */
    public int slotOf(long rid) {
        return RecordId.slot(rid, gclSize);
    }

    /**
     * Takes a free slot, writes a new tuple through {@code writer} with flags USED (not yet VISIBLE)
     * under a short X latch on its page, and returns its record id. The writer sees a zeroed tuple
     * whose nullable columns are NULL. For callers that hold no latch on the table's pages.
     */
    public long insert(Consumer<TupleView> writer) {
        return insert(writer, null);
    }

    /** {@link #insert(Consumer)} with the columns copied from {@code source}: no writer object per insert. */
    public long insertCopy(TupleView source) {
        return insert(null, source);
    }

    private long insert(Consumer<TupleView> writer, TupleView source) {
        while (true) {
            long page = targetPage();
            GclHandle h = node.xLock(page);
            int slot;
            try {
                slot = insertInto(h, writer, source);
            } finally {
                node.unlock(h);
            }
            if (slot >= 0) {
                return RecordId.of(page, slot, gclSize);
            }
            pageFull(page);
        }
    }

    /**
     * The page the calling thread should insert into next: a page where this thread freed slots, else
     * the thread's own open page (created on first use). Threads have their own open pages so that
     * transactions holding their insert page until commit do not collide.
     */
    public long targetPage() {
        InsertPages mine = insertPages.get();
        Long reusable = mine.reusable.peekFirst();
        if (reusable != null) {
            return reusable;
        }
        return mine.open != 0 ? mine.open : newOpenPage();
    }

    /**
     * Writes a new tuple into a free slot of a page the caller holds in X, with flags USED (not yet
     * VISIBLE) and the slot's version and read timestamp kept from its previous tuple; returns the
     * slot, or -1 if the page is full (then call {@link #pageFull}).
     */
    public int insertInto(GclHandle page, Consumer<TupleView> writer) {
        return insertInto(page, writer, null);
    }

    /**
     * {@link #insertInto(GclHandle, Consumer)} with the new tuple's columns copied from {@code source}
     * (a transaction's buffered image): no writer object per insert.
     */
    public int insertCopy(GclHandle page, TupleView source) {
        return insertInto(page, null, source);
    }

    /** Exactly one of {@code writer} and {@code source} is non-null. */
    private int insertInto(GclHandle page, Consumer<TupleView> writer, TupleView source) {
        int used = page.getInt(HeapPageLayout.USED_OFFSET);
        if (used >= slotsPerPage) {
            return -1;
        }
        // From slot `used` on, wrapping: a page filled in order (no slot freed) has its first free slot
        // there, found at the first probe; a scan from 0 read every used slot's flags, a row each.
        for (int probe = 0, slot = Math.max(0, used); probe < slotsPerPage; probe++, slot = slot + 1 == slotsPerPage ? 0 : slot + 1) {
            int offset = HeapPageLayout.slotOffset(slot, schema.tupleSize());
            if ((page.getInt(offset + TupleLayout.FLAGS_OFFSET) & TupleLayout.USED) == 0) {
                TupleView view = insertViews.get().wrap(page, slot);
                int incarnation = view.incarnation() + 1;
                insertPages.get().lastIncarnation = incarnation;
                if (source != null) {
                    // The image's bytes after the header (null bitmap, columns) overwrite the slot's whole,
                    // and the header's version and read timestamp stay where they are (see below): only
                    // the flags and the incarnation change, no zeroing first.
                    view.incarnation(incarnation);
                    view.flags(TupleLayout.USED);
                    view.copyColumnsFrom(source);
                    page.putInt(HeapPageLayout.USED_OFFSET, used + 1);
                    return slot;
                }
                // The slot's version and read timestamp survive its reuse: they only grow, so a
                // transaction that read the slot's previous tuple can tell that the slot changed.
                long version = view.version();
                long readTimestamp = view.readTimestamp();
                view.copyFrom(zeroTuple);
                view.incarnation(incarnation);
                view.version(version);
                view.readTimestamp(readTimestamp);
                view.flags(TupleLayout.USED);
                view.setNullableColumnsNull();
                writer.accept(view);
                page.putInt(HeapPageLayout.USED_OFFSET, used + 1);
                return slot;
            }
        }
        return -1;
    }

    /**
     * The incarnation the calling thread's last insert into this table gave its slot: with the record id,
     * what tells the insert's own tuple from a later one in the same slot.
     */
    public int lastInsertIncarnation() {
        return insertPages.get().lastIncarnation;
    }

    /**
     * Brings the tuple at {@code rid}, on its page as cached in frame {@code frameHint}, into the CPU's cache
     * ahead of an access ({@link ComputeNode#prefetch}): loads only, the sum returned means nothing.
     */
    public long prefetch(long rid, int frameHint) {
        return node.prefetch(pageOf(rid), frameHint, HeapPageLayout.slotOffset(slotOf(rid), schema.tupleSize()),
            schema.tupleSize());
    }

    /** Record id of {@code slot} in {@code page}. */
    public long recordId(long page, int slot) {
        return RecordId.of(page, slot, gclSize);
    }

    /** {@code page} turned out full: stop offering it (a reusable page) or open a new page for this thread. */
    public void pageFull(long page) {
        InsertPages mine = insertPages.get();
        if (mine.queued.remove(page)) {
            mine.reusable.remove(page);
            return;
        }
        if (mine.open == page) {
            mine.open = 0;
        }
    }

    /**
     * Makes a new page this thread's open page: one linked ahead of time if the thread has one, else a
     * run of {@link #PAGES_PER_LINK} new pages linked at the head of the table's chain at once.
     */
    private long newOpenPage() {
        InsertPages mine = insertPages.get();
        Long ready = mine.linked.pollFirst();
        long page = ready != null ? ready : linkNewPages(mine);
        mine.open = page;
        return page;
    }

    /**
     * Allocates up to {@link #PAGES_PER_LINK} pages (at least one: fewer when shared memory fills),
     * chains them and links the run at the head of the table's chain; keeps all but the first for the
     * thread's next open pages and returns the first. The chain must outlive this node's cache (a
     * survivor of its crash walks it in memory): the pages go to memory whole, before the root that
     * leads to them, in one round trip for the whole run.
     */
    private long linkNewPages(InsertPages mine) {
        long[] pages = new long[PAGES_PER_LINK];
        int count = 0;
        try {
            for (; count < pages.length; count++) {
                pages[count] = node.allocate();
            }
        } catch (SharedMemoryFullException e) {
            if (count == 0) {
                throw e;
            }
        }
        GclHandle[] handles = new GclHandle[count + 1];
        for (int i = 0; i < count; i++) {
            handles[i] = node.xLock(pages[i]);
            formatPage(handles[i]);
        }
        GclHandle root = node.xLock(rootAddress);
        handles[count] = root;
        try {
            for (int i = 0; i < count - 1; i++) {
                handles[i].putLong(HeapPageLayout.NEXT_PAGE_OFFSET, pages[i + 1]);
            }
            handles[count - 1].putLong(HeapPageLayout.NEXT_PAGE_OFFSET, root.getLong(TableRootLayout.FIRST_PAGE_OFFSET));
            root.putLong(TableRootLayout.FIRST_PAGE_OFFSET, pages[0]);
            root.putLong(TableRootLayout.PAGE_COUNT_OFFSET, root.getLong(TableRootLayout.PAGE_COUNT_OFFSET) + count);
            node.writeThrough(handles);
        } finally {
            for (int i = count; i >= 0; i--) {
                node.unlock(handles[i]);
            }
        }
        for (int i = 1; i < count; i++) {
            mine.linked.addLast(pages[i]);
        }
        return pages[0];
    }

    /**
     * Pages a thread links into the chain at once (see {@link #linkNewPages}): one write-through round
     * trip per run instead of per page; a thread keeps at most this many minus one empty pages.
     */
    static final int PAGES_PER_LINK = 8;

    /** Writes a new page's header (its chain link is the caller's); the caller holds the page in X. */
    void formatPage(GclHandle page) {
        page.putInt(HeapPageLayout.MAGIC_OFFSET, HeapPageLayout.MAGIC);
        page.putInt(HeapPageLayout.TABLE_ID_OFFSET, tableId);
        page.putInt(HeapPageLayout.SLOT_COUNT_OFFSET, slotsPerPage);
    }

    /** Makes an inserted tuple visible (its insert committed); the caller holds the page in X. */
    public void markVisible(GclHandle page, int slot) {
        TupleView view = insertViews.get().wrap(page, slot); // this thread's, only used for the moment
        if (!view.isUsed()) {
            throw new IllegalStateException("cannot publish a free slot: table=" + name + " rid="
                + GlobalAddress.toString(page.address()) + "#" + slot);
        }
        view.flags(TupleLayout.USED | TupleLayout.VISIBLE);
    }

    /**
     * Frees a slot of a page the caller holds in X (delete committed, or insert rolled back); the
     * calling thread fills the page again before opening new ones.
     */
    public void freeSlot(GclHandle page, int slot) {
        TupleView view = insertViews.get().wrap(page, slot);
        if (!view.isUsed()) {
            throw new IllegalStateException("slot already free: table=" + name + " rid="
                + GlobalAddress.toString(page.address()) + "#" + slot);
        }
        view.flags(0);
        page.putInt(HeapPageLayout.USED_OFFSET, page.getInt(HeapPageLayout.USED_OFFSET) - 1);
        InsertPages mine = insertPages.get();
        if (mine.queued.add(page.address())) {
            mine.reusable.addLast(page.address());
        }
    }

    /** The first page of the table's chain (0 if it has none). Takes a short S latch on the root. */
    public long firstPage() {
        GclHandle root = node.sLock(rootAddress);
        try {
            return root.getLong(TableRootLayout.FIRST_PAGE_OFFSET);
        } finally {
            node.unlock(root);
        }
    }

    /** The page after {@code latchedPage} in the chain (0 at the end). */
    public long nextPage(GclHandle latchedPage) {
        return latchedPage.getLong(HeapPageLayout.NEXT_PAGE_OFFSET);
    }

    /** Pages in the table's chain; takes a short S latch on the root. */
    public long pageCount() {
        GclHandle root = node.sLock(rootAddress);
        try {
            return root.getLong(TableRootLayout.PAGE_COUNT_OFFSET);
        } finally {
            node.unlock(root);
        }
    }

    /** Receives visible tuples of a scan; the view is valid only during the call. */
    @FunctionalInterface
    public interface TupleConsumer {
        void accept(long rid, TupleView tuple);
    }

    /**
     * Scans all visible tuples with a short S latch per page (not transactional: for loaders, checks
     * and tests). The consumer must not latch GCLs itself.
     */
    public void scan(TupleConsumer consumer) {
        TupleView view = new TupleView(schema);
        for (long page = firstPage(); page != 0; ) {
            GclHandle h = node.sLock(page);
            try {
                for (int slot = 0; slot < slotsPerPage; slot++) {
                    view.wrap(h, slot);
                    if (view.isVisible()) {
                        consumer.accept(RecordId.of(page, slot, gclSize), view);
                    }
                }
                page = nextPage(h);
            } finally {
                node.unlock(h);
            }
        }
    }

    private static int putShortBytes(GclHandle h, int at, byte[] bytes, String table) {
        requireRoom(h, at, 2 + bytes.length, table);
        h.putByte(at, (byte) (bytes.length >>> 8));
        h.putByte(at + 1, (byte) bytes.length);
        h.putBytes(at + 2, bytes, 0, bytes.length);
        return at + 2 + bytes.length;
    }

    private static int readShort(GclHandle h, int at) {
        return ((h.getByte(at) & 0xFF) << 8) | (h.getByte(at + 1) & 0xFF);
    }

    private static void requireRoom(GclHandle h, int at, int bytes, String table) {
        if (at + bytes > h.dataSize()) {
            throw new IllegalArgumentException("schema too large to describe in one GCL: table=" + table
                + " gclDataSize=" + h.dataSize());
        }
    }

    @Override
    public String toString() {
        return "HeapTable[" + name + " id=" + tableId + " root=" + GlobalAddress.toString(rootAddress) + "]";
    }
}
