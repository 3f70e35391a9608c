package io.selcc.cc.twopl;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under 2PL a reader and a range visitor get the row in its page, which the transaction holds latched to
 * its commit, instead of a copy; a committed row of an insert-only table, read without holding its page,
 * is still copied, and handed read-only as well. (The contract tests check what every algorithm must give a reader: a read-only row,
 * the transaction's own writes, a row a nested read does not move.) Fails with the 2PL read view
 * left to the copying default.
 */
class ReadInPlaceTest {
    private static final Schema ROW = Schema.builder().addLong("id").addLong("value").build();
    private static final TableDefinition ACCOUNTS = TableDefinition.of("accounts", ROW, r -> r.getLong(0));
    /** One row per page: a transaction's first latch (which may wait) can be on another row's page. */
    private static final TableDefinition SPREAD = TableDefinition.of("spread", ROW, r -> r.getLong(0)).withOnePerPage();
    private static final TableDefinition LEDGER = TableDefinition.of("ledger", ROW, r -> r.getLong(0)).withInsertOnly();

    @Test
    void aReaderGetsTheRowInItsPageWhereThePageIsHeldToCommit() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).table(ACCOUNTS).table(LEDGER).build()) {
            DatabaseNode node = db.node(0);
            Table accounts = node.table("accounts");
            Table ledger = node.table("ledger");
            insertRows(node, 3, accounts, ledger);

            Transaction tx = node.begin();
            List<Boolean> onPage = new ArrayList<>();
            long[] value = new long[1];
            assertTrue(tx.read(accounts, 2, row -> {
                onPage.add(row.onPage());
                value[0] = row.getLong(1);
            }));
            tx.readRange(accounts.primaryIndex(), 1, 3, 10, row -> {
                onPage.add(row.onPage());
                return true;
            });
            assertTrue(tx.read(ledger, 2, row -> onPage.add(row.onPage())));
            // The copy of a committed insert-only row is read-only too.
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> tx.read(ledger, 3, row -> row.setLong(1, 0)));
            assertTrue(refused.getMessage().contains("read-only"), refused.getMessage());
            assertTrue(tx.commit().committed());
            assertEquals(20, value[0]);
            assertEquals(List.of(true, true, true, true, false), onPage,
                "the accounts' rows in place (one read, three visited), the ledger's committed row a copy");
        }
    }

    /**
     * The premise of the read in place: the reader's page stays latched until its transaction ends, so a
     * writer of the row is refused (no-wait) until then, and the reader's row cannot change under it.
     * Fails with the page unlatched once the view is made.
     */
    @Test
    void aReadersPageStaysLatchedUntilItsTransactionEnds() {
        try (Database db = Database.builder().cc("2pl").computeNodes(1).table(SPREAD).build()) {
            DatabaseNode node = db.node(0);
            Table spread = node.table("spread");
            insertRows(node, 2, spread);

            Transaction reader = node.begin();
            List<Boolean> onPage = new ArrayList<>();
            assertTrue(reader.read(spread, 1, row -> onPage.add(row.onPage())));
            assertEquals(List.of(true), onPage, "the row was handed in place");

            Transaction writer = node.begin();
            assertTrue(writer.update(spread, 2, r -> r.setLong(1, 0))); // its first latch, on the other page
            AbortException refused = assertThrows(AbortException.class,
                () -> writer.update(spread, 1, r -> r.setLong(1, 0)));
            assertEquals(AbortReason.LOCK_CONFLICT, refused.reason());

            assertTrue(reader.commit().committed());
            assertTrue(node.run(tx -> tx.update(spread, 1, r -> r.setLong(1, 1))).committed(),
                "free once the reader committed");
        }
    }

    /** Rows 1..count, value 10 x id, into each table, committed in one transaction. */
    private static void insertRows(DatabaseNode node, int count, Table... tables) {
        assertTrue(node.run(tx -> {
            for (long id = 1; id <= count; id++) {
                long key = id;
                for (Table table : tables) {
                    tx.insert(table, r -> {
                        r.setLong(0, key);
                        r.setLong(1, 10 * key);
                    });
                }
            }
            return null;
        }).committed());
    }
}
