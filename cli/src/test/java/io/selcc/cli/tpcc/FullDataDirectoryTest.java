package io.selcc.cli.tpcc;

import io.selcc.cli.CliRun;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A data directory that cannot take what {@code tpcc run --data-dir} writes, in a child JVM: the run
 * stops with one line on stderr naming the cause, exit code 1, no stack trace; afterwards
 * {@code tpcc check} recovers the directory (with room again) and finds at least the New-Orders the run
 * acknowledged ({@code durable=}), every condition passing.
 *
 * <p>Two faults: a file size limit ({@code ulimit -f}: HotSpot ignores SIGXFSZ, so a write past it
 * fails with EFBIG, "File too large", when Chronicle grows a log file or the checkpoint is written),
 * with Chronicle's block size at 2 MiB so a log file grows in small steps while commits are
 * acknowledged; and a file system that is really full (a small tmpfs mounted in a private mount
 * namespace, {@code unshare -m}, where the machine allows it): Chronicle's log files are sparse and
 * mapped, so the write that needs a block the file system lacks faults (SIGBUS), which HotSpot turns
 * into an {@link InternalError} in the appending thread. The two paths differ; both are tested.
 */
class FullDataDirectoryTest {
    /** A run long enough that only the fault ends it (the child is waited for much less). */
    private static final String DURATION = "300s";
    private static final long CHILD_SECONDS = 150;

    /** One load, copied for each test. */
    private static Path loaded;

    @BeforeAll
    static void load(@TempDir Path dir) {
        loaded = dir.resolve("db");
        CliRun load = CliRun.of("tpcc", "load", "--warehouses", "1", "--data-dir", loaded.toString());
        assertEquals(0, load.exitCode(), load.toString());
    }

    /**
     * Files limited to 6,000 KiB: the log file, growing by 2 MiB blocks, fails when it would pass
     * 6.5 MiB, after some thousand commits were acknowledged. One compute node: no other log goes on
     * appending numbers past the lost one, whose waiters would stop the run (a {@code NotDurableException});
     * here the run stops because the log refused a commit: "the commit log failed, the run stopped:
     * ... File too large".
     *
     * <p>Shown to fail: with the log's failure logged with its stack trace (as before), stderr held
     * "at net.openhft..." lines; with the driver not stopping at a commit the log refused, the run went
     * on (every writer failing) and the child outlived the test's wait.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aLogFileOverTheSizeLimitStopsTheRunInOneLine(@TempDir Path dir) throws Exception {
        Path db = copyOfLoad(dir);
        Child run = runLimited(dir, 6_000, List.of("-DSingleChronicleQueueBuilder.blocksize=2m"),
            List.of("tpcc", "run", "--data-dir", db.toString(), "--compute-nodes", "1", "--mix", "50,50,0,0,0",
                "--duration", DURATION));
        run.assertOneLineFailure("selcc tpcc run: failed: the commit log failed, the run stopped: ", "File too large");
        assertTrue(run.lastDurable > 0, "the log failed before any New-Order was acknowledged:\n" + run);
        assertRecovers(dir, db, run);
    }

    /**
     * Files limited to 40,000 KiB, checkpoints every second: the logs fit (a checkpoint removes what
     * it covers), but no checkpoint does (about 88 MB for one warehouse). The run stops at the first
     * failed checkpoint: "a checkpoint during the run failed, the run stopped: ... (File too large)".
     *
     * <p>Shown to fail: with the checkpointer not stopping the run, the run went on for 30 s, until a
     * log file reached the limit, and ended with the log's error instead.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCheckpointOverTheSizeLimitStopsTheRunInOneLine(@TempDir Path dir) throws Exception {
        Path db = copyOfLoad(dir);
        Child run = runLimited(dir, 40_000, List.of("-DSingleChronicleQueueBuilder.blocksize=2m"),
            List.of("tpcc", "run", "--data-dir", db.toString(), "--mix", "50,50,0,0,0", "--duration", DURATION,
                "--checkpoint-every", "1s"));
        run.assertOneLineFailure("selcc tpcc run: failed: a checkpoint during the run failed, the run stopped: ",
            "File too large");
        assertRecovers(dir, db, run);
    }

    /**
     * The data directory on a tmpfs with 16 MiB free after the load's checkpoint: the logs fill it and
     * a write to a mapped log page faults. The run stops with "the commit log failed, the run stopped:
     * ... InternalError: a fault occurred in an unsafe memory access operation (a write to the mapped
     * log file failed: is the file system full?)". Recovery, in a copy of the directory with room
     * again, finds what the run acknowledged (the full directory itself cannot take recovery's
     * checkpoint: check there fails in one line, "No space left on device"). Skipped where a private
     * mount namespace cannot be made (not root, no unshare).
     *
     * <p>Shown to fail: with the log rethrowing the InternalError (as before), the terminal died with
     * it and the run ended with a stack trace.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFullFileSystemStopsTheRunInOneLine(@TempDir Path dir) throws Exception {
        Path mount = Files.createDirectories(dir.resolve("mnt"));
        Assumptions.assumeTrue(canMountTmpfs(mount), "no private mount namespace with a tmpfs here (needs root and unshare)");
        long checkpointBytes;
        try (Stream<Path> files = Files.list(loaded)) {
            checkpointBytes = files.filter(f -> f.toString().endsWith(".ckpt")).mapToLong(FullDataDirectoryTest::size).sum();
        }
        long tmpfsBytes = checkpointBytes + (16L << 20);
        Path db = mount.resolve("db");
        Path after = dir.resolve("after");
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Path checkErr = dir.resolve("check-err.txt");
        Files.write(dir.resolve("run.args"), ChildJvm.command(List.of(),
            List.of("tpcc", "run", "--data-dir", db.toString(), "--mix", "50,50,0,0,0", "--duration", DURATION)));
        Files.write(dir.resolve("check.args"), ChildJvm.command(List.of(), List.of("tpcc", "check", "--data-dir", db.toString())));
        // The mount lives as long as the namespace: the directory is copied out before it goes.
        Path script = Files.writeString(dir.resolve("full.sh"), String.join("\n",
            "set -e",
            "mount -t tmpfs -o size=" + tmpfsBytes + " tmpfs '" + mount + "'",
            "cp -r '" + loaded + "' '" + db + "'",
            "set +e",
            "mapfile -t run < '" + dir.resolve("run.args") + "'",
            "\"${run[@]}\" > '" + out + "' 2> '" + err + "'",
            "code=$?",
            "mapfile -t check < '" + dir.resolve("check.args") + "'",
            "\"${check[@]}\" > /dev/null 2> '" + checkErr + "'",
            "cp -r '" + db + "' '" + after + "'",
            "exit $code", ""));
        Process process = new ProcessBuilder("unshare", "-m", "--propagation", "private", "bash", script.toString())
            .redirectErrorStream(true).redirectOutput(dir.resolve("script.txt").toFile()).start();
        Child run = Child.await(process, out, err);
        run.assertOneLineFailure("selcc tpcc run: failed: the commit log failed, the run stopped: ",
            "fault occurred in an unsafe memory access");
        assertTrue(run.lastDurable > 0, "the file system filled before any New-Order was acknowledged:\n" + run);
        String checkOnFull = Files.readString(checkErr).strip();
        assertTrue(checkOnFull.startsWith("selcc tpcc check: failed: cannot recover from ")
            && checkOnFull.contains("No space left on device") && checkOnFull.lines().count() == 1, checkOnFull);
        assertRecovers(dir, after, run);
    }

    // ------------------------------------------------------------------ helpers

    /** What a child run printed, and the last {@code durable=} of its progress lines. */
    private record Child(int exitCode, String out, String err, long lastDurable) {
        static Child await(Process process, Path out, Path err) throws Exception {
            boolean ended = process.waitFor(CHILD_SECONDS, TimeUnit.SECONDS);
            if (!ended) {
                process.destroyForcibly();
                process.waitFor(60, TimeUnit.SECONDS);
            }
            String stdout = Files.exists(out) ? Files.readString(out) : "";
            String stderr = Files.exists(err) ? Files.readString(err) : "";
            assertTrue(ended, "the run did not stop within " + CHILD_SECONDS + " s:\n" + stdout + "\n" + stderr);
            return new Child(process.exitValue(), stdout, stderr, KeptDatabaseCheck.lastDurable(stdout));
        }

