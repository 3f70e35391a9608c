package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.index.BLinkTreeRepair;
import io.selcc.engine.index.LeafView;
import io.selcc.storage.HeapPageRepair;
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
 * A crash repair's last phase ({@link CrashRecovery}): rebuilds every lost index leaf. Which index each
 * belongs to is found by walking the trees in memory; then each gets exactly the pairs in its range, of
 * rows the log changed from their last image and of the others as the base holds them. Runs after the
 * pages were released: a survivor's commit that would change a lost leaf's range waits for the leaf, so
 * what survivors did to rows meanwhile is either not visible yet or outside every lost range (a change
 * that keeps a row's keys gives the same pairs).
 */
final class LostLeaves {
    private LostLeaves() {
    }

    /**
     * What the phase did.
     *
     * @param leaves    index leaves rebuilt
     * @param entries   entries the rebuilt leaves hold
     * @param notLeaves leaf candidates no tree reaches (a split's new node no link reached), released as memory holds them
     * @param baseRows  rows of the base checkpoint read (0 when the base is memory)
     */
    record Rebuilt(int leaves, long entries, int notLeaves, long baseRows) {
    }

    static Rebuilt rebuild(RepairScope scope, Map<Long, GclHandle> leafCandidates) {
        if (leafCandidates.isEmpty()) {
            return new Rebuilt(0, 0, 0, 0);
        }
        Set<Long> unmatched = new HashSet<>(leafCandidates.keySet());
        Map<Index, List<Long>> leavesByIndex = leavesByIndex(scope, unmatched);
        // A split's new node that no link reached: nothing in it counts, and memory's copy is as good as any.
        scope.releaseAsInMemory(unmatched);

        Map<Table, TableChanges> byTable = new IdentityHashMap<>();
        for (Map.Entry<Index, List<Long>> e : leavesByIndex.entrySet()) {
            Table table = e.getKey().table();
            byTable.computeIfAbsent(table, TableChanges::new).add(e.getKey(), e.getValue(), leafCandidates);
        }
        readChanges(scope, byTable);
        long baseRows = readBase(scope, byTable);
        byTable.values().forEach(TableChanges::finishPairs);

        int leaves = 0;
        long leafEntries = 0;
        ComputeNode cn = scope.survivor();
        for (Map.Entry<Index, List<Long>> e : leavesByIndex.entrySet()) {
            Index index = e.getKey();
            LongPairs pairs = byTable.get(index.table()).pairs(index);
            for (long address : e.getValue()) {
                GclHandle leaf = cn.adoptCrashedLine(address, scope.crashed());
                try {
                    leafEntries += BLinkTreeRepair.rebuildLeaf(index.tree(), leaf, pairs.keys, pairs.values, pairs.size);
                    // The lost cache may have raised the leaf's timestamps (TO's predicate reads and changes).
                    LeafView view = new LeafView().wrap(leaf);
                    view.raiseReadTimestamp(scope.restamp().timestamp(view.readTimestamp()));
                    view.raiseWriteTimestamp(scope.restamp().timestamp(view.writeTimestamp()));
                    leaves++;
                } finally {
                    cn.unlock(leaf);
                }
            }
        }
        return new Rebuilt(leaves, leafEntries, unmatched.size(), baseRows);
    }

    /**
     * The lost leaves of each index, found by walking every tree's leaf level in memory; each leaf found
     * leaves {@code unmatched}, which keeps the candidates no tree reaches.
     */
    private static Map<Index, List<Long>> leavesByIndex(RepairScope scope, Set<Long> unmatched) {
        Map<Index, List<Long>> leavesByIndex = new LinkedHashMap<>();
        for (Table table : scope.tables()) {
            for (Index index : indexesOf(table)) {
                if (unmatched.isEmpty()) {
                    break;
                }
                BLinkTreeRepair.forEachLeafInMemory(index.tree(), scope.survivor(), leaf -> {
                    if (unmatched.remove(leaf)) {
                        leavesByIndex.computeIfAbsent(index, i -> new ArrayList<>()).add(leaf);
                    }
                });
            }
        }
        return leavesByIndex;
    }

    /**
     * Reads the logs back again: for the tables that lost leaves, each changed row's highest number and,
     * if a lost leaf's range holds it, its last image. Changes survivors committed since the first read
     * are in it too, and count like any other.
     */
    private static void readChanges(RepairScope scope, Map<Table, TableChanges> byTable) {
        scope.source().forEachChange((sequence, kind, tableId, key, recordId, image) -> {
            Table table = scope.tableOrNull(tableId);
            TableChanges changes = table == null ? null : byTable.get(table);
            if (changes != null) {
                changes.change(sequence, recordId, kind == Redo.DELETE ? null : image);
            }
        });
        byTable.values().forEach(TableChanges::dropSuperseded);
    }

    /**
     * The base: a checkpoint's rows (the pairs in lost leaves' ranges of rows no logged change touched,
     * in one pass over the file), or memory's rows, found by one sweep of memory for those tables' pages.
     * Returns the checkpoint rows read (0 when the base is memory).
     */
    private static long readBase(RepairScope scope, Map<Table, TableChanges> byTable) {
        if (scope.source().baseIsCheckpoint()) {
            return scope.forEachCheckpointRow((table, recordId, buffer, offset) -> {
                TableChanges changes = byTable.get(table);
                if (changes != null) {
                    changes.baseRow(recordId, buffer, offset);
                }
            });
        }
        // Rows no logged transaction changed are as memory holds them (it held everything when logging started).
        Map<Integer, TableChanges> byTableId = new HashMap<>();
        byTable.values().forEach(changes -> byTableId.put(changes.table.heap().tableId(), changes));
        if (!byTableId.isEmpty()) {
            scope.cluster().forEachGclInMemory(scope.survivor().nodeId(),
                image -> byTableId.containsKey(HeapPageRepair.heapPageTableId(image)),
                page -> {
                    TableChanges changes = byTableId.get(HeapPageRepair.heapPageTableId(page));
                    HeapPageRepair.visibleRowsOf(changes.table.heap(), page, changes::baseRow);
                });
        }
        return 0;
    }

    private static List<Index> indexesOf(Table table) {
        List<Index> indexes = new ArrayList<>();
        indexes.add(table.primaryIndex());
        indexes.addAll(table.secondaryIndexes());
        return indexes;
    }

    private static long keyOf(Index index, TupleView row) {
        return index.isPrimary() ? index.table().primaryKey(row) : index.keyOf(row);
    }

    /** A row's last logged image so far (null: deleted), with its commit sequence number. */
    private record LastImage(long sequence, byte[] image) {
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
        final List<LongPairs> pairs = new ArrayList<>();
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
            pairs.add(new LongPairs(1024, "entries of one index's lost leaves"));
        }

        LongPairs pairs(Index index) {
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
            for (LongPairs p : pairs) {
                p.sort();
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
        /** (low, high) pairs; sorted and merged by {@link #seal}. */
        private final LongPairs ranges = new LongPairs(8, "lost leaf key ranges of one index");

        void add(long low, long high) {
            ranges.add(low, high);
        }

        void seal() {
            ranges.sort();
            long[] lows = ranges.keys;
            long[] highs = ranges.values;
            int merged = 0;
            for (int i = 0; i < ranges.size; i++) {
                if (merged > 0 && lows[i] <= highs[merged - 1]) {
                    highs[merged - 1] = Math.max(highs[merged - 1], highs[i]);
                } else {
                    lows[merged] = lows[i];
                    highs[merged] = highs[i];
                    merged++;
                }
            }
            ranges.size = merged;
        }

        boolean contains(long key) {
            int lo = 0;
            int hi = ranges.size - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (key < ranges.keys[mid]) {
                    hi = mid - 1;
                } else if (key > ranges.values[mid]) {
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
}
