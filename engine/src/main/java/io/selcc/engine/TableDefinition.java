package io.selcc.engine;

import io.selcc.storage.Schema;

import java.util.Objects;

/**
 * A table as the application defines it: name, schema, primary key, whether each row gets a GCL
 * of its own (hot rows, so page latches do not serialize unrelated rows), and whether its rows are
 * insert-only (never updated or deleted: {@link Transaction#update} and {@link Transaction#delete}
 * refuse, and TO reads them without raising read timestamps).
 */
public record TableDefinition(String name, Schema schema, KeyFunction primaryKey, boolean onePerPage,
                              boolean insertOnly) {
    public TableDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(primaryKey, "primaryKey");
    }

    public static TableDefinition of(String name, Schema schema, KeyFunction primaryKey) {
        return new TableDefinition(name, schema, primaryKey, false, false);
    }

    public TableDefinition withOnePerPage() {
        return new TableDefinition(name, schema, primaryKey, true, insertOnly);
    }

    /** The same table with rows that are never updated or deleted once inserted. */
    public TableDefinition withInsertOnly() {
        return new TableDefinition(name, schema, primaryKey, onePerPage, true);
    }

    /** Catalog name of the table's primary index. */
    String primaryIndexName() {
        return name + ".pk";
    }
}
