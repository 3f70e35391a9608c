package io.selcc.cli.micro;

import io.selcc.cli.CliRun;
import io.selcc.cli.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Short real runs through the command line; they check the report's shape, never throughput. */
class MicroEndToEndTest {
    private static final List<String> PARAMETER_KEYS = List.of("access", "computeNodes", "memoryNodes", "threads",
        "inFlight", "gclSize", "gcls", "cacheFrames", "readRatio", "sharing", "theta", "locality", "rttNanos", "gbps",
        "durationMillis", "seed", "fairness", "writerNodes");
    private static final List<String> RESULT_KEYS = List.of("opsPerSec", "ops", "roundTripsPerOp",
        "invalidationsPerOp", "cacheHitRatio", "p50Micros", "p99Micros", "perNode");
    private static final List<String> NODE_KEYS = List.of("node", "ops", "reads", "writes", "opsPerSec");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"selcc", "sel"})
    void writesACompleteReport(String access) throws IOException {
        Path json = dir.resolve("micro-" + access + ".json");
        CliRun run = CliRun.of("micro", "--access", access, "--duration", "1s", "--gcls", "2000", "--seed", "7",
            "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("summary"), run.toString());

        Map<?, ?> report = (Map<?, ?>) MiniJson.parse(Files.readString(json));
        for (String key : PARAMETER_KEYS) {
            assertTrue(report.containsKey(key), "missing parameter " + key + " in " + report);
        }
        for (String key : RESULT_KEYS) {
            assertTrue(report.containsKey(key), "missing result " + key + " in " + report);
        }
        assertEquals(access, report.get("access"));
        assertEquals(2000.0, report.get("gcls"));
        assertEquals(500.0, report.get("cacheFrames"), "default cache is a quarter of the GCLs");
        double ops = (Double) report.get("ops");
        assertTrue(ops > 0, "ops=" + ops);
        List<?> perNode = (List<?>) report.get("perNode");
        assertEquals(2, perNode.size());
        double sum = 0;
        for (int i = 0; i < perNode.size(); i++) {
            Map<?, ?> node = (Map<?, ?>) perNode.get(i);
            for (String key : NODE_KEYS) {
                assertTrue(node.containsKey(key), "missing perNode key " + key + " in " + node);
            }
            assertEquals((double) i, node.get("node"));
            assertEquals((Double) node.get("ops"), (Double) node.get("reads") + (Double) node.get("writes"));
            sum += (Double) node.get("ops");
        }
        assertEquals(ops, sum);
        double hitRatio = (Double) report.get("cacheHitRatio");
        assertTrue(hitRatio >= 0 && hitRatio <= 1, "cacheHitRatio=" + hitRatio);
        assertFalse(Files.exists(dir.resolve(json.getFileName() + ".tmp")), "temporary file left behind");
    }

    @Test
    void skewLocalityPartitionsWarmupAndWriterNodes() throws IOException {
        Path json = dir.resolve("skew.json");
        CliRun run = CliRun.of("micro", "--duration", "500ms", "--warmup", "500ms", "--gcls", "3001",
            "--compute-nodes", "3", "--memory-nodes", "2", "--threads", "2", "--theta", "0.99", "--locality", "50",
            "--sharing", "40", "--writer-nodes", "1", "--cache", "1MiB", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        Map<?, ?> report = (Map<?, ?>) MiniJson.parse(Files.readString(json));
        assertEquals(512.0, report.get("cacheFrames"), "1 MiB of 2 KiB frames");
        assertEquals(1200.0, report.get("sharedGcls"));
        assertEquals(600.0, report.get("privateGclsPerNode"));
        List<?> perNode = (List<?>) report.get("perNode");
        Map<?, ?> writer = (Map<?, ?>) perNode.get(0);
        assertEquals(0.0, writer.get("reads"), "writer node only writes");
        for (Object o : perNode.subList(1, perNode.size())) {
            assertEquals(0.0, ((Map<?, ?>) o).get("writes"), "reader nodes only read");
        }
        assertTrue((Double) report.get("ops") > 0);
    }

    /**
     * {@code --in-flight K}: each thread becomes K virtual-thread workers, all of which run (every worker of
     * each node completes operations: a worker that never started would leave its node's count at another's
     * share). A count of 0 (workers not started) or workers on one node only fails it.
     */
    @Test
    void operationsInFlightPerThreadAllRun() throws IOException {
        Path json = dir.resolve("in-flight.json");
        CliRun run = CliRun.of("micro", "--duration", "1s", "--gcls", "2000", "--threads", "1", "--in-flight", "8",
            "--read-ratio", "50", "--json", json.toString());
        assertEquals(0, run.exitCode(), run.toString());
        Map<?, ?> report = (Map<?, ?>) MiniJson.parse(Files.readString(json));
        assertEquals(8.0, report.get("inFlight"));
        for (Object o : (List<?>) report.get("perNode")) {
            assertTrue((Double) ((Map<?, ?>) o).get("ops") > 0, "every node's workers ran: " + o);
        }
        CliRun bad = CliRun.of("micro", "--in-flight", "0");
        assertEquals(2, bad.exitCode(), bad.toString());
        assertTrue(bad.err().contains("--in-flight"), bad.toString());
    }
}
