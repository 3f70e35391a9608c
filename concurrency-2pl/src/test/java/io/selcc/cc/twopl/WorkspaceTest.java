package io.selcc.cc.twopl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

/**
 * Transactions of one thread reuse one workspace of collections; a transaction begun while another
 * is active on the same thread must get its own. Planted bug caught: sharing the active workspace
 * (the inner commit cleared the outer's before-images, so the outer rollback left its change in).
 * One row per page: the two transactions must not meet on a page latch.
 */
class WorkspaceTest {
    private static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").build();

    @Test
    void nestedTransactionsOnOneThreadKeepTheirOwnUndo() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1)
            .table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0)).withOnePerPage()).build()) {
            DatabaseNode node = db.node(0);
            Table table = node.table("account");
            node.run(tx -> {
                for (long id = 1; id <= 2; id++) {
                    long key = id;
                    tx.insert(table, row -> {
                        row.setLong(0, key);
                        row.setMoney(1, 100);
                    });
                }
                return null;
            });
            for (int round = 0; round < 3; round++) { // later rounds run on reused workspaces
                Transaction outer = node.begin();
                assertTrue(outer.update(table, 1, row -> row.setMoney(1, 0)));
                Transaction inner = node.begin();
                assertTrue(inner.update(table, 2, row -> row.setMoney(1, row.getMoney(1) + 1)));
                assertTrue(inner.commit().committed());
                outer.abort();
                long expectedSecond = 101 + round;
                assertEquals(100, node.run(tx -> tx.get(table, 1).getMoney(1)).value(), "outer rolled back");
                assertEquals(expectedSecond, node.run(tx -> tx.get(table, 2).getMoney(1)).value(), "inner kept");
            }
        }
    }
}
