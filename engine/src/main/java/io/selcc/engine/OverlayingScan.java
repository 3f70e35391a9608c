package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.PendingIndexChanges.IndexChange;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A transaction's scan of one index: the tree's entries in a key range with the transaction's own
 * pending index changes laid over them (a row it inserted is found, one it deleted is not, a row whose
 * key it changed is found under its new key), in key order, each entry's row read through the
 * algorithm. The tree is read in batches that grow, each under the algorithm's leaf guard, so the
 * leaves read are protected against phantoms as a lookup's are; the transaction's changes for a batch
 * are those up to its last key, the later ones belong to the next batch. One per transaction, made at
 * its first scan and used by its thread; a scan may run inside another's visitor.
 */
final class OverlayingScan {
    private record Entry(long key, long rid) {
    }

    private final Transaction transaction;
    private final CcTransaction cc;
    private final PendingIndexChanges pending;
    /** The record id of the row a scan is handing to its visitor (see {@link Transaction#visitingRecordId}). */
    private long visitingRecordId = Transaction.NONE;

    OverlayingScan(Transaction transaction, CcTransaction cc, PendingIndexChanges pending) {
        this.transaction = transaction;
        this.cc = cc;
        this.pending = pending;
    }

    /** See {@link Transaction#visitingRecordId}. */
    long visitingRecordId() {
        return visitingRecordId;
    }

    /**
     * Scans {@code index} over keys in [low, high], forward or backward, handing at most {@code limit}
     * rows to {@code visitor}; returns how many it handed. Rows are copies the visitor may keep when
     * {@code keepRows}, else read-only views valid during the visitor's call (of the row in its page
     * where the algorithm holds the page to commit, else of one scratch copy).
     */
    int run(Index index, long low, long high, int limit, boolean forward, boolean keepRows, RowVisitor visitor) {
        Table table = index.table();
        if (!index.isPrimary() && table.secondariesDeferred()) {
            throw new IllegalStateException("index " + index.name() + " is not built yet: its entries are deferred"
                + " until DeferredIndexes.build (recovery builds them after the log replay)");
        }
        if (limit <= 0 || low > high) {
            return 0;
        }
        Table.Scratch scratch = keepRows ? null : table.scratch();
        try {
            return run(index, low, high, limit, forward, scratch, visitor);
        } finally {
            if (scratch != null) {
                scratch.release();
            }
        }
    }

    /** The scan's batches; rows are kept copies when {@code scratch} is null, else views of it. */
    private int run(Index index, long low, long high, int limit, boolean forward, Table.Scratch scratch,
                    RowVisitor visitor) {
        int delivered = 0;
        int batch = Math.max(16, limit * 2);
        long from = forward ? low : high;
        Set<Entry> seenAtBoundary = Set.of();
        Table table = index.table();
        while (true) {
            List<Entry> entries = new ArrayList<>();
            long fromKey = from;
            int fetched = forward
                ? index.tree().scan(fromKey, high, batch, (k, v) -> entries.add(new Entry(k, v)), cc.leafGuard())
                : index.tree().scanBackward(low, fromKey, batch, (k, v) -> entries.add(new Entry(k, v)), cc.leafGuard());
            transaction.indexReadDone();
            boolean exhausted = fetched < batch;
            long lastKey = entries.isEmpty() ? from : entries.get(entries.size() - 1).key();
            List<Entry> merged = mergeLocalChanges(index, entries, forward ? fromKey : low, forward ? high : fromKey,
                exhausted, lastKey, forward);
            for (Entry entry : merged) {
                if (entry.key() == from && seenAtBoundary.contains(entry)) {
                    continue; // delivered in the previous batch
                }
                TupleView row = scratch == null ? readByIndex(index, entry) : readByIndex(index, entry, scratch);
                if (row == null) {
                    continue;
                }
                // A row found by a scan is often read or written by key next (Delivery's new order and
                // order lines, Payment's customer found by last name): the hint lets that skip the index.
                if (!pending.changedRowsOf(table)) { // the node's other threads read the hints (Transaction.learn)
                    table.ridHints().remember(index.isPrimary() ? entry.key() : table.primaryKey(row), entry.rid(),
                        ComputeNode.NO_FRAME);
                }
                delivered++;
                visitingRecordId = entry.rid();
                boolean more;
                if (scratch == null) {
                    more = visitor.visit(row); // a copy of its own, valid after the transaction ends
                } else {
                    transaction.rowHanded(row); // in place: detached should the transaction end meanwhile
                    try {
                        more = visitor.visit(row);
                    } finally {
                        transaction.rowReturned();
                    }
                }
                transaction.checkNotEndedUnder("scan visitor"); // it carried on after a nested call ended it
                if (!more || delivered >= limit) {
                    return delivered;
                }
            }
            if (exhausted) {
                return delivered;
            }
            // Continue from the last key (inclusive: a non-unique key may continue); grow the batch so a
            // key with many entries cannot stall the scan.
            Set<Entry> boundary = new HashSet<>();
            for (Entry entry : merged) {
                if (entry.key() == lastKey) {
                    boundary.add(entry);
                }
            }
            seenAtBoundary = boundary;
            from = lastKey;
            batch *= 2;
        }
    }

