package io.selcc.engine.cc.kit;

import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleView;
import io.selcc.threads.PerThread;

import java.util.Map;
import java.util.WeakHashMap;

/**
 * One reusable row view per table for the calling thread: for an algorithm's look at a latched row
 * between its latch and unlatch, never across a callback that may read the same table. A view is
 * re-wrapped on every use, so nothing is read through a stale one. A view per row read was a third
 * of a cached read's allocation (issue 8). Weak keys: a closed database's tables do not stay alive
 * in a long-lived thread's map.
 */
public final class RowViews {
    private static final PerThread<Map<HeapTable, TupleView>> VIEWS = PerThread.withInitial(WeakHashMap::new);

    private RowViews() {
    }

    public static TupleView of(HeapTable table) {
        Map<HeapTable, TupleView> views = VIEWS.get();
        TupleView view = views.get(table);
        if (view == null) {
            view = new TupleView(table.schema());
            views.put(table, view);
        }
        return view;
    }
}
