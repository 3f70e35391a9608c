package io.selcc.tpcc.load;

import io.selcc.engine.DatabaseNode;
import io.selcc.tpcc.LastNames;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.Item;
import io.selcc.tpcc.TpccSchema.Order;
import io.selcc.tpcc.TpccSchema.Stock;
import io.selcc.tpcc.check.CheckReport;
import io.selcc.tpcc.check.ConsistencyChecker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One warehouse loaded once with 2PL on two nodes (2 threads each); the occ test loads a second copy.
 * Loads run several threads, so a hang fails the class by timeout.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TpccLoaderTest {
    private static LoadedDatabase loaded;

    @BeforeAll
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    static void load() {
        loaded = LoadedDatabase.load("2pl", 1, 2);
    }

    @AfterAll
    static void close() {
        if (loaded != null) {
            loaded.close();
        }
    }

    @Test
    void exactRowCounts() {
        assertRowCounts(loaded.report, loaded.node(1));
    }

    static void assertRowCounts(LoadReport report, DatabaseNode node) {
        Map<String, Long> scanned = LoadedDatabase.scannedRowCounts(node);
        assertEquals(report.rowsPerTable(), scanned, "reported and scanned row counts");
        assertEquals(100_000L, scanned.get("item"));
        assertEquals(1L, scanned.get("warehouse"));
        assertEquals(100_000L, scanned.get("stock"));
        assertEquals(10L, scanned.get("district"));
        assertEquals(30_000L, scanned.get("customer"));
        assertEquals(30_000L, scanned.get("history"));
        assertEquals(30_000L, scanned.get("oorder"));
        assertEquals(9_000L, scanned.get("new_order"));
        long lines = scanned.get("order_line");
        assertTrue(lines >= 5 * 30_000 && lines <= 15 * 30_000, "order_line=" + lines);
        long[] olCntSum = new long[1];
        node.table(Order.TABLE).heap().scan((rid, r) -> olCntSum[0] += r.getInt(Order.O_OL_CNT));
        assertEquals(olCntSum[0], lines, "order_line rows vs sum(O_OL_CNT)");
        assertEquals(1, report.warehouses());
        assertTrue(report.memoryBytesUsed() > 0, "memory=" + report.memoryBytesUsed());
        assertTrue(report.indexBytes() > 0, "the indexes take shared memory too: " + report);
    }

    @Test
    void allTwelveConditionsHoldAfterLoad() {
        CheckReport report = new ConsistencyChecker(loaded.node(0), 1).check();
        assertEquals(13, report.conditions().size(), "twelve conditions and the index check");
        assertTrue(report.passed(), report::toString);
    }

    @Test
    void tenPercentBadCreditAndOriginal() {
        DatabaseNode node = loaded.node(0);
        long[] bc = new long[1];
        node.table(Customer.TABLE).heap().scan((rid, r) -> bc[0] += "BC".equals(r.getString(Customer.C_CREDIT)) ? 1 : 0);
        assertTenPercent("C_CREDIT=BC", bc[0], 30_000);
        long[] original = new long[2];
        node.table(Item.TABLE).heap().scan((rid, r) -> original[0] += r.getString(Item.I_DATA).contains("ORIGINAL") ? 1 : 0);
        node.table(Stock.TABLE).heap().scan((rid, r) -> original[1] += r.getString(Stock.S_DATA).contains("ORIGINAL") ? 1 : 0);
        assertTenPercent("I_DATA with ORIGINAL", original[0], 100_000);
        assertTenPercent("S_DATA with ORIGINAL", original[1], 100_000);
    }

    /** [SPEC] 4.3.3.1 allows 5% variation on the 10% targets; this asserts the stricter 9.5%..10.5%. */
    private static void assertTenPercent(String what, long count, long rows) {
        double share = (double) count / rows;
        assertTrue(share >= 0.095 && share <= 0.105, what + ": " + count + " of " + rows + " rows");
    }

    @Test
    void lastNamesOfTheFirstThousandCustomersAreInOrderAndTheRestSkewed() {
        int[] byNumber = new int[1000];
        long[] checked = new long[1];
        loaded.node(0).table(Customer.TABLE).heap().scan((rid, r) -> {
            int c = r.getInt(Customer.C_ID);
            int number = LastNames.number(r.getString(Customer.C_LAST));
            if (c <= 1000) {
                if (number == c - 1) {
                    checked[0]++;
                }
            } else {
                byNumber[number]++;
            }
            assertEquals("OE", r.getString(Customer.C_MIDDLE));
            assertEquals(-10_00, r.getMoney(Customer.C_BALANCE));
        });
        assertEquals(10_000, checked[0], "customers 1..1000 of each district named name(c - 1)");
        int max = 0;
        for (int n : byNumber) {
            max = Math.max(max, n);
        }
        // 20,000 NURand draws over 1000 names: uniform would give about 20 each.
        assertTrue(max > 60, "C_LAST of customers 1001..3000 looks uniform: max=" + max);
    }

    @Test
    void occLoadWithOtherThreadCountIsIdenticalAndConsistent() {
        Map<String, Long> expected = LoadedDatabase.checksums(loaded.node(0));
        try (LoadedDatabase other = LoadedDatabase.load("occ", 1, 3)) {
            assertRowCounts(other.report, other.node(0));
            CheckReport report = new ConsistencyChecker(other.node(1), 1).check();
            assertTrue(report.passed(), report::toString);
            assertEquals(expected, LoadedDatabase.checksums(other.node(1)),
                "same seed, different cc and threadsPerNode: contents differ");
        }
    }
}