    /** Index entries in the fetched range, with this transaction's pending changes applied, in scan order. */
    private List<Entry> mergeLocalChanges(Index index, List<Entry> fromTree, long low, long high, boolean exhausted,
                                          long lastKey, boolean forward) {
        // Local entries beyond the last fetched key belong to a later batch.
        long localLow = forward || exhausted ? low : lastKey;
        long localHigh = !forward || exhausted ? high : lastKey;
        Table table = index.table();
        if (!pending.changesEntriesOf(index)) {
            return fromTree; // already in scan order: the tree orders by (key, record id)
        }
        List<Entry> result = new ArrayList<>(fromTree);
        if (index.isPrimary()) {
            SortedLongMap gone = pending.deletedRows(table);
            if (gone != null) {
                result.removeIf(e -> gone.get(e.key(), Transaction.NONE) == e.rid());
            }
            SortedLongMap mine = pending.insertedRows(table);
            if (mine != null) {
                for (int i = mine.lowerBound(localLow); i < mine.size() && mine.keyAt(i) <= localHigh; i++) {
                    result.add(new Entry(mine.keyAt(i), mine.valueAt(i)));
                }
            }
        } else {
            for (IndexChange change : pending.secondaryChanges()) {
                if (change.index() != index) {
                    continue;
                }
                Entry entry = new Entry(change.key(), change.rid());
                if (change.add()) {
                    if (change.key() >= localLow && change.key() <= localHigh) {
                        result.add(entry);
                    }
                } else {
                    result.remove(entry);
                }
            }
        }
        Comparator<Entry> order = Comparator.comparingLong(Entry::key).thenComparingLong(Entry::rid);
        result.sort(forward ? order : order.reversed());
        return result;
    }

    /**
     * The entry's row as a read-only view, of the page's row or of the scratch copy (see
     * {@code CcTransaction.readView}), or null (no per-row buffer, predicate or lambda).
     */
    private TupleView readByIndex(Index index, Entry entry, Table.Scratch scratch) {
        Table.IndexKeyMatch match = scratch.hasIndexKey;
        match.index = index;
        match.key = entry.key();
        return transaction.readRowView(index.table(), entry.rid(), match, scratch);
    }

    private TupleView readByIndex(Index index, Entry entry) {
        Table table = index.table();
        TupleBuffer buffer = new TupleBuffer(table.schema());
        boolean found = transaction.readRow(table, entry.rid(), row -> index.keyOf(row) == entry.key(), buffer);
        return found ? new TupleView(table.schema()).wrap(buffer) : null;
    }
}
