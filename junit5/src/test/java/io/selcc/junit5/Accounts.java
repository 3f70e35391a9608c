package io.selcc.junit5;

import io.selcc.engine.Database;
import io.selcc.engine.TableDefinition;
import io.selcc.storage.Schema;

/** A table of accounts (id, balance), for the extension's tests. */
final class Accounts implements DatabaseSchema {
    static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").build();

    @Override
    public void define(Database.Builder builder) {
        builder.table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0)));
    }
}
