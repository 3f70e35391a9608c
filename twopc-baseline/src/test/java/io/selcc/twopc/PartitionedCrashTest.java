package io.selcc.twopc;

import io.selcc.engine.Database;
import io.selcc.wal.Checkpoint;
import io.selcc.wal.Recovery;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Partitioned mode survives {@code kill -9} in the middle of two-phase commit: a child JVM
 * ({@link PartitionedCrashChild}) runs transfers between three partitions with a data directory, stops
 * one marked transfer at a point of the protocol and is killed there (SIGKILL, {@link Process#destroyForcibly});
 * a recovery from the directory must then find the bank's total intact and the marked transfer
 * resolved as the protocol says: rolled back when a participant had only prepared (no decision),
 * committed when the coordinator had forced its decision, although neither branch wrote its commit
 * record.
 *
 * <p>Planted bugs this caught: a recovery that ignores the two-phase-commit logs lost the decided
 * marker (node 1's marker account 1 cent short); one that applies every prepare record, decided or not,
 * committed the undecided marker's participant branch alone (total 1 cent too high).
 */
class PartitionedCrashTest {
    static final int NODES = 3;
    static final int ACCOUNTS = 4;
    /** Each node's marker account, beside the accounts the transfers use. */
    static final long MARKER = ACCOUNTS;

    @ParameterizedTest
    @ValueSource(strings = {"prepare", "decision"})
    @Timeout(value = 180, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aKillInTwoPhaseCommitLosesNothingDecidedAndKeepsNothingUndecided(String point, @TempDir Path dir) throws Exception {
        long seed = System.nanoTime();
        System.out.println("PartitionedCrashTest point=" + point + " seed=" + seed);
        Path data = java.nio.file.Files.createDirectories(dir.resolve("bank"));
        try (Database db = Bank.database(NODES)) {
            Bank.open(db, ACCOUNTS + 1);
            Checkpoint.write(db, data, null, Map.of());
        }
        List<String> output = killedAt(data, point, seed);

        try (Database db = Bank.database(NODES)) {
            Recovery.Summary summary = Recovery.recover(db, data);
            System.out.println("PartitionedCrashTest " + summary.describe());
            String context = "seed " + seed + ", " + summary.describe() + ", child output: " + output;
            assertTrue(summary.replayed() >= PartitionedCrashChild.WARM_TRANSFERS, "the transfers were replayed: " + context);
            long moved = "decision".equals(point) ? 1 : 0;
            assertEquals(Bank.START - moved, Bank.balance(db, 0, MARKER), "node 0's marker: " + context);
            assertEquals(Bank.START + moved, Bank.balance(db, 1, MARKER), "node 1's marker: " + context);
            assertEquals(NODES * (ACCOUNTS + 1) * Bank.START, Bank.total(db, ACCOUNTS + 1), "money created or lost: " + context);
            if ("decision".equals(point)) {
                assertTrue(summary.decided() >= 1 && summary.branchesApplied() >= 2,
                    "the marker's two branches came from its decision and prepare records: " + context);
            } else {
                assertTrue(summary.branchesDiscarded() >= 1, "the marker's prepared branch was rolled back: " + context);
            }
        }
    }

    /** Runs the child until it says FROZEN, kills it with SIGKILL and returns what it printed. */
    private static List<String> killedAt(Path data, String point, long seed) throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
            "-Xmx512m", "--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow", "-Dchronicle.analytics.disable=true",
            "-Dchronicle.disk.monitor.disable=true", "-cp", System.getProperty("java.class.path"),
            PartitionedCrashChild.class.getName(), data.toString(), point, Long.toString(seed)));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = java.util.Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<String> frozen = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    output.add(line);
                    if (line.startsWith("FROZEN")) {
                        frozen.complete(line);
                    }
                }
                frozen.completeExceptionally(new AssertionError("the child ended without stopping at " + point + ": " + output));
            } catch (java.io.IOException e) {
                frozen.completeExceptionally(e);
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
        try {
            frozen.get(150, TimeUnit.SECONDS);
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the killed child ended");
        }
        return List.copyOf(output);
    }
}
