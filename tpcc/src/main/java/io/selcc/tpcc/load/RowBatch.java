package io.selcc.tpcc.load;

import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Rows inserted in one transaction. The writers capture values drawn before the transaction starts,
 * so a retried transaction inserts the same rows and the random streams do not depend on retries.
 */
final class RowBatch {
    record Row(int table, Consumer<TupleView> writer) {
    }

    private final String description;
    private final List<Row> rows = new ArrayList<>();
    private final long[] rowsPerTable = new long[LoadTables.COUNT];

    RowBatch(String description) {
        this.description = description;
    }

    void add(int table, Consumer<TupleView> writer) {
        rows.add(new Row(table, writer));
        rowsPerTable[table]++;
    }

    List<Row> rows() {
        return rows;
    }

    long rows(int table) {
        return rowsPerTable[table];
    }

    int size() {
        return rows.size();
    }

    String description() {
        return description;
    }

    @Override
    public String toString() {
        return description;
    }
}
