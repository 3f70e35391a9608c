package io.selcc.engine;

import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A transaction's index changes, waiting for its commit: the rows it inserted and the rows it deleted,
 * per table by primary key (the primary-index entries to add and remove), and the secondary-index
 * entries to add or remove. The transaction sees its own changes through them (its lookups, and its
 * scans through {@link OverlayingScan}); its commit makes them ({@link IndexMaintenance}); an abort
 * drops them with the transaction. One per transaction, used by the transaction's thread only.
 */
final class PendingIndexChanges {
    /** An entry to add to or remove from an index. */
    record IndexChange(Index index, long key, long rid, boolean add) {
    }

    /** Rows this transaction inserted: table -> primary key -> record id. */
    private final Map<Table, SortedLongMap> inserted = new HashMap<>();
    /** Rows this transaction deleted (that existed before it): table -> primary key -> record id. */
    private final Map<Table, SortedLongMap> deleted = new HashMap<>();
    /** Secondary index entries to add or remove at commit, in the order the writes recorded them. */
    private final List<IndexChange> secondaryChanges = new ArrayList<>();

    // ================================================================ recording

    /** An inserted row: its primary key's entry, and its key's in each secondary index the table maintains. */
    void inserted(Table table, long key, long rid, TupleView row) {
        inserted.computeIfAbsent(table, t -> new SortedLongMap()).put(key, rid);
        Index[] secondaries = table.maintainedSecondaries();
        for (int i = 0; i < secondaries.length; i++) {
            secondaryChanges.add(new IndexChange(secondaries[i], secondaries[i].keyOf(row), rid, true));
        }
    }

    /** An update moved row {@code rid} from {@code oldKey} to {@code newKey} in secondary {@code index}. */
    void keyChanged(Index index, long oldKey, long newKey, long rid) {
        secondaryChanges.add(new IndexChange(index, oldKey, rid, false));
        secondaryChanges.add(new IndexChange(index, newKey, rid, true));
    }

    /**
     * A deleted row, {@code oldRow} its last image: one this transaction inserted is forgotten with its
     * secondary entries (the indexes never saw it); any other row's entries are to be removed.
     */
    void deleted(Table table, long key, long rid, TupleView oldRow) {
        SortedLongMap mine = inserted.get(table);
        if (mine != null && mine.remove(key)) {
            secondaryChanges.removeIf(c -> c.rid() == rid);
        } else {
            deleted.computeIfAbsent(table, t -> new SortedLongMap()).put(key, rid);
            Index[] secondaries = table.maintainedSecondaries();
            for (int i = 0; i < secondaries.length; i++) {
                secondaryChanges.add(new IndexChange(secondaries[i], secondaries[i].keyOf(oldRow), rid, false));
            }
        }
    }

    // ================================================================ what the transaction sees

    /** Whether this transaction inserted or deleted any row of {@code table}. */
    boolean changedRowsOf(Table table) {
        return inserted.containsKey(table) || deleted.containsKey(table);
    }

    /** The record id of the row with primary key {@code key} this transaction inserted, or {@link Transaction#NONE}. */
    long insertedRow(Table table, long key) {
        SortedLongMap mine = inserted.get(table);
        return mine != null ? mine.get(key, Transaction.NONE) : Transaction.NONE;
    }

    /** Whether this transaction deleted the row with primary key {@code key} (one that existed before it). */
    boolean deletedRow(Table table, long key) {
        SortedLongMap gone = deleted.get(table);
        return gone != null && gone.containsKey(key);
    }

    /** Rows of {@code table} this transaction inserted (primary key -> record id), or null. */
    SortedLongMap insertedRows(Table table) {
        return inserted.get(table);
    }

    /** Rows of {@code table} this transaction deleted (primary key -> record id), or null. */
    SortedLongMap deletedRows(Table table) {
        return deleted.get(table);
    }

    /** The secondary index changes in the order recorded; the caller only reads them. */
    List<IndexChange> secondaryChanges() {
        return secondaryChanges;
    }

    /** Whether this transaction inserted or deleted rows of {@code index}'s table that {@code index} covers. */
    boolean changesEntriesOf(Index index) {
        if (index.isPrimary()) {
            SortedLongMap gone = deleted.get(index.table());
            SortedLongMap mine = inserted.get(index.table());
            return (gone != null && !gone.isEmpty()) || (mine != null && !mine.isEmpty());
        }
        for (IndexChange change : secondaryChanges) {
            if (change.index() == index) {
                return true;
            }
        }
        return false;
    }

    /**
     * Per row, what this transaction did to its entry under {@code key} in secondary {@code index}: the
     * additions less the removals (positive: it filed the row there, negative: it removed the entry);
     * null when it changed no entry under the key.
     */
    Map<Long, Integer> netEntries(Index index, long key) {
        Map<Long, Integer> net = null;
        for (int i = 0; i < secondaryChanges.size(); i++) {
            IndexChange c = secondaryChanges.get(i);
            if (c.index() == index && c.key() == key) {
                if (net == null) {
                    net = new HashMap<>();
                }
                net.merge(c.rid(), c.add() ? 1 : -1, Integer::sum);
            }
        }
        return net;
    }

    // ================================================================ commit

    /**
     * Every index change the commit makes, in no particular order: the secondary changes with those that
     * cancel out removed ({@link #net}), then the primary-index entries of the deleted rows to remove and
     * of the inserted rows to add.
     */
    List<IndexChange> toApply() {
        int total = secondaryChanges.size();
        for (SortedLongMap rows : deleted.values()) {
            total += rows.size();
        }
        for (SortedLongMap rows : inserted.values()) {
            total += rows.size();
        }
        List<IndexChange> changes = new ArrayList<>(total);
        changes.addAll(secondaryChanges.size() > 1 ? net(secondaryChanges) : secondaryChanges);
        for (Map.Entry<Table, SortedLongMap> byTable : deleted.entrySet()) {
            Index primary = byTable.getKey().primaryIndex();
            SortedLongMap rows = byTable.getValue();
            for (int i = 0; i < rows.size(); i++) {
                changes.add(new IndexChange(primary, rows.keyAt(i), rows.valueAt(i), false));
            }
        }
        for (Map.Entry<Table, SortedLongMap> byTable : inserted.entrySet()) {
            Index primary = byTable.getKey().primaryIndex();
            SortedLongMap rows = byTable.getValue();
            for (int i = 0; i < rows.size(); i++) {
                changes.add(new IndexChange(primary, rows.keyAt(i), rows.valueAt(i), true));
            }
        }
        return changes;
    }

    /**
     * The secondary index changes with those that cancel out removed: a row whose key a transaction
     * changed more than once (or inserted and then changed) records an addition and a later removal of
     * the same entry, which applied in index order would remove an entry not yet there.
     */
    private static List<IndexChange> net(List<IndexChange> recorded) {
        Map<IndexChange, Integer> count = new LinkedHashMap<>();
        for (IndexChange change : recorded) {
            count.merge(new IndexChange(change.index(), change.key(), change.rid(), true), change.add() ? 1 : -1,
                Integer::sum);
        }
        List<IndexChange> net = new ArrayList<>(count.size());
        for (Map.Entry<IndexChange, Integer> e : count.entrySet()) {
            IndexChange entry = e.getKey();
            if (e.getValue() > 0) {
                net.add(entry);
            } else if (e.getValue() < 0) {
                net.add(new IndexChange(entry.index(), entry.key(), entry.rid(), false));
            }
        }
        return net;
    }
}
