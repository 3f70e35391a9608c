package io.selcc.cc.twopl;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under 2PL an updater writes its row in its page, which the transaction holds X-latched until it ends
 * and whose image is in the undo log, instead of a copy that is then copied back (two whole-row copies
 * fewer per update); a rollback restores the row from the undo image. (The contract tests check what every
 * algorithm must do: a throwing updater aborts, the CC header is refused to an updater, the commit log
 * replays to the table.) Fails with 2PL's update left to the copying default ({@code CcTransaction.updateView}).
 */
class UpdateInPlaceTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("value").build();
    private static final TableDefinition ACCOUNTS = TableDefinition.of("accounts", ROW, r -> r.getLong(0));

    @Test
    void anUpdaterWritesTheRowInItsPageAndARollbackRestoresIt() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).table(ACCOUNTS).build()) {
            DatabaseNode node = db.node(0);
            Table accounts = node.table("accounts");
            assertTrue(node.run(tx -> tx.insert(accounts, r -> {
                r.setLong(0, 1);
                r.setLong(1, 10);
            })).committed());
            List<Boolean> onPage = new ArrayList<>();

            Transaction rolledBack = node.begin();
            assertTrue(rolledBack.update(accounts, 1, row -> {
                onPage.add(row.onPage());
                row.setLong(1, row.getLong(1) + 1);
            }));
            assertTrue(rolledBack.update(accounts, 1, row -> row.setLong(1, row.getLong(1) * 100)));
            assertTrue(rolledBack.read(accounts, 1, row -> assertEquals(1_100, row.getLong(1), "its own writes")));
            rolledBack.abort();
            assertEquals(10, value(node, accounts), "restored from the undo image");

            assertTrue(node.run(tx -> tx.update(accounts, 1, row -> {
                onPage.add(row.onPage());
                row.setLong(1, 12);
            })).committed());
            assertEquals(12, value(node, accounts));
            assertEquals(List.of(true, true), onPage, "each updater was handed the row in its page");
        }
    }

    private static long value(DatabaseNode node, Table accounts) {
        return node.run(tx -> tx.get(accounts, 1).getLong(1)).value();
    }
}
