package io.selcc.engine;

import io.selcc.engine.index.BLinkTree;
import io.selcc.storage.HeapAppender;
import io.selcc.storage.TupleView;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Loads rows without transactions, for filling a database before its workload starts: rows go
 * straight into fresh heap pages, each filled privately, written to memory a run of pages per round
 * trip ({@link HeapAppender}), and index
 * entries are gathered per index, sorted, and put into the trees a batch at a time
 * ({@link BLinkTree#insertSorted}: one latch per leaf rather than a descent per entry). A transaction
 * per batch of rows, the other way to load, spends most of its time on what a load does not need:
 * per-row latching and lock bookkeeping, a duplicate probe of the primary index, and a tree descent per
 * index entry.
 *
 * <p><b>Contract.</b> No transaction may run on the tables while they load: nothing is locked against
 * one. Rows are committed as written (in their heap once their run of pages is linked or the load
 * closes, the run going to memory in one verb batch; in the indexes once their batch is flushed, by {@link #flush} or
 * {@link #close}). A writer or key function that throws leaves no trace
 * of its row. A key already present fails the flush with
 * {@link IllegalStateException}; rows and entries written before it stay, so a failed load leaves a
 * partial database, as a failed loader transaction would leave the batches before it. Loaders on
 * several threads and compute nodes may fill the same tables at once, each with its own instance.
 *
 * <p>While the node's secondary indexes are deferred ({@link DatabaseNode#deferSecondaryIndexes}) a load
 * files its rows in the primary indexes only.
 *
 * <p>One thread; close it to flush the last entries and link the last pages into their tables.
 */
public final class BulkLoad implements AutoCloseable {
    /** Entries gathered per index before they are sorted and put into its tree. */
    static final int BATCH = 4_096;

    private final Map<Table, TableLoad> tables = new IdentityHashMap<>();
    private TableLoad last;
    private boolean closed;

    /**
     * Told when the load starts and when it closes: its rows are in caches and in no log, and its index
     * splits are not written through ({@link io.selcc.engine.index.BLinkTree#loadSorted}), so no crash
     * repair may run until the caches are written back ({@code Database.writeBackCaches}). Told at the
     * start too, since a repair during the load would read a tree memory does not hold whole.
     */
    private final Runnable onClose;

    BulkLoad(Runnable onClose) {
        this.onClose = onClose;
        onClose.run();
    }

    /**
     * Writes a row built by {@code writer} (which sees a zeroed row, nullable columns NULL) and files it
     * in the table's indexes; returns its record id.
     *
     * @throws io.selcc.cache.SharedMemoryFullException if shared memory has no page left for it
     * @throws IllegalStateException                   if this load is closed, or a flush found a key
     *                                                 already present
     */
    public long insert(Table table, Consumer<TupleView> writer) {
        if (closed) {
            throw new IllegalStateException("bulk load is closed: table=" + table.name());
        }
        TableLoad load = last != null && last.table == table ? last : tables.computeIfAbsent(table, TableLoad::new);
        last = load;
        long rid = load.appender.append(writer);
        TupleView row = load.appender.lastRow();
        long[] keys = load.keys;
        try {
            for (int i = 0; i < load.indexes.length; i++) {
                keys[i] = load.indexes[i].keyOf(row);
            }
        } catch (RuntimeException | Error e) {
            load.appender.discardLast(); // no row in the heap without its index entries
            throw e;
        }
        for (int i = 0; i < load.indexes.length; i++) {
            IndexBatch batch = load.batches[i];
            batch.add(keys[i], rid);
            if (batch.size == BATCH) {
                batch.flush();
            }
        }
        return rid;
    }

    /**
     * Puts every gathered index entry into its tree.
     *
     * @throws IllegalStateException if a key was already present (in the tree or in this load)
     */
    public void flush() {
        for (TableLoad load : tables.values()) {
            for (IndexBatch batch : load.batches) {
                batch.flush();
            }
        }
    }

    /** Flushes, then releases the pages being filled and links them into their tables. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        onClose.run();
        RuntimeException failure = null;
        try {
            flush();
        } catch (RuntimeException e) {
            failure = e;
        }
        for (TableLoad load : tables.values()) { // every appender, even if one fails: none keeps its page latched
            try {
                load.appender.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** One table's appender and the entries gathered for each of its indexes. */
    private static final class TableLoad {
        final Table table;
        final HeapAppender appender;
        final Index[] indexes;
        final IndexBatch[] batches;
        /** The current row's key in each index, computed before any is filed. */
        final long[] keys;

        TableLoad(Table table) {
            this.table = table;
            this.appender = new HeapAppender(table.heap());
            Index[] secondaries = table.maintainedSecondaries(); // none while deferred
            this.indexes = new Index[1 + secondaries.length];
            indexes[0] = table.primaryIndex();
            System.arraycopy(secondaries, 0, indexes, 1, secondaries.length);
            this.batches = new IndexBatch[indexes.length];
            this.keys = new long[indexes.length];
            for (int i = 0; i < indexes.length; i++) {
                batches[i] = new IndexBatch(indexes[i]);
            }
        }
    }

    /** Entries (key, record id) for one index, sorted and inserted when full or flushed. */
    private static final class IndexBatch {
        final Index index;
        final long[] keys = new long[BATCH];
        final long[] rids = new long[BATCH];
        int size;

        IndexBatch(Index index) {
            this.index = index;
        }

        void add(long key, long rid) {
            keys[size] = key;
            rids[size] = rid;
            size++;
        }

        void flush() {
            if (size == 0) {
                return;
            }
            int n = size;
            size = 0;
            PairSort.sort(keys, rids, n);
            int stopped = index.tree().loadSorted(keys, rids, 0, n); // splits not written through: see the constructor
            if (stopped < n) {
                throw new IllegalStateException("bulk load: key already present: index=" + index.name() + " key="
                    + keys[stopped] + " (is the table empty, and is every key loaded once?)");
            }
        }
    }
}
