package io.selcc.cli.tpcc;

import io.selcc.cli.CliRun;
import io.selcc.cli.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recovery's heap does not grow with the log: a run killed (SIGKILL) once its log holds more bytes
 * than the recovering JVM's whole heap is recovered by {@code tpcc check} in a child JVM with a
 * 256 MiB heap, and all twelve conditions hold. (With {@code --wal async} a SIGKILL loses nothing
 * appended: the page cache keeps it; what is acknowledged durably is {@code CrashRecoveryTest}'s.)
 *
 * <p>Shown to fail on a planted bug: with recovery holding every log record before replaying
 * (as it did before the merge of the node logs), the check died of OutOfMemoryError.
 */
class LargeLogRecoveryTest {
    /** A progress line of the run: "run  N s  T txn/s  NewOrder X/s ...". */
    private static final Pattern PROGRESS = Pattern.compile("^run\\s+[0-9.]+ s");
    /** More log than the recovering JVM's heap. */
    private static final long LOG_BYTES = 400L << 20;
    /**
     * The recovering JVM's heap. Well under the log: the log's files (400 MiB) hold fewer record bytes than
     * their size (each cycle file preallocates), and a slow run rolls more files; CI once read only 204 MB
     * of records out of 470 MB of files, under a heap of 256 MiB.
     */
    private static final String HEAP = "-Xmx128m";
    private static final long HEAP_BYTES = 128L << 20;

    @Test
    @Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLogLargerThanTheHeapIsRecovered(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("db");
        CliRun load = CliRun.of("tpcc", "load", "--warehouses", "1", "--data-dir", data.toString());
        assertEquals(0, load.exitCode(), load.toString());

        Process run = new ProcessBuilder(ChildJvm.command(List.of(), List.of("tpcc", "run", "--data-dir", data.toString(),
            "--wal", "async", "--mix", "50,50,0,0,0", "--duration", "120s", "--warmup", "0s")))
            .redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        CountDownLatch bigEnough = new CountDownLatch(1);
        Path logs = io.selcc.wal.Recovery.logDirectory(data);
        Thread reader = Thread.ofPlatform().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    output.append(line).append('\n');
                    if (PROGRESS.matcher(line).find() && bytesUnder(logs) >= LOG_BYTES) { // once a second
                        bigEnough.countDown();
                    }
                }
            } catch (java.io.IOException e) {
                // the kill closed the pipe
            }
        });
        boolean reached = bigEnough.await(200, TimeUnit.SECONDS);
        run.destroyForcibly();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the run did not die");
        reader.join(TimeUnit.SECONDS.toMillis(60));
        assertTrue(reached, "the log never reached " + LOG_BYTES + " bytes:\n" + output);
        long logBytes = bytesUnder(logs);
        System.out.println("LargeLogRecoveryTest: log " + logBytes + " bytes");

        Path json = dir.resolve("check.json");
        Process check = new ProcessBuilder(ChildJvm.command(List.of(HEAP), List.of("tpcc", "check", "--data-dir",
            data.toString(), "--json", json.toString()))).redirectErrorStream(true).start();
        String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(240, TimeUnit.SECONDS), "check did not end");
        assertEquals(0, check.exitValue(), "check with " + HEAP + " after a log of " + logBytes + " bytes:\n" + checked);
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> report = (java.util.Map<String, Object>) MiniJson.parse(Files.readString(json));
        assertEquals(Boolean.TRUE, report.get("passed"), checked);
        long since = ((Number) report.get("ordersSinceLoad")).longValue();
        assertTrue(since > 0, "the run's New-Orders were replayed: ordersSinceLoad " + since);
        Matcher replayed = Pattern.compile("([0-9,]+) log records read \\(([0-9,]+) bytes\\)").matcher(checked);
        assertTrue(replayed.find(), checked);
        long readBytes = Long.parseLong(replayed.group(2).replace(",", ""));
        assertTrue(readBytes > HEAP_BYTES, "more log read than the heap holds: " + readBytes);
    }

    private static long bytesUnder(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (java.io.IOException e) {
                    return 0; // removed meanwhile
                }
            }).sum();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0;
        }
    }
}
