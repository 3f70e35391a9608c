package com.example.bank;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Transaction;
import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The plain builder: the test opens and closes the database itself. */
class BankWithBuilderTest {
    /**
     * Round trips and messages of one read of account 1 on {@code node} when no node caches anything:
     * exact counts of the transaction's own work, the same on every run whatever the machine's speed.
     */
    private static long readCost(Database db, DatabaseNode node) {
        db.writeBackCaches(); // every node lets go of every line
        try (Transaction tx = node.begin()) {
            assertEquals(5_00, tx.get(node.table("account"), 1).getMoney(1));
            assertTrue(tx.commit().committed());
            assertEquals(0, tx.counters().get(Counter.MESSAGES_SENT), "nobody held the lines: no invalidation");
            return tx.counters().get(Counter.ROUND_TRIPS);
        }
    }

    @Test
    void aReadOfAnUncachedRowCostsTheSameRoundTripsEveryTime() {
        Database.Builder builder = Database.builder().computeNodes(2).cc("2pl").cacheFrames(256);
        new Bank().define(builder);
        try (Database db = builder.build()) {
            DatabaseNode n0 = db.node(0);
            DatabaseNode n1 = db.node(1);
            Bank.open(n0, 1, 5_00);
            readCost(db, n1); // the first read also leaves the thread a hint of the index leaf that holds the key
            long uncached = readCost(db, n1);
            assertEquals(uncached, readCost(db, n1), "the same read from the same state costs the same, every run");
            try (Transaction tx = n1.begin()) { // the lines are now cached on node 1
                tx.get(n1.table("account"), 1);
                assertTrue(tx.commit().committed());
                assertTrue(tx.counters().get(Counter.ROUND_TRIPS) < uncached, "a cached read costs fewer round trips");
            }
        }
    }
}
