package io.selcc.cli.tpcc;

import io.selcc.cli.CliRun;
import io.selcc.cli.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** tpcc subcommands: bad input exits 2 naming the problem; a short run writes the report. */
class TpccCommandTest {
    private static void assertBadInput(CliRun run, String... parts) {
        assertEquals(2, run.exitCode(), run.toString());
        for (String part : parts) {
            assertTrue(run.err().contains(part), "stderr lacks '" + part + "': " + run);
        }
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
    }

    @Test
    void unknownConcurrencyControl() {
        assertBadInput(CliRun.of("tpcc", "run", "--cc", "mvcc"), "--cc", "mvcc");
    }

    @Test
    void zeroWarehouses() {
        assertBadInput(CliRun.of("tpcc", "load", "--warehouses", "0"), "--warehouses", "0");
    }

    @Test
    void negativeDuration() {
        assertBadInput(CliRun.of("tpcc", "run", "--duration", "-5s"), "--duration");
    }

    @Test
    void unwritableJsonPath(@TempDir Path dir) {
        Path inMissingDir = dir.resolve("missing").resolve("out.json");
        assertBadInput(CliRun.of("tpcc", "run", "--json", inMissingDir.toString()), "--json");
    }

    @Test
    void badMix() {
        assertBadInput(CliRun.of("tpcc", "run", "--mix", "45,43,4"), "--mix");
        assertBadInput(CliRun.of("tpcc", "run", "--mix", "0,0,0,0,0"), "--mix");
    }

    @Test
    void aCacheTooSmallForTheLatchesIsRefused() {
        assertBadInput(CliRun.of("tpcc", "run", "--cache", "64"), "--cache", "1024 frames per terminal");
    }

    @Test
    void everySubcommandHasHelp() {
        for (String sub : List.of("load", "run", "check")) {
            CliRun run = CliRun.of("tpcc", sub, "--help");
            assertEquals(0, run.exitCode(), run.toString());
            assertTrue(run.out().contains("--warehouses"), run.toString());
        }
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // terminals run concurrently
    void shortRunWritesTheReportAndPassesTheChecks(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("tpcc.json");
        CliRun run = CliRun.of("tpcc", "run", "--cc", "occ", "--warehouses", "1", "--compute-nodes", "2",
            "--threads", "1", "--duration", "2s", "--warmup", "1s", "--check", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("tpmC"), run.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
        for (String key : List.of("cc", "access", "warehouses", "committed", "aborted", "txnPerSec", "tpmC",
            "roundTripsPerTxn", "perType", "consistency", "seed", "constants")) {
            assertTrue(report.containsKey(key), "JSON lacks " + key + ": " + report.keySet());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> perType = (Map<String, Object>) report.get("perType");
        for (String type : List.of("NewOrder", "Payment", "OrderStatus", "Delivery", "StockLevel")) {
            @SuppressWarnings("unchecked")
            Map<String, Object> stats = (Map<String, Object>) perType.get(type);
            for (String key : List.of("committed", "aborted", "p50Micros", "p90Micros", "p99Micros", "roundTripsPerTxn")) {
                assertTrue(stats.containsKey(key), type + " lacks " + key);
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> consistency = (Map<String, Object>) report.get("consistency");
        assertEquals(Boolean.TRUE, consistency.get("passed"), run.out());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> conditions = (List<Map<String, Object>>) consistency.get("conditions");
        assertEquals(13, conditions.size(), "twelve conditions and the index check: " + conditions);
        assertEquals("C8", conditions.get(7).get("name"));
        assertEquals(8, ((Number) conditions.get(7).get("number")).intValue());
        assertEquals("indexes", conditions.get(12).get("name"));
        assertEquals(Boolean.TRUE, conditions.get(12).get("passed"));
        assertTrue(run.out().contains("index/heap agreement    : passed"), run.out());
        assertTrue(((Number) report.get("committed")).longValue() > 0, run.out());
    }
}
