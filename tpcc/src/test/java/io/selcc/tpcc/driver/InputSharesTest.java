package io.selcc.tpcc.driver;

import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.txn.InputGenerator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InputSharesTest {
    @Test
    void theGeneratorsInputsAreWithinTheSpecsRanges() {
        long seed = 5;
        InputGenerator inputs = new InputGenerator(new TpccRandom(seed, TpccRandom.Constants.random(seed)), 4);
        InputShares shares = new InputShares();
        for (int i = 0; i < 200_000; i++) {
            shares.newOrder(inputs.newOrder(1 + i % 4, 0));
            shares.payment(inputs.payment(1 + i % 4, 0));
            shares.orderStatus(inputs.orderStatus(1 + i % 4));
        }
        for (InputShares.Check check : shares.checks(4)) {
            assertTrue(check.within(), check + " (seed=" + seed + ")");
        }
    }

    @Test
    void aShareOutsideItsRangeIsReported() {
        InputShares shares = new InputShares();
        for (int i = 0; i < 10; i++) {
            shares.delivery(5); // half of each delivery's districts skipped
        }
        InputShares.Check skipped = shares.checks(1).get(6);
        assertEquals("skipped deliveries %", skipped.name());
        assertEquals(50.0, skipped.value(), 1e-9);
        assertFalse(skipped.within());
        assertTrue(shares.checks(1).get(2).within(), "remote shares do not apply to one warehouse");
    }
}
