package io.selcc.junit5;

import io.selcc.engine.Database;

/** Defines the tables and indexes of a test's database ({@link SelccDatabase#schema()}). */
@FunctionalInterface
public interface DatabaseSchema {
    void define(Database.Builder builder);
}
