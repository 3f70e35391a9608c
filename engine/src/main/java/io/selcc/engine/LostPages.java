package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.storage.HeapPageRepair;
import io.selcc.storage.HeapTable;
import io.selcc.storage.RecordId;
import io.selcc.storage.TupleView;

import java.util.HashMap;
import java.util.Map;

/**
 * A crash repair's heap-page phase ({@link CrashRecovery}): puts back every lost heap page, the base (a
 * checkpoint's rows of the page slot by slot, or memory's copy), then each slot's last logged change
 * after it, then frees the slots of inserts that never committed; each page is released once repaired.
 */
final class LostPages {
    private LostPages() {
    }

    /**
     * What the phase did.
     *
     * @param slotChanges slots put back from their last logged change
     * @param slotsFreed  slots of inserts that never committed, freed
     * @param baseRows    rows of the base checkpoint read (0 when the base is memory)
     * @param changesRead logged changes after the base read back (all nodes)
     */
    record Restored(long slotChanges, long slotsFreed, long baseRows, long changesRead) {
    }

    static Restored restore(RepairScope scope, Map<Long, Table> heapPages) {
        Map<Long, SlotLast[]> pageChanges = new HashMap<>();
        long changesRead = readChanges(scope, heapPages, pageChanges);
        Map<Long, byte[][]> pageBase = new HashMap<>();
        long baseRows = 0;
        if (scope.source().baseIsCheckpoint() && !heapPages.isEmpty()) {
            baseRows = readCheckpointBase(scope, heapPages, pageBase);
        }
        long slotChanges = 0;
        long slotsFreed = 0;
        ComputeNode cn = scope.survivor();
        for (Map.Entry<Long, Table> e : heapPages.entrySet()) {
            HeapTable heap = e.getValue().heap();
            SlotLast[] changes = pageChanges.get(e.getKey());
            GclHandle page = cn.adoptCrashedLine(e.getKey(), scope.crashed());
            try {
                if (scope.source().baseIsCheckpoint()) {
                    // Memory's copy may hold rows the crashed cache had deleted (and whose delete is now
                    // only in the checkpoint): every slot starts as the checkpoint has it.
                    byte[][] base = pageBase.get(e.getKey());
                    for (int slot = 0; slot < heap.slotsPerPage(); slot++) {
                        HeapPageRepair.restoreSlot(heap, page, slot, base == null ? null : base[slot], scope.restamp());
                    }
                }
                slotChanges += putBackChanges(scope, heap, page, changes);
                slotsFreed += HeapPageRepair.finishRestore(heap, page, scope.restamp());
            } finally {
                cn.unlock(page);
            }
        }
        return new Restored(slotChanges, slotsFreed, baseRows, changesRead);
    }

    /**
     * Reads the logs back: each lost page slot's last change into {@code pageChanges}. The logs come node
     * by node (not merged), so "last" is by number (a later change of one transaction wins a tie). Only
     * what the repair puts back is kept: memory stays bounded by the lost lines, not the log. Returns the
     * changes read.
     */
    private static long readChanges(RepairScope scope, Map<Long, Table> heapPages, Map<Long, SlotLast[]> pageChanges) {
        int gclSize = scope.gclSize();
        long[] changesRead = {0};
        scope.source().forEachChange((sequence, kind, tableId, key, recordId, image) -> {
            changesRead[0]++;
            long page = RecordId.page(recordId, gclSize);
            Table pageTable = heapPages.get(page);
            if (pageTable != null) {
                if (pageTable.heap().tableId() != tableId) {
                    throw new IllegalStateException("logged change of sequence " + sequence + " names table " + tableId
                        + " at record id 0x" + Long.toHexString(recordId) + ", a page of table " + pageTable.name());
                }
                SlotLast[] slots = pageChanges.computeIfAbsent(page, p -> new SlotLast[pageTable.heap().slotsPerPage()]);
                int slot = RecordId.slot(recordId, gclSize);
                if (slots[slot] == null) {
                    slots[slot] = new SlotLast();
                }
                slots[slot].change(sequence, kind == Redo.DELETE ? null : image);
            }
        });
        return changesRead[0];
    }

    /** Reads the base checkpoint's rows of the lost pages into {@code pageBase} (per page, per slot); returns the rows read. */
    private static long readCheckpointBase(RepairScope scope, Map<Long, Table> heapPages, Map<Long, byte[][]> pageBase) {
        int gclSize = scope.gclSize();
        return scope.forEachCheckpointRow((table, recordId, buffer, offset) -> {
            long page = RecordId.page(recordId, gclSize);
            Table pageTable = heapPages.get(page);
            if (pageTable != null) {
                if (pageTable != table) {
                    throw new IllegalStateException("checkpoint row of table " + table.name() + " at record id 0x"
                        + Long.toHexString(recordId) + ", a page of table " + pageTable.name());
                }
                int rowBytes = new TupleView(table.schema()).rowBytes();
                pageBase.computeIfAbsent(page, p -> new byte[table.heap().slotsPerPage()][])
                    [RecordId.slot(recordId, gclSize)] = java.util.Arrays.copyOfRange(buffer, offset, offset + rowBytes);
            }
        });
    }

    /** Puts each changed slot's last logged change onto the held {@code page}; returns the slots put back. */
    private static long putBackChanges(RepairScope scope, HeapTable heap, GclHandle page, SlotLast[] changes) {
        long slotChanges = 0;
        for (int slot = 0; changes != null && slot < changes.length; slot++) {
            SlotLast last = changes[slot];
            if (last == null) {
                continue;
            }
            if (last.image != null && last.deleted) {
                // freed on the way: the next tuple is a new incarnation
                HeapPageRepair.restoreSlot(heap, page, slot, null, scope.restamp());
            }
            HeapPageRepair.restoreSlot(heap, page, slot, last.image, scope.restamp());
            slotChanges++;
        }
        return slotChanges;
    }

    /** A lost page slot's last logged change (by number), and whether any change before it was a delete. */
    private static final class SlotLast {
        long sequence = Long.MIN_VALUE;
        byte[] image;
        boolean deleted;

        void change(long at, byte[] after) {
            if (after == null) {
                deleted = true;
            }
            if (at >= sequence) {
                sequence = at;
                image = after;
            }
        }
    }
}
