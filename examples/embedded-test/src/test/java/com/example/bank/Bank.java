package com.example.bank;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.junit5.DatabaseSchema;
import io.selcc.storage.Schema;

/** The code under test: a bank whose accounts live in the engine. */
public final class Bank implements DatabaseSchema {
    static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").build();

    @Override
    public void define(Database.Builder builder) {
        builder.table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0)));
    }

    static void open(DatabaseNode node, long id, long cents) {
        Table accounts = node.table("account");
        node.run(tx -> tx.insert(accounts, row -> {
            row.setLong(0, id);
            row.setMoney(1, cents);
        }));
    }

    /** Moves {@code cents} between two accounts in one transaction; false if {@code from} has too little. */
    static boolean transfer(DatabaseNode node, long from, long to, long cents) {
        Table accounts = node.table("account");
        return node.run(tx -> {
            if (tx.get(accounts, from).getMoney(1) < cents) {
                return false;
            }
            tx.update(accounts, from, row -> row.setMoney(1, row.getMoney(1) - cents));
            tx.update(accounts, to, row -> row.setMoney(1, row.getMoney(1) + cents));
            return true;
        }).value();
    }

    static long balance(DatabaseNode node, long id) {
        return node.run(tx -> tx.get(node.table("account"), id).getMoney(1)).value();
    }
}
