package io.selcc.engine;

import io.selcc.engine.index.BLinkTree;
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

    long keyOf(TupleView row) {
        return definition.key().key(row);
    }

    @Override
    public String toString() {
        return "Index[" + name() + "]";
    }
}
