package io.selcc.engine;

import java.util.List;

/**
 * A compute node's secondary indexes left empty while rows go in, then built from the tables' heaps
 * in one pass. Recovery needs it: a checkpoint's scan is fuzzy, so when a transaction moved a unique
 * secondary key from one row to another during the scan, the file can hold the key on both rows (the
 * first read before the move, the second after it). Filing the checkpoint's rows in a unique index as
 * they load would refuse the second; only the log replay after it (which rewrites the first row)
 * makes the rows consistent again. So the rows load and replay with the secondary indexes deferred,
 * and {@link #build} files them once every row is final, where a key held twice is a real fault.
 *
 * <p>While deferred, this node's transactions and bulk loads keep the primary indexes only (a change
 * of a secondary key costs nothing), and a scan through a secondary index throws
 * {@link IllegalStateException}. The contract is a bulk load's: no transaction runs on another node
 * meanwhile (their tables would still update the indexes). Building takes 16 bytes of heap per row
 * and secondary index (the entries of one table at a time, sorted, then put into the trees a leaf at
 * a time by {@link io.selcc.engine.index.BLinkTree#insertSorted}); building after the replay also
 * spares the replay a tree change per secondary key it changes.
 */
public final class DeferredIndexes {
    private final List<Table> tables;
    private boolean built;

    DeferredIndexes(List<Table> tables) {
        for (Table table : tables) {
            if (table.secondariesDeferred()) {
                throw new IllegalStateException("the secondary indexes of table " + table.name() + " are deferred already");
            }
            for (Index index : table.secondaryArray()) {
                if (index.tree().scan(Long.MIN_VALUE, Long.MAX_VALUE, 1, (key, rid) -> false) > 0) {
                    throw new IllegalStateException("index " + index.name() + " has entries: only empty secondary"
                        + " indexes can be deferred (they are built from the whole heap)");
                }
            }
        }
        this.tables = tables;
        for (Table table : tables) {
            table.deferSecondaries(true);
        }
    }

    /**
     * Files every visible row of every table in its secondary indexes and ends the deferral. Run it
     * when the rows are final and nothing else runs on the tables.
     *
     * @return the entries filed
     * @throws IllegalStateException if a unique index would hold a key for two rows (the message names
     *                               the index, the key and both record ids; the indexes stay deferred),
     *                               or the indexes were built already
     */
    public long build() {
        if (built) {
            throw new IllegalStateException("the deferred secondary indexes were built already");
        }
        long filed = 0;
        for (Table table : tables) {
            Index[] indexes = table.secondaryArray();
            if (indexes.length == 0) {
                continue;
            }
            Entries[] entries = new Entries[indexes.length];
            for (int i = 0; i < indexes.length; i++) {
                entries[i] = new Entries();
            }
            // Gathered first: the heap scan holds a page latch while it calls back, and a tree insert
            // must not latch under it.
            table.heap().scan((rid, row) -> {
                for (int i = 0; i < indexes.length; i++) {
                    entries[i].add(indexes[i].keyOf(row), rid);
                }
            });
            for (int i = 0; i < indexes.length; i++) {
                filed += entries[i].file(indexes[i]);
                entries[i] = null; // one index's arrays at a time past this point
            }
        }
        built = true;
        for (Table table : tables) {
            table.deferSecondaries(false);
        }
        return filed;
    }

    /** One index's (key, record id) pairs, growing as the heap scan finds rows. */
    private static final class Entries {
        final LongPairs pairs = new LongPairs(1_024, "rows in one table to index");

        void add(long key, long rid) {
            pairs.add(key, rid);
        }

        long file(Index index) {
            pairs.sort();
            long[] keys = pairs.keys;
            long[] rids = pairs.values;
            int size = pairs.size;
            int stopped = index.tree().insertSorted(keys, rids, 0, size);
            if (stopped < size) {
                // The tree was empty and the pairs are sorted: the entry it refused repeats the one before it.
                throw new IllegalStateException("unique index " + index.name() + " would hold key " + keys[stopped]
                    + " for two rows: record ids 0x" + Long.toHexString(rids[stopped - 1]) + " and 0x"
                    + Long.toHexString(rids[stopped]));
            }
            return size;
        }
    }
}
