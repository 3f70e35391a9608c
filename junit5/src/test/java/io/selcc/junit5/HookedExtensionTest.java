package io.selcc.junit5;

import io.selcc.engine.Database;
import io.selcc.engine.TableDefinition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The builder hook, registered in code, for a database the annotation could not describe. */
class HookedExtensionTest {
    @RegisterExtension
    static final SelccDatabaseExtension EXTENSION = new SelccDatabaseExtension(b -> b.computeNodes(1).cc("2pl")
        .table(TableDefinition.of("item", Accounts.ACCOUNT, row -> row.getLong(0)).withInsertOnly()));

    @Test
    void theHookBuildsTheDatabase(Database db) {
        assertEquals(1, db.computeNodeCount());
        assertEquals("2pl", db.concurrencyControl());
        assertTrue(db.node(0).table("item").heap().insertOnly());
    }
}
