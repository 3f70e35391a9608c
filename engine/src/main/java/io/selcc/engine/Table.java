package io.selcc.engine;

import io.selcc.engine.index.BLinkTree;
import io.selcc.storage.HeapTable;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
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
    /** Per-thread row buffers for one statement at a time (see {@link #scratch()}). */
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(() -> new Scratch(heap().schema()));

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

    /**
     * Two row buffers with views for the calling thread's current statement (an update's before and
     * after images, an insert's image), returned with {@link Scratch#release()}: a statement's images
     * never outlive it (algorithms copy what they keep), so reusing them spares two row allocations
     * per statement. A statement nested in another's callback gets fresh ones.
     */
    Scratch scratch() {
        Scratch s = scratch.get();
        if (s.inUse) {
            s = new Scratch(heap.schema());
        }
        s.inUse = true;
        return s;
    }

    static final class Scratch {
        final TupleBuffer first;
        final TupleBuffer second;
        final TupleView firstView;
        final TupleView secondView;
        private boolean inUse;

        Scratch(Schema schema) {
            first = new TupleBuffer(schema);
            second = new TupleBuffer(schema);
            firstView = new TupleView(schema).wrap(first);
            secondView = new TupleView(schema).wrap(second);
        }

        void release() {
            inUse = false;
        }
    }

    long primaryKey(TupleView row) {
        return definition.primaryKey().key(row);
    }

    @Override
    public String toString() {
        return "Table[" + name() + "]";
    }
}
