package io.selcc.cc.twopl;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.cache.AccessMode;
import io.selcc.storage.ColumnType;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Under 2PL an updater writes its row in its page, which the transaction holds X-latched until it ends
 * and whose image is in the undo log, instead of a copy that is then copied back (two whole-row copies
 * fewer per update); a rollback restores the row from the undo image. (The contract tests check what every
 * algorithm must do: a throwing updater aborts, the CC header is refused to an updater, the commit log
 * replays to the table.) The first test fails with the updater handed a copy that is then copied back (the
 * former path); the second with a setter's dirty range left out.
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

    /**
     * What an updater writes in place reaches the other compute node: each setter extends the page's dirty
     * range by what it wrote (a long, a VARCHAR's length and bytes, a null bit), which is all the node
     * writes back. In both access modes, over three updates (the first sets the columns, the second sets the
     * nullable one NULL, the third shortens the string). Fails with setString's or setNull's dirty range left out.
     */
    @ParameterizedTest
    @EnumSource(AccessMode.class)
    void whatAnUpdaterWritesInPlaceReachesTheOtherNode(AccessMode mode) {
        Schema schema = Schema.builder().addLong("id").addLong("value").addVarchar("name", 40)
            .add("note", ColumnType.LONG, 0, true).build();
        TableDefinition rows = TableDefinition.of("rows", schema, r -> r.getLong(0));
        try (Database db = Database.builder().cc("2pl").computeNodes(2).accessMode(mode).table(rows).build()) {
            DatabaseNode writer = db.node(0);
            DatabaseNode reader = db.node(1);
            Table onWriter = writer.table("rows");
            Table onReader = reader.table("rows");
            assertTrue(writer.run(tx -> tx.insert(onWriter, r -> {
                r.setLong(0, 1);
                r.setLong(1, 10);
                r.setString(2, "a");
                r.setNull(3);
            })).committed());
            assertEquals("1 10 a null", seen(reader, onReader), "the insert, read on the other node");

            assertTrue(writer.run(tx -> tx.update(onWriter, 1, r -> {
                r.setLong(1, 11);
                r.setString(2, "a longer name than before");
                r.setLong(3, 7);
            })).committed());
            assertEquals("1 11 a longer name than before 7", seen(reader, onReader));
            assertTrue(writer.run(tx -> tx.update(onWriter, 1, r -> r.setNull(3))).committed());
            assertEquals("1 11 a longer name than before null", seen(reader, onReader));
            assertTrue(writer.run(tx -> tx.update(onWriter, 1, r -> r.setString(2, "b"))).committed());
            assertEquals("1 11 b null", seen(reader, onReader));
        }
    }

    private static String seen(DatabaseNode node, Table table) {
        return node.run(tx -> {
            TupleView r = tx.get(table, 1);
            String note = r.isNull(3) ? "null" : String.valueOf(r.getLong(3));
            return r.getLong(0) + " " + r.getLong(1) + " " + r.getString(2) + " " + note;
        }).value();
    }

    private static long value(DatabaseNode node, Table accounts) {
        return node.run(tx -> tx.get(accounts, 1).getLong(1)).value();
    }
}
