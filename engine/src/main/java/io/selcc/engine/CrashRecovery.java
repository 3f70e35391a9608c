package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.index.BLinkTree;
import io.selcc.storage.HeapTable;
import io.selcc.storage.RecordId;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Restores what a crashed compute node's cache held, on a survivor, while the other nodes go on
 * (fully-shared mode; the recovery the SELCC paper's section 6.5 sketches and leaves open).
 *
 * <p>When a node crashes its lines are fenced, not lost: every GCL it held exclusive keeps its writer
 * tag, which keeps every survivor off the line (they wait). Memory holds each such line as it was last
 * written back; what the crashed cache held on top is committed work of that node and of others whose
 * dirty lines were handed over to it. The repair, in order:
 * <ol>
 *   <li>seals the crashed node's log: what it appended stays and is forced; it appends nothing more
 *       (a number is drawn under the log's append lock, so none is on its way in);</li>
 *   <li>scans every latch word ({@code SelccCluster.claimLinesOf}): the crashed node's reader bits go,
 *       its exclusive lines are listed and stay tagged;</li>
 *   <li>opens a repair source ({@link CommitLog.Factory#openRepair}): a base and every change logged
 *       after it. The base is the newest checkpoint this run published, whose rows carry their record
 *       ids (so repair time is bounded by the checkpoint and the log since it, and checkpoints may
 *       truncate the logs), or, before the first one, memory as it was when logging started
 *       ({@link Database#writeBackCaches});</li>
 *   <li>reads every node's log back from the base on, node by node, keeping only the changes of lost
 *       pages and each changed row's last image (ordered by commit sequence number here);</li>
 *   <li>heap pages: adopts each (the tag moves to the survivor by CAS, memory's copy comes with it),
 *       puts the base on it (a checkpoint's rows of that page slot by slot, every other slot emptied;
 *       memory's copy is the base itself otherwise), then every logged change of its rows after the
 *       base, slot by slot in commit order, then frees the slots of inserts that never committed;</li>
 *   <li>index leaves: a leaf's entries are a function of its table's visible rows, so each lost leaf
 *       gets exactly the pairs in its range: rows the log changed, from their last logged image; the
 *       others as the base holds them (the checkpoint's rows, or memory's: nothing committed changed
 *       those since logging started). Memory's tree is well formed because every structure change is
 *       written through;</li>
 *   <li>every other line (table roots, inner nodes, unused GCLs) is current in memory, also by
 *       write-through: it is adopted and released.</li>
 * </ol>
 * Each line is released once repaired; the survivors waiting for it go on with it.
 *
 * <p>Why a survivor's live transaction cannot be hurt: with an algorithm that keeps its uncommitted
 * in-place state on lines it holds exclusive to the end ({@code survivesCrashedNodes}, no-wait
 * 2PL), no live transaction of another node has state on a crashed node's line; a survivor's commit
 * that would change a lost leaf's range waits for the leaf, so the rows read for it are the committed
 * ones either way.
 */
public final class CrashRecovery {
    private CrashRecovery() {
    }

    /**
     * What one repair did.
     *
     * @param crashedNode the node that crashed
     * @param survivor the node whose thread repaired its lines
     * @param lostLines lines the crashed node held exclusive
     * @param heapPages heap pages among them, restored from the log
     * @param slotChanges logged changes put onto them
     * @param slotsFreed slots of inserts that never committed, freed on them
     * @param leaves index leaves among them, rebuilt
     * @param leafEntries entries the rebuilt leaves hold
     * @param otherLines other lines, current in memory, released
     * @param base what the repair started from ({@link CommitLog.RepairSource#describeBase})
     * @param baseRowsRead rows of the base checkpoint read (0 when the base is memory)
     * @param changesRead logged changes after the base read back (all nodes)
     * @param seconds time the repair took
     */
    public record Report(int crashedNode, int survivor, int lostLines, int heapPages, long slotChanges, long slotsFreed,
                         int leaves, long leafEntries, int otherLines, String base, long baseRowsRead, long changesRead,
                         double seconds) {
        public String describe() {
            return String.format(java.util.Locale.ROOT,
                "compute node %d crashed; node %d restored its %,d lines in %.2f s: %,d heap pages (%,d logged"
                    + " changes put back, %,d uncommitted inserts freed), %,d index leaves rebuilt (%,d entries),"
                    + " %,d other lines released; from %s: %,d checkpoint rows and %,d logged changes read",
                crashedNode, survivor, lostLines, seconds, heapPages, slotChanges, slotsFreed, leaves, leafEntries,
                otherLines, base, baseRowsRead, changesRead);
        }
    }

    /** One logged change of a lost heap page's slot. */
    private record SlotChange(long sequence, int slot, byte[] image) {
    }

    /** A row's last logged image so far (null: deleted), with its commit sequence number. */
    private record LastImage(long sequence, byte[] image) {
    }

    static Report run(Database db, CommitLog.Factory logs, DatabaseNode node, int crashed) {
        long start = System.nanoTime();
        int survivor = node.computeNode().nodeId();
        ComputeNode cn = node.computeNode();
        List<Table> tables = node.tables();

        logs.seal(crashed);
        long[] lost = db.cluster().claimLinesOf(crashed, survivor);

        // Classify the lost lines by what memory holds in them.
        Map<Long, Table> heapPages = new LinkedHashMap<>();
        Set<Long> leafCandidates = new HashSet<>();
        List<Long> others = new ArrayList<>();
        for (long address : lost) {
            GclHandle snapshot = cn.snapshot(address);
            int tableId = HeapTable.heapPageTableId(snapshot);
            if (tableId >= 1 && tableId <= tables.size()) {
                heapPages.put(address, tables.get(tableId - 1));
            } else if (BLinkTree.nodeLevel(snapshot) == 0) {
                leafCandidates.add(address);
            } else {
                others.add(address);
            }
        }
        Map<Index, List<Long>> leavesByIndex = new LinkedHashMap<>();
        if (!leafCandidates.isEmpty()) {
            for (Table table : tables) {
                for (Index index : indexesOf(table)) {
                    index.tree().forEachLeafInMemory(cn, leaf -> {
                        if (leafCandidates.remove(leaf)) {
                            leavesByIndex.computeIfAbsent(index, i -> new ArrayList<>()).add(leaf);
                        }
                    });
                }
            }
        }
        others.addAll(leafCandidates); // a split's new node that no link reached: nothing in it counts
        Set<Table> tablesWithLostLeaves = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        leavesByIndex.keySet().forEach(index -> tablesWithLostLeaves.add(index.table()));

        try (CommitLog.RepairSource source = logs.openRepair()) {
            return repair(source, cn, node.cc().restamp(), tables, crashed, lost.length, heapPages, leavesByIndex, tablesWithLostLeaves, others,
                start);
        }
    }

    private static Report repair(CommitLog.RepairSource source, ComputeNode cn, io.selcc.storage.Restamp restamp,
                                 List<Table> tables, int crashed, int lostLines,
                                 Map<Long, Table> heapPages, Map<Index, List<Long>> leavesByIndex,
                                 Set<Table> tablesWithLostLeaves, List<Long> others, long start) {
        int survivor = cn.nodeId();
        int gclSize = cn.gclSize();

        // Read the logs back: the changes of lost pages' slots, and each changed row's last image.
        // The logs come node by node (not merged): page changes are sorted by number below, and a row's
        // last image is the one with the highest number (a later change of one transaction wins a tie).
        Map<Long, List<SlotChange>> pageChanges = new HashMap<>();
        Map<Table, Map<Long, LastImage>> lastImages = new IdentityHashMap<>();
        long[] changesRead = {0};
        source.forEachChange((sequence, kind, tableId, key, recordId, image) -> {
            changesRead[0]++;
            byte[] after = kind == Redo.DELETE ? null : image;
            long page = RecordId.page(recordId, gclSize);
            Table pageTable = heapPages.get(page);
            if (pageTable != null && pageTable.heap().tableId() != tableId) {
                throw new IllegalStateException("logged change of sequence " + sequence + " names table " + tableId
                    + " at record id 0x" + Long.toHexString(recordId) + ", a page of table " + pageTable.name());
            }
            if (pageTable != null) {
                pageChanges.computeIfAbsent(page, p -> new ArrayList<>())
                    .add(new SlotChange(sequence, RecordId.slot(recordId, gclSize), after));
            }
            if (tableId >= 1 && tableId <= tables.size() && tablesWithLostLeaves.contains(tables.get(tableId - 1))) {
                lastImages.computeIfAbsent(tables.get(tableId - 1), t -> new HashMap<>())
                    .merge(recordId, new LastImage(sequence, after),
                        (old, now) -> now.sequence() >= old.sequence() ? now : old);
            }
        });

        // A checkpoint base: its rows of lost pages (slot by slot), and the index pairs of rows no logged
        // change touched, in one pass over the file.
        Map<Long, byte[][]> pageBase = new HashMap<>();
        Map<Index, Pairs> pairsByIndex = new IdentityHashMap<>();
        long baseRows = 0;
        if (source.baseIsCheckpoint()) {
            baseRows = readCheckpointBase(source, gclSize, tables, heapPages, leavesByIndex.keySet(), lastImages, pageBase,
                pairsByIndex);
        } else {
            pairsByIndex = pairsFromMemory(leavesByIndex.keySet(), cn, lastImages);
        }

        long slotChanges = 0;
        long slotsFreed = 0;
        for (Map.Entry<Long, Table> e : heapPages.entrySet()) {
            HeapTable heap = e.getValue().heap();
            List<SlotChange> changes = pageChanges.getOrDefault(e.getKey(), new ArrayList<>());
            changes.sort(java.util.Comparator.comparingLong(SlotChange::sequence)); // stable: a transaction's order stays
            GclHandle page = cn.adoptCrashedLine(e.getKey(), crashed);
            try {
                if (source.baseIsCheckpoint()) {
                    // Memory's copy may hold rows the crashed cache had deleted (and whose delete is now
                    // only in the checkpoint): every slot starts as the checkpoint has it.
                    byte[][] base = pageBase.get(e.getKey());
                    for (int slot = 0; slot < heap.slotsPerPage(); slot++) {
                        heap.restoreSlot(page, slot, base == null ? null : base[slot], restamp);
                    }
                }
                for (SlotChange change : changes) {
                    heap.restoreSlot(page, change.slot(), change.image(), restamp);
                    slotChanges++;
                }
                slotsFreed += heap.finishRestore(page, restamp);
            } finally {
                cn.unlock(page);
            }
        }

        for (long address : others) {
            cn.unlock(cn.adoptCrashedLine(address, crashed));
        }

        int leaves = 0;
        long leafEntries = 0;
        for (Map.Entry<Index, List<Long>> e : leavesByIndex.entrySet()) {
            Index index = e.getKey();
            Pairs pairs = pairsByIndex.get(index);
            for (long address : e.getValue()) {
                GclHandle leaf = cn.adoptCrashedLine(address, crashed);
                try {
                    leafEntries += index.tree().rebuildLeaf(leaf, pairs.keys, pairs.values, pairs.size);
                    // The lost cache may have raised the leaf's timestamps (TO's predicate reads and changes).
                    io.selcc.engine.index.LeafView view = new io.selcc.engine.index.LeafView().wrap(leaf);
                    view.raiseReadTimestamp(restamp.timestamp(view.readTimestamp()));
                    view.raiseWriteTimestamp(restamp.timestamp(view.writeTimestamp()));
                    leaves++;
                } finally {
                    cn.unlock(leaf);
                }
            }
        }
        return new Report(crashed, survivor, lostLines, heapPages.size(), slotChanges, slotsFreed, leaves, leafEntries,
            others.size(), source.describeBase(), baseRows, changesRead[0], (System.nanoTime() - start) / 1e9);
    }

    private static List<Index> indexesOf(Table table) {
        List<Index> indexes = new ArrayList<>();
        indexes.add(table.primaryIndex());
        indexes.addAll(table.secondaryIndexes());
        return indexes;
    }

    /**
     * Reads the base checkpoint once: the rows of lost heap pages go into {@code pageBase} (per page, per
     * slot), and every row of a table with lost leaves that no logged change touched gives its pair to
     * each of those indexes (sorted at the end; the logged rows' pairs come from their last images).
     * Returns the rows read.
     */
    private static long readCheckpointBase(CommitLog.RepairSource source, int gclSize, List<Table> tables,
                                           Map<Long, Table> heapPages, Set<Index> indexes,
                                           Map<Table, Map<Long, LastImage>> lastImagesByTable,
                                           Map<Long, byte[][]> pageBase, Map<Index, Pairs> pairsByIndex) {
        Map<Table, List<Index>> byTable = byTable(indexes, pairsByIndex);
        TupleBuffer[] buffers = new TupleBuffer[tables.size() + 1];
        long[] rows = {0};
        source.forEachBaseRow((tableId, recordId, buffer, offset) -> {
            rows[0]++;
            if (tableId < 1 || tableId > tables.size()) {
                throw new IllegalStateException("checkpoint row of unknown table " + tableId + " at record id 0x"
                    + Long.toHexString(recordId));
            }
            Table table = tables.get(tableId - 1);
            long page = RecordId.page(recordId, gclSize);
            Table pageTable = heapPages.get(page);
            if (pageTable != null) {
                if (pageTable != table) {
                    throw new IllegalStateException("checkpoint row of table " + table.name() + " at record id 0x"
                        + Long.toHexString(recordId) + ", a page of table " + pageTable.name());
                }
                int rowBytes = bufferOf(buffers, table).view().rowBytes();
                byte[] image = java.util.Arrays.copyOfRange(buffer, offset, offset + rowBytes);
                pageBase.computeIfAbsent(page, p -> new byte[table.heap().slotsPerPage()][])
                    [RecordId.slot(recordId, gclSize)] = image;
            }
            List<Index> mine = byTable.get(table);
            if (mine != null && !lastImagesByTable.getOrDefault(table, Map.of()).containsKey(recordId)) {
                TupleBuffer row = bufferOf(buffers, table);
                row.view().setRowFrom(buffer, offset);
                for (Index index : mine) {
                    pairsByIndex.get(index).add(keyOf(index, row.view()), recordId);
                }
            }
        });
        addLastImages(byTable, lastImagesByTable, pairsByIndex);
        return rows[0];
    }

    private static TupleBuffer bufferOf(TupleBuffer[] buffers, Table table) {
        int id = table.heap().tableId();
        if (buffers[id] == null) {
            buffers[id] = new TupleBuffer(table.schema());
        }
        return buffers[id];
    }

    /** The indexes by table, each with an empty {@link Pairs} in {@code pairsByIndex}. */
    private static Map<Table, List<Index>> byTable(Set<Index> indexes, Map<Index, Pairs> pairsByIndex) {
        Map<Table, List<Index>> byTable = new IdentityHashMap<>();
        for (Index index : indexes) {
            byTable.computeIfAbsent(index.table(), t -> new ArrayList<>()).add(index);
            pairsByIndex.put(index, new Pairs());
        }
        return byTable;
    }

    /** Adds the pairs of each logged row's last image (a deleted row has none), then sorts every index's pairs. */
    private static void addLastImages(Map<Table, List<Index>> byTable, Map<Table, Map<Long, LastImage>> lastImagesByTable,
                                      Map<Index, Pairs> pairsByIndex) {
        for (Map.Entry<Table, List<Index>> e : byTable.entrySet()) {
            Table table = e.getKey();
            List<Index> mine = e.getValue();
            TupleBuffer buffer = new TupleBuffer(table.schema());
            for (Map.Entry<Long, LastImage> last : lastImagesByTable.getOrDefault(table, Map.of()).entrySet()) {
                if (last.getValue().image() != null) {
                    buffer.view().setRowFrom(last.getValue().image(), 0);
                    mine.forEach(index -> pairsByIndex.get(index).add(keyOf(index, buffer.view()), last.getKey()));
                }
            }
            mine.forEach(index -> {
                Pairs pairs = pairsByIndex.get(index);
                PairSort.sort(pairs.keys, pairs.values, pairs.size);
            });
        }
    }

    /**
     * Per index, (key, record id) of every visible row of its table, sorted: what the index must hold.
     * One scan of memory per table, whatever number of its indexes lost leaves.
     */
    private static Map<Index, Pairs> pairsFromMemory(Set<Index> indexes, ComputeNode reader,
                                                     Map<Table, Map<Long, LastImage>> lastImagesByTable) {
        Map<Index, Pairs> pairsByIndex = new IdentityHashMap<>();
        Map<Table, List<Index>> byTable = byTable(indexes, pairsByIndex);
        for (Map.Entry<Table, List<Index>> e : byTable.entrySet()) {
            Table table = e.getKey();
            List<Index> mine = e.getValue();
            Map<Long, LastImage> lastImages = lastImagesByTable.getOrDefault(table, Map.of());
            // Rows no logged transaction changed are as memory holds them (it held everything when logging started).
            table.heap().scanMemory(reader, (rid, row) -> {
                if (!lastImages.containsKey(rid)) {
                    mine.forEach(index -> pairsByIndex.get(index).add(keyOf(index, row), rid));
                }
            });
        }
        addLastImages(byTable, lastImagesByTable, pairsByIndex);
        return pairsByIndex;
    }

    private static long keyOf(Index index, TupleView row) {
        return index.isPrimary() ? index.table().primaryKey(row) : index.keyOf(row);
    }

    /** Growable parallel arrays of (key, value). */
    private static final class Pairs {
        long[] keys = new long[1024];
        long[] values = new long[1024];
        int size;

        void add(long key, long value) {
            if (size == keys.length) {
                keys = java.util.Arrays.copyOf(keys, 2 * size);
                values = java.util.Arrays.copyOf(values, 2 * size);
            }
            keys[size] = key;
            values[size] = value;
            size++;
        }
    }
}
