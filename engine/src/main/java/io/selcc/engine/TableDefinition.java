package io.selcc.engine;

import io.selcc.storage.Schema;

import java.util.Objects;

/**
 * A table as the application defines it: name, schema, primary key, and whether each row gets a GCL
 * of its own (hot rows, so page latches do not serialize unrelated rows).
 */
public record TableDefinition(String name, Schema schema, KeyFunction primaryKey, boolean onePerPage) {
    public TableDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(primaryKey, "primaryKey");
    }

    public static TableDefinition of(String name, Schema schema, KeyFunction primaryKey) {
        return new TableDefinition(name, schema, primaryKey, false);
    }

    public TableDefinition withOnePerPage() {
        return new TableDefinition(name, schema, primaryKey, true);
    }

    /** Catalog name of the table's primary index. */
    String primaryIndexName() {
        return name + ".pk";
    }
}
