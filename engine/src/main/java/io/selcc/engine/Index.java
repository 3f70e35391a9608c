package io.selcc.engine;

import io.selcc.engine.index.BLinkTree;
import io.selcc.engine.index.EntryVisitor;
import io.selcc.storage.TupleView;

/** An index opened on one compute node: a B-link tree from keys to record ids. */
public final class Index {
    private final IndexDefinition definition;
    private final Table table;
    private final BLinkTree tree;
    private final boolean primary;

    Index(IndexDefinition definition, Table table, BLinkTree tree, boolean primary) {
        this.definition = definition;
        this.table = table;
        this.tree = tree;
        this.primary = primary;
    }

    public String name() {
        return definition.name();
    }

    public Table table() {
        return table;
    }

    public boolean isUnique() {
        return definition.unique();
    }

    public boolean isPrimary() {
        return primary;
    }

    BLinkTree tree() {
        return tree;
    }

    /** The key this index files {@code row} under (its key function applied to the row). */
    public long keyOf(TupleView row) {
        return definition.key().key(row);
    }

    /**
     * Delivers every entry of this index, (key, record id), in ascending order of key then record id
     * ({@link Long#compare} on both), until the visitor returns false; at most {@link Integer#MAX_VALUE}
     * entries. Outside any transaction and not a snapshot (as {@link BLinkTree#scan}): for checks and
     * tools on a quiesced database. The visitor runs with no latch held.
     *
     * @return the number of entries delivered
     */
    public int forEachEntry(EntryVisitor visitor) {
        return tree.scan(Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, visitor);
    }

    @Override
    public String toString() {
        return "Index[" + name() + "]";
    }
}
