package io.selcc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --csv}: a header, one row per run and type, rows of later runs appended under the same header. */
class CsvOutputTest {
    @TempDir
    Path dir;

    @Test
    void microRowsAccumulateUnderOneHeader() throws IOException {
        Path csv = dir.resolve("micro.csv");
        for (int run = 0; run < 2; run++) {
            CliRun r = CliRun.of("micro", "--duration", "300ms", "--gcls", "2000", "--seed", String.valueOf(run),
                "--csv", csv.toString());
            assertEquals(0, r.exitCode(), r.toString());
        }
        List<String> lines = Files.readAllLines(csv);
        assertEquals(1 + 2 * 3, lines.size(), "a header, then read, write and all for each of two runs: " + lines);
        assertTrue(lines.get(0).startsWith("benchmark,access,fabric"), lines.get(0));
        int columns = lines.get(0).split(",", -1).length;
        for (String line : lines) {
            assertEquals(columns, line.split(",", -1).length, "every row has the header's columns: " + line);
        }
        assertTrue(lines.get(3).startsWith("micro,") && lines.get(3).contains(",all,"), lines.get(3));
        int seed = List.of(lines.get(0).split(",")).indexOf("seed");
        for (int row = 1; row < lines.size(); row++) {
            assertEquals(row <= 3 ? "0" : "1", lines.get(row).split(",", -1)[seed], "each run's rows carry its seed: " + lines);
        }
    }

    @Test
    void tpccWritesARowPerTransactionTypeAndAnAllRow() throws IOException {
        Path csv = dir.resolve("tpcc.csv");
        CliRun r = CliRun.of("tpcc", "run", "--duration", "1s", "--csv", csv.toString());
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(1 + 6, lines.size(), "a header, five types and all: " + lines);
        List<String> header = List.of(lines.get(0).split(","));
        int type = header.indexOf("type");
        int committed = header.indexOf("committed");
        long sum = 0;
        for (String line : lines.subList(1, 6)) {
            String[] fields = line.split(",", -1);
            assertEquals(header.size(), fields.length, line);
            sum += Long.parseLong(fields[committed]);
        }
        String[] all = lines.get(6).split(",", -1);
        assertEquals("all", all[type]);
        // The default run (two nodes in this JVM, no log) takes one turn per node where the carriers are no
        // more than the nodes, else every terminal runs.
        boolean turns = Integer.parseInt(all[header.indexOf("carriers")]) <= 2;
        assertEquals(turns ? "1" : "unlimited", all[header.indexOf("activePerNode")], lines.get(6));
        assertEquals(sum, Long.parseLong(all[committed]), "the all row sums the types");
        assertTrue(sum > 0, "the run committed transactions");
    }

    @Test
    void aFileOfAnotherBenchmarkIsRefusedBeforeTheRun() throws IOException {
        Path csv = dir.resolve("mixed.csv");
        Files.writeString(csv, "benchmark,something,else\nx,y,z\n");
        CliRun r = CliRun.of("micro", "--duration", "300ms", "--csv", csv.toString());
        assertEquals(2, r.exitCode(), r.toString());
        assertTrue(r.err().contains("--csv") && r.err().contains("another header"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
        assertEquals(2, Files.readAllLines(csv).size(), "the file is left as it was");
    }
}
