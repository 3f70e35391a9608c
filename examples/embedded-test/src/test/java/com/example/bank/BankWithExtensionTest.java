package com.example.bank;

import io.selcc.engine.DatabaseNode;
import io.selcc.junit5.DatabaseCounters;
import io.selcc.junit5.Node;
import io.selcc.junit5.SelccDatabase;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The extension's way: a fresh two-node database per test, given as parameters, closed after it. */
@SelccDatabase(computeNodes = 2, cc = "occ", schema = Bank.class)
class BankWithExtensionTest {
    @Test
    void aTransferOnOneNodeIsSeenOnTheOther(@Node(0) DatabaseNode n0, @Node(1) DatabaseNode n1, DatabaseCounters counters) {
        Bank.open(n0, 1, 100_00);
        Bank.open(n0, 2, 0);
        counters.reset();
        assertTrue(Bank.transfer(n1, 1, 2, 30_00));
        assertEquals(70_00, Bank.balance(n0, 1));
        assertEquals(30_00, Bank.balance(n0, 2));
        assertEquals(3, counters.committed(), "the transfer and two reads");
        assertTrue(counters.invalidations() > 0, "node 1 took the lines node 0 held, and node 0 took them back");
    }

    @Test
    void anOverdraftIsRefused(DatabaseNode node) {
        Bank.open(node, 1, 10_00);
        Bank.open(node, 2, 0);
        assertFalse(Bank.transfer(node, 1, 2, 20_00));
        assertEquals(10_00, Bank.balance(node, 1));
    }
}
