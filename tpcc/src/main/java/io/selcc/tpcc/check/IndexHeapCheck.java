package io.selcc.tpcc.check;

import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Index;
import io.selcc.engine.Table;
import io.selcc.engine.index.EntryVisitor;
import io.selcc.fabric.GlobalAddress;
import io.selcc.storage.HeapTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * {@link Condition#INDEXES}: every index agrees with its table's heap. Per table, the entries of each
 * of its indexes (primary and secondary) are read in (key, record id) order into two arrays; then one
 * scan of the heap looks each live row up in each index under the key the index files it under, by
 * binary search, and marks the entry it finds. A row not found is missing from that index; an entry
 * left unmarked points at no live row with its key (a deleted row, a free slot, or a row whose key
 * changed without the index). Entries out of (key, record id) order are violations too.
 *
 * <p>Memory: 16 bytes per entry of one table's indexes at a time. Run on a quiesced database.
 */
final class IndexHeapCheck {
    private final DatabaseNode node;
    private final List<String> tables;

    IndexHeapCheck(DatabaseNode node, List<String> tables) {
        this.node = node;
        this.tables = List.copyOf(tables);
    }

    ConditionResult run() {
        Violations v = new Violations(Condition.INDEXES);
        long entries = 0;
        long rows = 0;
        int indexCount = 0;
        for (String name : tables) {
            Table table = node.table(name);
            HeapTable heap = table.heap();
            List<Index> indexes = new ArrayList<>();
            indexes.add(table.primaryIndex());
            indexes.addAll(table.secondaryIndexes());
            Entries[] byIndex = new Entries[indexes.size()];
            for (int i = 0; i < byIndex.length; i++) {
                byIndex[i] = new Entries();
                indexes.get(i).forEachEntry(byIndex[i]);
                if (byIndex[i].firstDisorder >= 0) {
                    int at = byIndex[i].firstDisorder;
                    v.add("index " + indexes.get(i).name() + " out of (key, rid) order at entry " + at + ": key="
                        + byIndex[i].keys[at] + " rid=" + rid(heap, byIndex[i].rids[at]));
                }
                entries += byIndex[i].size;
            }
            long[] live = new long[1];
            heap.scan((rid, row) -> {
                live[0]++;
                for (int i = 0; i < byIndex.length; i++) {
                    Index index = indexes.get(i);
                    long key = index.keyOf(row);
                    if (!byIndex[i].mark(key, rid)) {
                        v.add("live row not in index " + index.name() + ": key=" + key + " rid=" + rid(heap, rid));
                    }
                }
            });
            rows += live[0];
            for (int i = 0; i < byIndex.length; i++) {
                Entries e = byIndex[i];
                for (int at = e.marked.nextClearBit(0); at < e.size; at = e.marked.nextClearBit(at + 1)) {
                    // Only the first violation is kept: say what the entry points at only then.
                    String what = v.count() == 0 ? pointee(heap, indexes.get(i), e.rids[at]) : "";
                    v.add("entry of index " + indexes.get(i).name() + " points at no live row with its key: key="
                        + e.keys[at] + " rid=" + rid(heap, e.rids[at]) + what);
                }
            }
            indexCount += indexes.size();
        }
        return v.result("every entry of " + indexCount + " indexes on " + tables.size()
            + " tables points at a live row with its key, every live row is in its table's indexes; entries="
            + entries + " rows=" + rows);
    }

    /** What a dangling entry's record id holds: no live row, or a live row filed under another key. */
    private static String pointee(HeapTable heap, Index index, long target) {
        long[] keyThere = new long[1];
        boolean[] found = new boolean[1];
        heap.scan((rid, row) -> {
            if (rid == target) {
                found[0] = true;
                keyThere[0] = index.keyOf(row);
            }
        });
        return found[0] ? " (the live row there has key=" + keyThere[0] + ")" : " (no live row there)";
    }

    private static String rid(HeapTable heap, long rid) {
        return GlobalAddress.toString(heap.pageOf(rid)) + "#" + heap.slotOf(rid);
    }

    /** One index's entries in delivery order, and which of them a live row matched. */
    private static final class Entries implements EntryVisitor {
        long[] keys = new long[1024];
        long[] rids = new long[1024];
        int size;
        /** First entry not above its predecessor in (key, rid) order; -1 if none. */
        int firstDisorder = -1;
        final BitSet marked = new BitSet();

        @Override
        public boolean visit(long key, long rid) {
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, size * 2);
                rids = Arrays.copyOf(rids, size * 2);
            }
            if (size > 0 && firstDisorder < 0 && compare(keys[size - 1], rids[size - 1], key, rid) >= 0) {
                firstDisorder = size;
            }
            keys[size] = key;
            rids[size] = rid;
            size++;
            return true;
        }

        /** Marks the entry (key, rid); false if there is none. */
        boolean mark(long key, long rid) {
            int lo = 0;
            int hi = size - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int c = compare(keys[mid], rids[mid], key, rid);
                if (c < 0) {
                    lo = mid + 1;
                } else if (c > 0) {
                    hi = mid - 1;
                } else {
                    marked.set(mid);
                    return true;
                }
            }
            return false;
        }

        private static int compare(long k1, long r1, long k2, long r2) {
            int c = Long.compare(k1, k2);
            return c != 0 ? c : Long.compare(r1, r2);
        }
    }
}
