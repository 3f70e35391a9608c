package io.selcc.engine;

import io.selcc.engine.index.BLinkTree;
import io.selcc.storage.HeapTable;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A table opened on one compute node: its heap, primary index and secondary indexes. */
public final class Table {
    private final TableDefinition definition;
    private final HeapTable heap;
    private final Index primary;
    private final List<Index> secondaries = new ArrayList<>();

    Table(TableDefinition definition, HeapTable heap, BLinkTree primaryTree) {
        this.definition = definition;
        this.heap = heap;
        this.primary = new Index(new IndexDefinition(definition.primaryIndexName(), definition.name(), true,
            definition.primaryKey()), this, primaryTree, true);
    }

    void addSecondary(Index index) {
        secondaries.add(index);
    }

    public String name() {
        return definition.name();
    }

    public Schema schema() {
        return heap.schema();
    }

    public HeapTable heap() {
        return heap;
    }

    public Index primaryIndex() {
        return primary;
    }

    public List<Index> secondaryIndexes() {
        return Collections.unmodifiableList(secondaries);
    }

    long primaryKey(TupleView row) {
        return definition.primaryKey().key(row);
    }

    @Override
    public String toString() {
        return "Table[" + name() + "]";
    }
}
