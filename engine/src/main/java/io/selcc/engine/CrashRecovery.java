package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.index.BLinkTreeRepair;
import io.selcc.storage.HeapPageRepair;
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
 *       pages (ordered by commit sequence number here);</li>
 *   <li>heap pages: adopts each (the tag moves to the survivor by CAS, memory's copy comes with it),
 *       puts the base on it (a checkpoint's rows of that page slot by slot, every other slot emptied;
 *       memory's copy is the base itself otherwise), then every logged change of its rows after the
 *       base, slot by slot in commit order, then frees the slots of inserts that never committed;</li>
 *   <li>every other line but the leaves (table roots, inner nodes, unused GCLs) is current in memory,
 *       also by write-through: it is adopted and released ({@link Stage#PAGES_RESTORED}: survivors that
 *       waited for those go on while the leaves are rebuilt, which needs the base's rows of whole
 *       tables);</li>
 *   <li>index leaves: a leaf's entries are a function of its table's visible rows, so each lost leaf
 *       gets exactly the pairs in its range: rows the log changed (read back a second time), from their
 *       last logged image; the others as the base holds them (the checkpoint's rows, or memory's:
 *       nothing committed changed those since logging started). Memory's tree is well formed because
 *       every structure change is written through.</li>
 * </ol>
 * Each line is released once repaired; the survivors waiting for it go on with it. Memory is read many
 * lines per round trip ({@code ComputeNode.snapshots}: the lost lines, the trees level by level;
 * {@code SelccCluster.forEachGclInMemory}: one sweep for the pages of the tables that lost leaves), not a
 * round trip per line along the links: over TCP that took 5-20 s for a TPC-C warehouse.
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
     * @param slotChanges lost pages' slots put back from their last logged change
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
        /** A repair another process did ({@code survivor} ran there): what this process knows of it. */
        public static Report elsewhere(int crashedNode, int survivor, double seconds) {
            return new Report(crashedNode, survivor, -1, 0, 0, 0, 0, 0, 0, "", 0, 0, seconds);
        }

        /** Whether the repair ran in another process ({@link #elsewhere}): then only who and when are known. */
        public boolean ranElsewhere() {
            return lostLines < 0;
        }

        public String describe() {
            if (ranElsewhere()) {
                return String.format(java.util.Locale.ROOT, "compute node %d crashed; compute node %d's process restored"
                    + " its lines (waited %.2f s here)", crashedNode, survivor, seconds);
            }
            return String.format(java.util.Locale.ROOT,
                "compute node %d crashed; node %d restored its %,d lines in %.2f s: %,d heap pages (%,d slots put"
                    + " back from the log, %,d uncommitted inserts freed), %,d index leaves rebuilt (%,d entries),"
                    + " %,d other lines released; from %s: %,d checkpoint rows and %,d logged changes read",
                crashedNode, survivor, lostLines, seconds, heapPages, slotChanges, slotsFreed, leaves, leafEntries,
                otherLines, base, baseRowsRead, changesRead);
        }
    }

    /** A row's last logged image so far (null: deleted), with its commit sequence number. */
    private record LastImage(long sequence, byte[] image) {
    }

    /** How far a repair got: which of the crashed node's lines survivors may take again. */
    public enum Stage {
        /**
         * Every lost heap page and every lost line that is not an index leaf is repaired and released:
         * survivors waiting for one of those go on while the leaves are rebuilt.
         */
        PAGES_RESTORED,
        /** Every lost line is repaired and released. */
        DONE
    }

    static Report run(Database db, CommitLog.Factory logs, DatabaseNode node, int crashed,
                      java.util.function.Consumer<Stage> reached) {
        long start = System.nanoTime();
        int survivor = node.computeNode().nodeId();
        ComputeNode cn = node.computeNode();
        List<Table> tables = node.tables();

        logs.seal(crashed);
        long[] lost = db.cluster().claimLinesOf(crashed, survivor);

        // Classify the lost lines by what memory holds in them (read many per round trip).
        Map<Long, Table> heapPages = new LinkedHashMap<>();
        Map<Long, GclHandle> leafCandidates = new LinkedHashMap<>();
        List<Long> others = new ArrayList<>();
        for (GclHandle snapshot : cn.snapshots(lost)) {
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

        try (CommitLog.RepairSource source = logs.openRepair()) {
            io.selcc.storage.Restamp restamp = node.cc().restamp();
            // Heap pages and the other lines first: they need only the log's changes of the lost pages (and
            // the checkpoint's rows of them), while the leaves need their tables' rows from the whole base.
            // A survivor waiting for a page goes on before the leaves are rebuilt.
            PagesRestored pages = restorePages(source, cn, restamp, tables, crashed, heapPages);
            for (long address : others) {
                cn.unlock(cn.adoptCrashedLine(address, crashed));
            }
            reached.accept(Stage.PAGES_RESTORED);
            LeavesRebuilt leaves = rebuildLeaves(db, source, cn, restamp, tables, crashed, leafCandidates);
            return new Report(crashed, survivor, lost.length, heapPages.size(), pages.slotChanges, pages.slotsFreed,
                leaves.leaves, leaves.entries, others.size() + leaves.notLeaves, source.describeBase(),
                Math.max(pages.baseRows, leaves.baseRows), pages.changesRead, (System.nanoTime() - start) / 1e9);
        }
    }

    private record PagesRestored(long slotChanges, long slotsFreed, long baseRows, long changesRead) {
    }

    private record LeavesRebuilt(int leaves, long entries, int notLeaves, long baseRows) {
    }

    /**
     * Puts back every lost heap page: the base (a checkpoint's rows of the page slot by slot, or memory's
     * copy), then each slot's last logged change after it, then frees the slots of inserts that never
     * committed; each page is released once repaired.
     */
    private static PagesRestored restorePages(CommitLog.RepairSource source, ComputeNode cn,
                                              io.selcc.storage.Restamp restamp, List<Table> tables, int crashed,
                                              Map<Long, Table> heapPages) {
        int gclSize = cn.gclSize();
        // Read the logs back: each lost page slot's last change. The logs come node by node (not merged), so
        // "last" is by number (a later change of one transaction wins a tie). Only what the repair puts back
        // is kept: memory stays bounded by the lost lines, not the log.
        Map<Long, SlotLast[]> pageChanges = new HashMap<>();
        long[] changesRead = {0};
        source.forEachChange((sequence, kind, tableId, key, recordId, image) -> {
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

        Map<Long, byte[][]> pageBase = new HashMap<>();
        long baseRows = 0;
        if (source.baseIsCheckpoint() && !heapPages.isEmpty()) {
            baseRows = readCheckpointBase(source, gclSize, tables, heapPages, Map.of(), pageBase);
        }
        long slotChanges = 0;
        long slotsFreed = 0;
        for (Map.Entry<Long, Table> e : heapPages.entrySet()) {
            HeapTable heap = e.getValue().heap();
            SlotLast[] changes = pageChanges.get(e.getKey());
            GclHandle page = cn.adoptCrashedLine(e.getKey(), crashed);
            try {
                if (source.baseIsCheckpoint()) {
                    // Memory's copy may hold rows the crashed cache had deleted (and whose delete is now
                    // only in the checkpoint): every slot starts as the checkpoint has it.
                    byte[][] base = pageBase.get(e.getKey());
                    for (int slot = 0; slot < heap.slotsPerPage(); slot++) {
                        HeapPageRepair.restoreSlot(heap, page, slot, base == null ? null : base[slot], restamp);
                    }
                }
                for (int slot = 0; changes != null && slot < changes.length; slot++) {
                    SlotLast last = changes[slot];
                    if (last == null) {
                        continue;
                    }
                    if (last.image != null && last.deleted) {
                        HeapPageRepair.restoreSlot(heap, page, slot, null, restamp); // freed on the way: the next tuple is a new incarnation
                    }
                    HeapPageRepair.restoreSlot(heap, page, slot, last.image, restamp);
                    slotChanges++;
                }
                slotsFreed += HeapPageRepair.finishRestore(heap, page, restamp);
            } finally {
                cn.unlock(page);
            }
        }
        return new PagesRestored(slotChanges, slotsFreed, baseRows, changesRead[0]);
    }

    /**
     * Rebuilds every lost index leaf: which index each belongs to (the trees walked in memory), then each
     * gets exactly the pairs in its range, of rows the log changed from their last image and of the others
     * as the base holds them. Runs after the pages were released: a survivor's commit that would change a
     * lost leaf's range waits for the leaf, so what survivors did to rows meanwhile is either not visible
     * yet or outside every lost range (a change that keeps a row's keys gives the same pairs).
     */
    private static LeavesRebuilt rebuildLeaves(Database db, CommitLog.RepairSource source, ComputeNode cn,
                                               io.selcc.storage.Restamp restamp, List<Table> tables, int crashed,
                                               Map<Long, GclHandle> leafCandidates) {
        if (leafCandidates.isEmpty()) {
            return new LeavesRebuilt(0, 0, 0, 0);
        }
        int gclSize = cn.gclSize();
        Map<Index, List<Long>> leavesByIndex = new LinkedHashMap<>();
        Set<Long> unmatched = new HashSet<>(leafCandidates.keySet());
        for (Table table : tables) {
            for (Index index : indexesOf(table)) {
                if (unmatched.isEmpty()) {
                    break;
                }
                BLinkTreeRepair.forEachLeafInMemory(index.tree(), cn, leaf -> {
                    if (unmatched.remove(leaf)) {
                        leavesByIndex.computeIfAbsent(index, i -> new ArrayList<>()).add(leaf);
                    }
                });
            }
        }
        // A split's new node that no link reached: nothing in it counts, and memory's copy is as good as any.
        for (long address : unmatched) {
            cn.unlock(cn.adoptCrashedLine(address, crashed));
        }

        Map<Table, TableChanges> byTable = new IdentityHashMap<>();
        for (Map.Entry<Index, List<Long>> e : leavesByIndex.entrySet()) {
            Table table = e.getKey().table();
            byTable.computeIfAbsent(table, TableChanges::new).add(e.getKey(), e.getValue(), leafCandidates);
        }
        // Read the logs back again: for the tables that lost leaves, each changed row's highest number and,
        // if a lost leaf's range holds it, its last image. Changes survivors committed since the first read
        // are in it too, and count like any other.
        source.forEachChange((sequence, kind, tableId, key, recordId, image) -> {
            TableChanges changes = tableId >= 1 && tableId <= tables.size() ? byTable.get(tables.get(tableId - 1)) : null;
            if (changes != null) {
                changes.change(sequence, recordId, kind == Redo.DELETE ? null : image);
            }
        });
        byTable.values().forEach(TableChanges::dropSuperseded);

        // The base: a checkpoint's rows (the pairs in lost leaves' ranges of rows no logged change touched,
        // in one pass over the file), or memory's rows, found by one sweep of memory for those tables' pages.
        long baseRows = 0;
        if (source.baseIsCheckpoint()) {
            baseRows = readCheckpointBase(source, gclSize, tables, Map.of(), byTable, null);
        } else {
            // Rows no logged transaction changed are as memory holds them (it held everything when logging started).
            Map<Integer, TableChanges> byTableId = new HashMap<>();
            byTable.values().forEach(changes -> byTableId.put(changes.table.heap().tableId(), changes));
            if (!byTableId.isEmpty()) {
                db.cluster().forEachGclInMemory(cn.nodeId(), image -> byTableId.containsKey(HeapPageRepair.heapPageTableId(image)),
                    page -> {
                        TableChanges changes = byTableId.get(HeapPageRepair.heapPageTableId(page));
                        HeapPageRepair.visibleRowsOf(changes.table.heap(), page, changes::baseRow);
                    });
            }
        }
        byTable.values().forEach(TableChanges::finishPairs);

        int leaves = 0;
        long leafEntries = 0;
        for (Map.Entry<Index, List<Long>> e : leavesByIndex.entrySet()) {
            Index index = e.getKey();
            Pairs pairs = byTable.get(index.table()).pairs(index);
            for (long address : e.getValue()) {
                GclHandle leaf = cn.adoptCrashedLine(address, crashed);
                try {
                    leafEntries += BLinkTreeRepair.rebuildLeaf(index.tree(), leaf, pairs.keys, pairs.values, pairs.size);
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
        return new LeavesRebuilt(leaves, leafEntries, unmatched.size(), baseRows);
    }

    private static List<Index> indexesOf(Table table) {
        List<Index> indexes = new ArrayList<>();
        indexes.add(table.primaryIndex());
        indexes.addAll(table.secondaryIndexes());
        return indexes;
    }

    /**
     * Reads the base checkpoint once: the rows of lost heap pages go into {@code pageBase} (per page, per
     * slot), and every row of a table with lost leaves gives its pairs to those indexes
     * ({@link TableChanges#baseRow}). Returns the rows read.
     */
    private static long readCheckpointBase(CommitLog.RepairSource source, int gclSize, List<Table> tables,
                                           Map<Long, Table> heapPages, Map<Table, TableChanges> byTable,
                                           Map<Long, byte[][]> pageBase) {
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
            if (pageTable != null && pageBase != null) {
                if (pageTable != table) {
                    throw new IllegalStateException("checkpoint row of table " + table.name() + " at record id 0x"
                        + Long.toHexString(recordId) + ", a page of table " + pageTable.name());
                }
                int rowBytes = new TupleView(table.schema()).rowBytes();
                pageBase.computeIfAbsent(page, p -> new byte[table.heap().slotsPerPage()][])
                    [RecordId.slot(recordId, gclSize)] = java.util.Arrays.copyOfRange(buffer, offset, offset + rowBytes);
            }
            TableChanges changes = byTable.get(table);
            if (changes != null) {
                changes.baseRow(recordId, buffer, offset);
            }
        });
        return rows[0];
    }

    private static long keyOf(Index index, TupleView row) {
        return index.isPrimary() ? index.table().primaryKey(row) : index.keyOf(row);
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

    /**
     * One table whose indexes lost leaves: the lost leaves' key ranges per index, each logged row's highest
     * change number, the last images of the rows a lost range holds, and then the pairs those indexes'
     * lost leaves must hold. A leaf's entries are a function of the rows whose key its range holds, so
     * rows outside every lost range are not kept.
     */
    private static final class TableChanges {
        final Table table;
        final List<Index> indexes = new ArrayList<>();
        final List<KeyRanges> ranges = new ArrayList<>();
        final List<Pairs> pairs = new ArrayList<>();
        /** Every logged row's highest change number: its base (memory's or the checkpoint's) row is stale. */
        final RidSequences changed = new RidSequences();
        /** The last image (by number) of logged rows a lost range holds; null: deleted. */
        final Map<Long, LastImage> images = new HashMap<>();
        final TupleBuffer buffer;

        TableChanges(Table table) {
            this.table = table;
            this.buffer = new TupleBuffer(table.schema());
        }

        void add(Index index, List<Long> leaves, Map<Long, GclHandle> images) {
            KeyRanges keyRanges = new KeyRanges();
            for (long leaf : leaves) {
                long[] range = BLinkTreeRepair.leafKeyRange(images.get(leaf)); // memory's copy: the crashed node's tag keeps it
                keyRanges.add(range[0], range[1]);
            }
            keyRanges.seal();
            indexes.add(index);
            ranges.add(keyRanges);
            pairs.add(new Pairs());
        }

        Pairs pairs(Index index) {
            return pairs.get(indexes.indexOf(index));
        }

        void change(long sequence, long recordId, byte[] image) {
            changed.raise(recordId, sequence);
            boolean kept = false;
            if (image != null) {
                buffer.view().setRowFrom(image, 0);
                kept = inSomeRange(buffer.view());
            }
            if (kept) {
                images.merge(recordId, new LastImage(sequence, image), (old, now) -> now.sequence() >= old.sequence() ? now : old);
            } else {
                // A delete, or an image no lost leaf holds: it supersedes a kept image of this row up to its
                // number (a later change of one transaction wins a tie); nothing is kept for it.
                images.computeIfPresent(recordId, (rid, old) -> old.sequence() <= sequence ? null : old);
            }
        }

        /** Drops kept images that a later change (a delete, or an image out of every range) superseded. */
        void dropSuperseded() {
            images.entrySet().removeIf(e -> e.getValue().sequence() < changed.get(e.getKey()));
        }

        /** A base row (memory's or the checkpoint's): its pairs count unless a logged change superseded it. */
        void baseRow(long recordId, TupleView row) {
            if (!changed.contains(recordId)) {
                addPairs(row, recordId);
            }
        }

        void baseRow(long recordId, byte[] image, int offset) {
            if (!changed.contains(recordId)) {
                buffer.view().setRowFrom(image, offset);
                addPairs(buffer.view(), recordId);
            }
        }

        /** Adds the kept last images' pairs and sorts every index's pairs. */
        void finishPairs() {
            for (Map.Entry<Long, LastImage> last : images.entrySet()) {
                if (last.getValue().image() != null) {
                    buffer.view().setRowFrom(last.getValue().image(), 0);
                    addPairs(buffer.view(), last.getKey());
                }
            }
            for (Pairs p : pairs) {
                PairSort.sort(p.keys, p.values, p.size);
            }
        }

        private boolean inSomeRange(TupleView row) {
            for (int i = 0; i < indexes.size(); i++) {
                if (ranges.get(i).contains(keyOf(indexes.get(i), row))) {
                    return true;
                }
            }
            return false;
        }

        private void addPairs(TupleView row, long recordId) {
            for (int i = 0; i < indexes.size(); i++) {
                long key = keyOf(indexes.get(i), row);
                if (ranges.get(i).contains(key)) {
                    pairs.get(i).add(key, recordId);
                }
            }
        }
    }

    /** Inclusive key ranges, merged and searched by binary search once sealed. */
    private static final class KeyRanges {
        private long[] lows = new long[8];
        private long[] highs = new long[8];
        private int size;

        void add(long low, long high) {
            if (size == lows.length) {
                lows = java.util.Arrays.copyOf(lows, 2 * size);
                highs = java.util.Arrays.copyOf(highs, 2 * size);
            }
            lows[size] = low;
            highs[size] = high;
            size++;
        }

        void seal() {
            PairSort.sort(lows, highs, size);
            int merged = 0;
            for (int i = 0; i < size; i++) {
                if (merged > 0 && lows[i] <= highs[merged - 1]) {
                    highs[merged - 1] = Math.max(highs[merged - 1], highs[i]);
                } else {
                    lows[merged] = lows[i];
                    highs[merged] = highs[i];
                    merged++;
                }
            }
            size = merged;
        }

        boolean contains(long key) {
            int lo = 0;
            int hi = size - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (key < lows[mid]) {
                    hi = mid - 1;
                } else if (key > highs[mid]) {
                    lo = mid + 1;
                } else {
                    return true;
                }
            }
            return false;
        }
    }

    /** Record id to the highest change number seen: open addressing, two primitive arrays. */
    private static final class RidSequences {
        private static final long EMPTY = Long.MIN_VALUE; // no record id is MIN_VALUE
        private long[] keys = filled(1 << 12);
        private long[] values = new long[1 << 12];
        private int size;

        private static long[] filled(int n) {
            long[] a = new long[n];
            java.util.Arrays.fill(a, EMPTY);
            return a;
        }

        private int slotOf(long key, long[] in) {
            int mask = in.length - 1;
            int i = (int) (key * 0x9E3779B97F4A7C15L >>> 32) & mask;
            while (in[i] != EMPTY && in[i] != key) {
                i = (i + 1) & mask;
            }
            return i;
        }

        void raise(long key, long value) {
            int i = slotOf(key, keys);
            if (keys[i] == EMPTY) {
                keys[i] = key;
                values[i] = value;
                if (++size * 2 > keys.length) {
                    grow();
                }
            } else if (value > values[i]) {
                values[i] = value;
            }
        }

        boolean contains(long key) {
            return keys[slotOf(key, keys)] != EMPTY;
        }

        /** The highest number recorded for {@code key}, or MIN_VALUE. */
        long get(long key) {
            int i = slotOf(key, keys);
            return keys[i] == EMPTY ? Long.MIN_VALUE : values[i];
        }

        private void grow() {
            long[] oldKeys = keys;
            long[] oldValues = values;
            keys = filled(oldKeys.length * 2);
            values = new long[oldKeys.length * 2];
            for (int j = 0; j < oldKeys.length; j++) {
                if (oldKeys[j] != EMPTY) {
                    int i = slotOf(oldKeys[j], keys);
                    keys[i] = oldKeys[j];
                    values[i] = oldValues[j];
                }
            }
        }
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
