package io.selcc.storage;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;

import java.util.function.Consumer;

/**
 * Fills fresh pages of a heap table with visible tuples, one page after another, each in a private
 * image ({@link ComputeNode#allocateImage}): no latch per row, and no cache frame or eviction per
 * page. Pages join the table's chain in runs of {@link #LINK_RUN} (and at {@link #close}), so the
 * root, which every loader of the table on every compute node writes, is latched once per run rather
 * than once per page; a run's pages go to memory together, in one verb batch, when the run is linked
 * ({@link ComputeNode#publishAll}), not one WRITE per page (issue 27: a round trip per page made a
 * load over TCP take 30 s for two warehouses). A scan meanwhile misses the rows of the pages not yet
 * linked.
 *
 * <p>Not a transaction: the rows are committed as written, with version 0 (written before every
 * transaction) and no write intents. For loading, with no transaction running on the table. One
 * thread; close it to publish and link the last run.
 */
public final class HeapAppender implements AutoCloseable {
    /** Pages an appender fills before it links them into the chain. */
    static final int LINK_RUN = 64;

    private final HeapTable table;
    private final ComputeNode node;
    private final int gclSize;
    private final int slotsPerPage;
    private final String name;
    /** A zeroed tuple: what a slot holds before an append and after {@link #discardLast}. */
    private final byte[] zeroTuple;
    private final TupleView row;
    /** Pages per run: {@link #LINK_RUN}, fewer for large GCLs (a run's images stay within 1 MiB). */
    private final int runLength;
    /**
     * The run's images, one GCL each: the pages filled and the page being filled. Off-heap in a
     * shared arena, as the cache's pool is: the row accessors the load runs are the ones transactions
     * run, and a heap segment there made the JIT's profile of them mixed (a TPC-C run after a load
     * through a heap image used a third more CPU per transaction).
     */
    private final java.lang.foreign.Arena imageArena = java.lang.foreign.Arena.ofShared();
    private final java.lang.foreign.MemorySegment images;
    /** The run's filled pages, oldest first, not yet in memory: published when the run is linked. */
    private final GclHandle[] filled;
    private int filledCount;
    private GclHandle page;
    private int used;
    /** The newest page of the run not yet linked (0 = none); each page's next is the one before it. */
    private long runHead;
    /** The oldest page of that run; its next is set when the run is linked. */
    private long runTail;
    /** Pages of the run: the filled ones and the one being filled. */
    private int runPages;

    /** An appender for the calling thread, over {@code table}'s pages on the table's compute node. */
    public HeapAppender(HeapTable table) {
        this.table = table;
        this.node = table.node();
        this.gclSize = node.gclSize();
        this.slotsPerPage = table.slotsPerPage();
        this.name = table.name();
        this.zeroTuple = new byte[table.schema().tupleSize()];
        this.row = new TupleView(table.schema());
        this.runLength = Math.max(1, Math.min(LINK_RUN, (1 << 20) / gclSize));
        this.images = imageArena.allocate((long) runLength * gclSize, Long.BYTES);
        this.filled = new GclHandle[runLength];
    }

    /**
     * Writes a tuple through {@code writer} (a zeroed tuple whose nullable columns are NULL) and
     * returns its record id; {@link #lastRow()} views it until the next call.
     *
     * @throws io.selcc.cache.SharedMemoryFullException if no page can be allocated (nothing written)
     * @throws RuntimeException                         what the writer threw; the slot is left free and zero
     */
    public long append(Consumer<TupleView> writer) {
        if (page == null || used == slotsPerPage) {
            nextPage();
        }
        int slot = used;
        row.wrap(page, slot);
        row.setNullableColumnsNull();
        try {
            writer.accept(row);
        } catch (RuntimeException | Error e) {
            row.copyFrom(zeroTuple); // a half-written row must not stay behind in the slot
            throw e;
        }
        row.incarnation(1);
        row.flags(TupleLayout.USED | TupleLayout.VISIBLE); // visible only once complete
        used = slot + 1;
        page.putInt(HeapPageLayout.USED_OFFSET, used);
        return RecordId.of(page.address(), slot, gclSize);
    }

    /**
     * Takes back the row the last {@link #append} wrote (its caller could not finish filing it): the
     * slot is zeroed and free again. Only right after that append.
     */
    public void discardLast() {
        if (page == null || used == 0 || !row.isVisible()) {
            throw new IllegalStateException("no row to discard: table=" + name);
        }
        row.copyFrom(zeroTuple);
        used--;
        page.putInt(HeapPageLayout.USED_OFFSET, used);
    }

    /** The tuple the last {@link #append} wrote, valid until the next call or {@link #close}. */
    public TupleView lastRow() {
        return row;
    }

    private void nextPage() {
        releasePage();
        if (runPages >= runLength) {
            linkRun();
        }
        // the run's pages hold images 0..filledCount-1 until they are published: this page takes the next
        GclHandle h = node.allocateImage(images.asSlice((long) filledCount * gclSize, gclSize));
        long address = h.address();
        table.formatPage(h);
        h.putLong(HeapPageLayout.NEXT_PAGE_OFFSET, runHead);
        if (runHead == 0) {
            runTail = address;
        }
        runHead = address;
        runPages++;
        page = h;
        used = 0;
    }

    /** The page being filled joins the run's filled pages (published with the run). */
    private void releasePage() {
        if (page != null) {
            filled[filledCount++] = page;
            page = null;
        }
    }

    /**
     * Publishes the run's pages in one batch and puts the run in front of the table's chain: its
     * oldest page then points at the old first page. The oldest page is still a private image here,
     * so its link is written before it goes to memory (no latch on it, no read of it).
     */
    private void linkRun() {
        if (runHead == 0) {
            return;
        }
        GclHandle root = node.xLock(table.rootAddress());
        try {
            GclHandle tail = filled[0];
            if (tail.address() != runTail) {
                throw new IllegalStateException("the run's oldest page is not its first filled one: table=" + name);
            }
            tail.putLong(HeapPageLayout.NEXT_PAGE_OFFSET, root.getLong(TableRootLayout.FIRST_PAGE_OFFSET));
            node.publishAll(filled, filledCount); // in memory before the root points at them
            root.putLong(TableRootLayout.FIRST_PAGE_OFFSET, runHead);
            root.putLong(TableRootLayout.PAGE_COUNT_OFFSET, root.getLong(TableRootLayout.PAGE_COUNT_OFFSET) + runPages);
        } finally {
            node.unlock(root);
        }
        java.util.Arrays.fill(filled, 0, filledCount, null);
        filledCount = 0;
        runHead = 0;
        runTail = 0;
        runPages = 0;
    }

    /** Publishes and links the pages filled since the last run went in, the page being filled last. */
    @Override
    public void close() {
        try {
            releasePage();
            linkRun();
        } finally {
            if (page == null) { // published: nothing reads the images any more
                imageArena.close();
            }
        }
    }
}