        /**
         * Exit code 1; stderr's last line starts with {@code start} and names {@code cause}; no other
         * line of the command's own ("selcc ..."), and no stack trace anywhere.
         */
        void assertOneLineFailure(String start, String cause) {
            assertEquals(1, exitCode, toString());
            List<String> lines = err.strip().lines().toList();
            String last = lines.isEmpty() ? "" : lines.getLast();
            assertTrue(last.startsWith(start) && last.contains(cause), "last line: " + last + "\n" + this);
            assertEquals(1, lines.stream().filter(l -> l.startsWith("selcc ")).count(), toString());
            for (String line : (out + "\n" + err).lines().toList()) {
                assertFalse(line.startsWith("\tat ") || line.startsWith("Caused by: ") || line.contains("Exception in thread"),
                    "a stack trace: " + line + "\n" + this);
            }
        }

        @Override
        public String toString() {
            return "exit=" + exitCode + " lastDurable=" + lastDurable + "\n--- out:\n" + out + "--- err:\n" + err;
        }
    }

    /** {@code bash -c 'ulimit -f <kib>; exec java ...'}: the child's files cannot grow past {@code kib} KiB. */
    private static Child runLimited(Path dir, long kib, List<String> jvmOptions, List<String> args) throws Exception {
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -f \"$0\" && exec \"$@\"", Long.toString(kib)));
        command.addAll(ChildJvm.command(jvmOptions, args));
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return Child.await(process, out, err);
    }

    /**
     * {@code tpcc check} of {@code db} in this JVM (no size limit): every condition passes and the
     * orders since the load are at least the New-Orders the run acknowledged.
     */
    private static void assertRecovers(Path dir, Path db, Child run) throws IOException {
        long since = KeptDatabaseCheck.assertCheckFinds(dir, db, run.lastDurable, "the run:\n" + run);
        System.out.println("FullDataDirectoryTest: last durable=" + run.lastDurable + ", ordersSinceLoad=" + since
            + ", the run's error: " + run.err.strip().lines().reduce((a, b) -> b).orElse(""));
    }

    private static Path copyOfLoad(Path dir) throws IOException {
        Path copy = dir.resolve("db");
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(loaded)) {
            for (Path f : files.sorted(Comparator.naturalOrder()).toList()) {
                if (!f.getFileName().toString().equals("lock")) {
                    Files.copy(f, copy.resolve(f.getFileName()));
                }
            }
        }
        return copy;
    }

    /** Whether this machine lets a private mount namespace mount a tmpfs (root, unshare present). */
    private static boolean canMountTmpfs(Path mount) {
        try {
            Process probe = new ProcessBuilder("unshare", "-m", "--propagation", "private", "mount", "-t", "tmpfs",
                "-o", "size=1m", "tmpfs", mount.toString()).redirectErrorStream(true).start();
            probe.getInputStream().readAllBytes();
            return probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (IOException e) {
            return false; // no unshare
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
