package io.selcc.junit5;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The annotation's settings, the parameters it gives, and the exact counters. */
@SelccDatabase(computeNodes = 2, cc = "occ", schema = Accounts.class)
class SelccDatabaseExtensionTest {
    /** Every database a method of this class got: all distinct, all closed once the class is done. */
    private static final java.util.Set<Database> SEEN = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @org.junit.jupiter.api.AfterAll
    static void everyMethodHadAFreshDatabaseClosedAfterIt() {
        assertEquals(4, SEEN.size(), "one database per method");
        for (Database db : SEEN) {
            assertTrue(db.isClosed(), "closed when its method ended");
        }
    }

    @Test
    void everyParameterComesFromOneDatabaseBuiltAsTheAnnotationSays(Database db, DatabaseNode first,
                                                                    @Node(1) DatabaseNode second) {
        SEEN.add(db);
        assertEquals(2, db.computeNodeCount());
        assertEquals("occ", db.concurrencyControl());
        assertSame(db.node(0), first, "a DatabaseNode without @Node is compute node 0");
        assertSame(db.node(1), second);
        Table accounts = first.table("account");
        assertTrue(first.run(tx -> tx.insert(accounts, row -> {
            row.setLong(0, 7);
            row.setMoney(1, 100_00);
        })).committed());
        assertEquals(100_00, second.run(tx -> tx.get(second.table("account"), 7).getMoney(1)).value(),
            "node 1 sees node 0's commit: one database");
    }

    @Test
    @SelccDatabase(computeNodes = 3, cc = "to", cacheFrames = 256, schema = Accounts.class)
    void aMethodsAnnotationReplacesTheClasss(Database db) {
        SEEN.add(db);
        assertEquals(3, db.computeNodeCount());
        assertEquals("to", db.concurrencyControl());
    }

    @Test
    void aFreshDatabaseIsOpenAndEmpty(Database db, DatabaseNode node) {
        SEEN.add(db);
        assertFalse(db.isClosed());
        assertEquals(0, node.run(tx -> {
            return tx.scan(node.table("account").primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE,
                row -> true);
        }).value(), "a fresh database is empty");
    }

    @Test
    void countersCountThisTestsTransactionsExactly(Database db, DatabaseNode node, DatabaseCounters counters) {
        SEEN.add(db);
        Table accounts = node.table("account");
        counters.reset(); // opening the node read the catalog
        for (long id = 1; id <= 3; id++) {
            long key = id;
            node.run(tx -> tx.insert(accounts, row -> {
                row.setLong(0, key);
                row.setMoney(1, 1);
            }));
        }
        try (Transaction tx = node.begin()) {
            tx.abort();
        }
        assertEquals(3, counters.committed());
        assertEquals(1, counters.aborted(AbortReason.USER_ABORT));
        assertEquals(1, counters.aborted());
        assertTrue(counters.roundTrips() > 0, "inserts into fresh pages went to the memory node");
        assertEquals(0, counters.invalidations(), "one node alone invalidates nobody");
        long roundTrips = counters.roundTrips();
        node.run(tx -> tx.get(accounts, 1).getMoney(1)); // a cached row under OCC: validated against memory
        assertEquals(4, counters.committed());
        assertTrue(counters.roundTrips() >= roundTrips, "counts only grow");
    }
}
