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

/** {@code tpcc compare}: both modes at each share, the table, the JSON, the CSV and the plot. */
@Timeout(300)
class TpccCompareTest {
    @Test
    void comparesBothModesAtEachShare(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("cmp");
        Path sweep = dir.resolve("sweep.csv");
        CliRun run = CliRun.of("tpcc", "compare", "--distribution", "0,100", "--warehouses", "2", "--compute-nodes", "2",
            "--mix", "100,0,0,0,0", "--duration", "1s", "--warmup", "0s", "--csv", sweep.toString(), "--out", out.toString());
        assertEquals(0, run.exitCode(), run.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(out.resolve("compare.json")));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> runs = (List<Map<String, Object>>) report.get("runs");
        assertEquals(4, runs.size(), report.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> parameters = (Map<String, Object>) report.get("parameters");
        assertEquals(2L, ((Number) parameters.get("warehouses")).longValue(), parameters.toString());
        assertEquals(2L, ((Number) parameters.get("computeNodes")).longValue(), parameters.toString());
        assertEquals("off", parameters.get("wal"));
        assertTrue(Files.exists(out.resolve("runs").resolve("partitioned-100.json")), "each run's own report");
        for (Map<String, Object> r : runs) {
            assertTrue(((Number) r.get("committed")).longValue() > 0, r.toString());
            assertEquals(0.0, ((Number) r.get("forcedWritesPerTxn")).doubleValue(), "--wal off forces nothing: " + r);
            boolean partitioned = "partitioned".equals(r.get("mode"));
            long share = ((Number) r.get("distribution")).longValue();
            long distributed = ((Number) r.get("distributedCommits")).longValue();
            if (partitioned) {
                assertEquals(0L, ((Number) r.get("invalidationsBetweenNodes")).longValue(), r.toString());
                assertTrue(share == 0 ? distributed == 0 : distributed > 0, "cross-partition orders commit by 2PC: " + r);
            }
        }
        // --csv goes to every run as tpcc run's: a header, then six rows per run (five types and all).
        // Seen failing when compare ran the library without the command's outputs (the file was never written).
        assertEquals(1 + 4 * 6, Files.readAllLines(sweep).size(), "rows of every run in " + sweep);
        List<String> csv = Files.readAllLines(out.resolve("compare.csv"));
        assertEquals(5, csv.size(), csv.toString());
        assertTrue(csv.get(0).startsWith("mode,distribution,txnPerSec"), csv.get(0));
        String svg = Files.readString(out.resolve("compare.svg"));
        assertTrue(svg.contains("<svg"), "an SVG document");
        assertTrue(run.out().contains("partitioned") && run.out().contains("dist%"), run.out());
        assertTrue(Files.exists(out.resolve("runs").resolve("partitioned-100.txt")), "each run's output is kept");
    }

    @Test
    void badSharesAndFlagsItSetsItselfAreRefused(@TempDir Path dir) {
        String to = dir.resolve("x").toString();
        CliRun run = CliRun.of("tpcc", "compare", "--distribution", "0,200", "--out", to);
        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.err().contains("--distribution") && run.err().contains("200"), run.toString());
        run = CliRun.of("tpcc", "compare", "--mode", "shared", "--out", to);
        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.err().contains("--mode"), run.toString());
        run = CliRun.of("tpcc", "compare", "--distribution", "10", "--compute-nodes", "3", "--warehouses", "2",
            "--out", to);
        assertEquals(2, run.exitCode(), run.toString());
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
        // Refused before the first run: the shared run at 0% would have worked, the partitioned one not.
        run = CliRun.of("tpcc", "compare", "--distribution", "0", "--warehouses", "2", "--cc", "occ", "--out", to);
        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.err().contains("2pl only"), run.toString());
        assertTrue(!Files.exists(dir.resolve("x").resolve("runs").resolve("shared-0.txt")), "no run started");
    }

    /**
     * {@code --keep-data-dirs}: each run loads into a directory of its own and runs from it, and the kept
     * databases pass {@code tpcc check --data-dir} in their own mode afterwards. (Four loads, runs and
     * recoveries: a stress test.)
     */
    @Test
    @org.junit.jupiter.api.Tag("stress")
    void keepsEachRunsDatabaseWhenAsked(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        CliRun run = CliRun.of("tpcc", "compare", "--keep-data-dirs", "--distribution", "50", "--warehouses", "2",
            "--compute-nodes", "2", "--mix", "50,50,0,0,0", "--duration", "2s", "--warmup", "0s", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.toString());
        for (String mode : List.of("shared", "partitioned")) {
            Path kept = out.resolve("data").resolve(mode + "-50");
            assertTrue(Files.readString(out.resolve("runs").resolve(mode + "-50.txt")).contains("checkpoint "),
                "the run's log holds its load and its final checkpoint");
            Path json = dir.resolve(mode + ".json");
            CliRun check = CliRun.of("tpcc", "check", "--data-dir", kept.toString(), "--json", json.toString());
            assertEquals(0, check.exitCode(), check.toString());
            @SuppressWarnings("unchecked")
            Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(json));
            assertEquals("partitioned".equals(mode) ? 2 : 0, ((Number) report.get("partitions")).intValue(), mode);
            assertTrue(((Number) report.get("ordersSinceLoad")).longValue() > 0, "the run's orders were kept: " + report);
        }
        // A second comparison into the same directory would mix the databases: refused, nothing run.
        CliRun again = CliRun.of("tpcc", "compare", "--keep-data-dirs", "--distribution", "50", "--warehouses", "2",
            "--out", out.toString());
        assertEquals(2, again.exitCode(), again.toString());
        assertTrue(again.err().contains("--keep-data-dirs") && again.err().contains("exists already"), again.toString());
    }

    @Test
    void keepingDataDirectoriesIsForTheModesComparisonOnly(@TempDir Path dir) {
        CliRun run = CliRun.of("tpcc", "compare", "--compare-access", "--keep-data-dirs", "--out", dir.toString());
        assertEquals(2, run.exitCode(), run.toString());
        assertTrue(run.err().contains("--keep-data-dirs") && run.err().contains("--compare-access"), run.toString());
        assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
    }

    @Test
    void comparesSelccWithSelPerAlgorithm(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("access");
        CliRun run = CliRun.of("tpcc", "compare", "--compare-access", "--ccs", "2pl,occ", "--warehouses", "1",
            "--mix", "50,50,0,0,0", "--duration", "1s", "--warmup", "0s", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> report = (Map<String, Object>) MiniJson.parse(Files.readString(out.resolve("compare-access.json")));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> runs = (List<Map<String, Object>>) report.get("runs");
        assertEquals(4, runs.size(), report.toString());
        for (Map<String, Object> r : runs) {
            assertTrue(((Number) r.get("committed")).longValue() > 0, r.toString());
            if ("sel".equals(r.get("access"))) {
                // SEL keeps no cache, so nothing is ever invalidated.
                assertEquals(0L, ((Number) r.get("invalidationsBetweenNodes")).longValue(), r.toString());
            }
        }
        assertEquals(5, Files.readAllLines(out.resolve("compare-access.csv")).size());
        assertTrue(Files.readString(out.resolve("compare-access.svg")).contains("<svg"));
        assertTrue(run.out().contains("ratio"), run.out());

        CliRun bad = CliRun.of("tpcc", "compare", "--compare-access", "--ccs", "2pl,mvcc", "--out", out.toString());
        assertEquals(2, bad.exitCode(), bad.toString());
        assertTrue(bad.err().contains("--ccs"), bad.toString());
        bad = CliRun.of("tpcc", "compare", "--compare-access", "--access", "sel", "--out", out.toString());
        assertEquals(2, bad.exitCode(), bad.toString());
        assertTrue(bad.err().contains("--access"), bad.toString());
    }
}
