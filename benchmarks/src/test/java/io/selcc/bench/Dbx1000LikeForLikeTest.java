package io.selcc.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The like-for-like run works as a call: bad flags are refused by name, and two short runs in one JVM
 * each commit both transaction types (its phase is per run: with the phase flags static, as first
 * written, the second run's terminals stopped at once and it counted no commit, which fails here).
 */
class Dbx1000LikeForLikeTest {
    @Test
    void badFlagsAreRefusedByName() {
        assertRefused("--bogus", "unknown flag --bogus", "--bogus", "1");
        assertRefused("needs a value", "flag --seconds needs a value", "--seconds");
        assertRefused("needs a number", "--warmup needs a number: x", "--warmup", "x");
        assertRefused("--cc", "--cc must be 2pl, occ or to: mvcc", "--cc", "mvcc");
        assertRefused("--warehouses", "--warehouses must be 1..", "--warehouses", "0");
        assertRefused("--compute-nodes", "--compute-nodes must be 1..", "--compute-nodes", "1000");
    }

    private static void assertRefused(String what, String expected, String... args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Dbx1000LikeForLike.Options.parse(args), what);
        assertTrue(e.getMessage().startsWith(expected), () -> what + ": " + e.getMessage());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void twoRunsInOneJvmEachCommitBothTypes() throws Exception {
        Dbx1000LikeForLike.Options options = Dbx1000LikeForLike.Options.parse(new String[] {
            "--compute-nodes", "2", "--terminals", "1", "--warehouses", "1", "--seconds", "1", "--warmup", "1",
            "--seed", "7"});
        for (int run = 1; run <= 2; run++) {
            StringWriter text = new StringWriter();
            Dbx1000LikeForLike.Counts counts = Dbx1000LikeForLike.run(options, new PrintWriter(text, true));
            String report = text.toString();
            assertTrue(counts.commits()[0] > 0, "run " + run + ": New-Orders committed\n" + report);
            assertTrue(counts.commits()[1] > 0, "run " + run + ": Payments committed\n" + report);
            assertEquals(0, counts.gaveUp()[0] + counts.gaveUp()[1], "run " + run + ": no transaction given up");
            assertTrue(report.contains("like-for-like cc=2pl 2 x 1 W=1: txn/s="), report);
        }
    }
}
