package io.selcc.storage;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.fabric.GlobalAddress;

/**
 * What a crash repair does to heap pages ({@code io.selcc.engine.CrashRecovery}): tell a heap page from
 * memory's copy of a lost line, put logged rows back onto a page adopted from a crashed compute node,
 * free what its uncommitted inserts left, and read a page's visible rows as memory holds them. Nothing
 * else calls these, so they stay out of {@link HeapTable}'s API; they work on pages the caller holds in
 * X (or on memory's copies) and take no latch.
 */
public final class HeapPageRepair {
    /**
     * See {@link #finishRestore}: a record id taken for an insert before the crash (an insert the crashed
     * cache took with it) must not match the slot's next tuple.
     */
    static final int RESTORE_INCARNATION_JUMP = 1 << 20;

    private HeapPageRepair() {
    }

    /**
     * The table id of a heap page, from a GCL's data (a {@link ComputeNode#snapshot} or a held handle),
     * or -1 if the GCL is not a heap page.
     */
    public static int heapPageTableId(GclHandle gcl) {
        return gcl.getInt(HeapPageLayout.MAGIC_OFFSET) == HeapPageLayout.MAGIC
            ? gcl.getInt(HeapPageLayout.TABLE_ID_OFFSET) : -1;
    }

    /**
     * Puts one committed change, from the log, onto {@code slot} of a page of {@code table} the caller
     * holds in X, adopted from a crashed node (memory's copy, older than the change): {@code image} is the
     * row after the tuple header, or null for a delete. Apply a slot's changes in commit order. The
     * version is restamped ({@code restamp}: it grows, so optimistic readers of the slot notice the
     * change), a slot that takes a new tuple gets a new incarnation, a write intent stays unless the
     * algorithm clears intents on lost lines ({@link #finishRestore} does).
     */
    public static void restoreSlot(HeapTable table, GclHandle page, int slot, byte[] image, Restamp restamp) {
        TupleView view = new TupleView(table.schema()).wrap(page, slot);
        int intent = view.flags() & TupleLayout.WRITE_INTENT;
        view.version(restamp.version(view.version()));
        if (image == null) {
            view.flags(intent);
            return;
        }
        if (!view.isUsed()) {
            view.incarnation(view.incarnation() + 1);
        }
        view.flags(TupleLayout.USED | TupleLayout.VISIBLE | intent);
        view.setRowFrom(image, 0);
    }

    /**
     * After the slots' changes: frees every slot used but not visible (an insert whose transaction never
     * committed: the page was the crashed node's, so no live transaction owns it), restamps every slot's
     * read timestamp (the lost cache may have raised it), clears write intents if the algorithm says so,
     * and sets the page's used count from its slots. Returns the slots freed.
     *
     * @throws IllegalStateException if the page is not a page of {@code table}
     */
    public static int finishRestore(HeapTable table, GclHandle page, Restamp restamp) {
        if (heapPageTableId(page) != table.tableId()) {
            throw new IllegalStateException("not a page of table " + table.name() + ": "
                + GlobalAddress.toString(page.address()));
        }
        TupleView view = new TupleView(table.schema());
        int used = 0;
        int freed = 0;
        for (int slot = 0; slot < table.slotsPerPage(); slot++) {
            view.wrap(page, slot);
            view.readTimestamp(restamp.timestamp(view.readTimestamp()));
            if (!restamp.keepsIntents() && view.hasWriteIntent()) {
                view.writeIntent(false);
            }
            if (view.isUsed() && !view.isVisible()) {
                view.flags(view.flags() & TupleLayout.WRITE_INTENT);
                freed++;
            } else if (view.isUsed()) {
                used++;
                continue;
            }
            // A free slot: a live transaction elsewhere may hold a record id for an insert here that the
            // crashed cache lost; its incarnation must never come back.
            view.incarnation(view.incarnation() + RESTORE_INCARNATION_JUMP);
        }
        page.putInt(HeapPageLayout.USED_OFFSET, used);
        return freed;
    }

    /**
     * The visible tuples of {@code page}, a page of {@code table} as memory holds it (a
     * {@link ComputeNode#snapshot}, or an image of {@link io.selcc.cache.SelccCluster#forEachGclInMemory}),
     * without a latch (what caches hold on top is not seen). A sweep of memory finds every page of the
     * table's chain, and besides them only pages not linked yet, which hold no visible tuple: new pages
     * are formatted empty and written through before the root links them (a bulk load publishes a run of
     * filled pages just before it links them, and a repair is refused while rows loaded since the last
     * write-back are in memory only); heap pages are never freed.
     *
     * @throws IllegalArgumentException if {@code page} is not a page of {@code table}
     */
    public static void visibleRowsOf(HeapTable table, GclHandle page, HeapTable.TupleConsumer consumer) {
        if (heapPageTableId(page) != table.tableId()) {
            throw new IllegalArgumentException("not a page of table " + table.name() + ": "
                + GlobalAddress.toString(page.address()));
        }
        TupleView view = new TupleView(table.schema());
        int gclSize = table.node().gclSize();
        for (int slot = 0; slot < table.slotsPerPage(); slot++) {
            view.wrap(page, slot);
            if (view.isVisible()) {
                consumer.accept(RecordId.of(page.address(), slot, gclSize), view);
            }
        }
    }
}
