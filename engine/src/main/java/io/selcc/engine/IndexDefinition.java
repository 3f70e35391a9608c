package io.selcc.engine;

import java.util.Objects;

/** A secondary index on a table: unique or not, over a key computed from the row. */
public record IndexDefinition(String name, String table, boolean unique, KeyFunction key) {
    public IndexDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(key, "key");
    }
}
