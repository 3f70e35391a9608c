package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.index.BLinkTreeRepair;
import io.selcc.storage.HeapPageRepair;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A crashed node's exclusive lines, sorted by what memory holds in them (a crash repair's first read,
 * see {@link CrashRecovery}): heap pages with their tables, index leaves (candidates: which tree each
 * belongs to is found later) with memory's copy, and every other line (table roots, inner nodes, unused
 * GCLs), which is current in memory.
 */
record LostLines(Map<Long, Table> heapPages, Map<Long, GclHandle> leafCandidates, List<Long> others) {

    /** Reads the lost lines from memory, many per round trip ({@link ComputeNode#snapshots}), and sorts them. */
    static LostLines classify(ComputeNode survivor, List<Table> tables, long[] lost) {
        Map<Long, Table> heapPages = new LinkedHashMap<>();
        Map<Long, GclHandle> leafCandidates = new LinkedHashMap<>();
        List<Long> others = new ArrayList<>();
        for (GclHandle snapshot : survivor.snapshots(lost)) {
            long address = snapshot.address();
            int tableId = HeapPageRepair.heapPageTableId(snapshot);
            if (tableId >= 1 && tableId <= tables.size()) {
                heapPages.put(address, tables.get(tableId - 1));
            } else if (BLinkTreeRepair.nodeLevel(snapshot) == 0) {
                leafCandidates.put(address, snapshot);
            } else {
                others.add(address);
            }
        }
        return new LostLines(heapPages, leafCandidates, others);
    }
}
