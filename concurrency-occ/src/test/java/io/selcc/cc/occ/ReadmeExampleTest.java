package io.selcc.cc.occ;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engine example of the README, verbatim apart from the assertions. */
class ReadmeExampleTest {
    @Test
    void readmeEngineExampleWorks() {
        Schema account = Schema.builder().addLong("id").addMoney("balance").build();
        try (Database db = Database.builder().computeNodes(2).cc("occ")
            .table(TableDefinition.of("account", account, row -> row.getLong(0))).build()) {
            DatabaseNode n0 = db.node(0), n1 = db.node(1);
            Table t0 = n0.table("account");
            n0.run(tx -> tx.insert(t0, row -> { row.setLong(0, 1); row.setMoney(1, 100_00); }));
            TxnResult<Long> r = n1.run(tx -> tx.get(n1.table("account"), 1).getMoney(1));
            assertTrue(r.committed());
            assertEquals(100_00L, r.value());
        }
    }
}
