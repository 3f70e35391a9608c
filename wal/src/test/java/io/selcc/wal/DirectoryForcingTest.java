package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Before a SYNC commit is acknowledged, and before a checkpoint over either mode's logs returns, every
 * directory entry from the data directory down to the
 * commit's cycle file is forced: the cycle file's data, Chronicle's metadata file, the node's log
 * directory (naming the file), the log directory (naming {@code node-N}) and the data directory (naming
 * {@code wal}). A power failure could otherwise lose a directory created for the log, and with it every
 * acknowledged commit, while recovery finds nothing and says nothing. The forces are recorded through
 * {@link FileForcing} as they happen, and checked when the commit's wait returns.
 *
 * <p>Shown to fail with the two directories above a node's log not forced (as before issue 28): the
 * log directory and the data directory were missing from what node 0's first commit waited for.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class DirectoryForcingTest {
    /** Every path forced so far, in order (a file's data as "data:" + path). */
    private final List<String> forced = new ArrayList<>();

    private final FileForcing recording = new FileForcing() {
        @Override
        public void forceData(FileChannel channel, Path file) throws IOException {
            FileForcing.DISK.forceData(channel, file);
            record("data:" + file.toAbsolutePath());
        }

        @Override
        public void force(Path path, boolean metadata) throws IOException {
            FileForcing.DISK.force(path, metadata);
            record(path.toAbsolutePath().toString());
        }
    };

    private synchronized void record(String path) {
        forced.add(path);
    }

    private synchronized List<String> forcedSoFar() {
        return List.copyOf(forced);
    }

    @Test
    void everyEntryFromTheDataDirectoryDownIsForcedBeforeTheFirstAcknowledgement(@TempDir Path dir) {
        Path data = dir.resolve("data");
        Path logs = Recovery.logDirectory(data);
        AtomicLong sequences = new AtomicLong();
        try (Wal wal = Wal.open(logs, Mode.SYNC, UnaryOperator.identity(), recording)) {
            for (int node = 0; node < 2; node++) {
                CommitLog log = wal.open(node, sequences::incrementAndGet);
                long sequence = log.append(Redos.numbered(new Redo(), node + 1));
                log.awaitDurable(sequence);
                List<String> before = forcedSoFar();
                Path nodeDirectory = Wal.nodeDirectory(logs, node).toAbsolutePath();
                assertTrue(before.stream().anyMatch(p -> p.startsWith("data:" + nodeDirectory) && p.endsWith(".cq4")),
                    "node " + node + "'s cycle file: " + before);
                for (Path entry : List.of(nodeDirectory.resolve("metadata.cq4t"), nodeDirectory,
                    logs.toAbsolutePath(), data.toAbsolutePath())) {
                    assertTrue(before.contains(entry.toString()), "node " + node + " acknowledged before " + entry
                        + " was forced: " + before);
                }
            }
        }
    }

    /**
     * Over an ASYNC log (commits force nothing) and a SYNC one, a checkpoint forces, before it returns:
     * each log's cycle file and every entry down to it as a SYNC commit does (the checkpoint's force of
     * an ASYNC log is the first force of its files), the checkpoint file, then the data directory
     * (naming the checkpoint after its rename) and the data directory's parent (naming the data
     * directory, which the checkpoint created).
     *
     * <p>Shown to fail (issue 28, a review): with the data directory's parent not forced (as before),
     * in both modes; with an ASYNC force on request skipping the new file's metadata and directories
     * (the flusher's {@code forceFindable} only for batches no force was requested for), node 0's
     * {@code metadata.cq4t} was missing from what the ASYNC checkpoint forced.
     */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void aCheckpointForcesTheLogsAndEveryEntryDownToItself(Mode mode, @TempDir Path dir) {
        Path data = dir.resolve("data");
        Path logs = Recovery.logDirectory(data);
        Wal wal = Wal.open(logs, mode, UnaryOperator.identity(), recording);
        try (Database db = Database.builder().cc("2pl").computeNodes(2).table(CheckpointFixtures.ITEMS).commitLog(wal)
            .build()) {
            for (int node = 0; node < 2; node++) {
                DatabaseNode n = db.node(node);
                long key = node + 1;
                CheckpointFixtures.commit(n, tx -> assertTrue(tx.insert(n.table("item"), row -> CheckpointFixtures.itemRow(row, key, key))));
            }
            if (mode == Mode.ASYNC) {
                assertEquals(List.of(), forcedSoFar(), "ASYNC commits force nothing");
            }
            Checkpoint.Summary summary = Checkpoint.write(db, data, wal, Map.of());
            List<String> after = forcedSoFar();
            for (int node = 0; node < 2; node++) {
                Path nodeDirectory = Wal.nodeDirectory(logs, node).toAbsolutePath();
                assertTrue(after.stream().anyMatch(p -> p.startsWith("data:" + nodeDirectory) && p.endsWith(".cq4")),
                    mode + ": node " + node + "'s cycle file: " + after);
                for (Path entry : List.of(nodeDirectory.resolve("metadata.cq4t"), nodeDirectory, logs.toAbsolutePath())) {
                    assertTrue(after.contains(entry.toString()), mode + ": " + entry + " not forced: " + after);
                }
            }
            String file = data.resolve(CheckpointLayout.fileName(summary.replayFrom(), CheckpointLayout.PARTIAL))
                .toAbsolutePath().toString();
            int fileForced = after.indexOf(file);
            assertTrue(fileForced >= 0, mode + ": the checkpoint file was not forced: " + after);
            List<String> afterFile = after.subList(fileForced, after.size());
            assertTrue(afterFile.contains(data.toAbsolutePath().toString()),
                mode + ": the data directory was not forced after the checkpoint: " + after);
            assertTrue(afterFile.contains(dir.toAbsolutePath().toString()),
                mode + ": the data directory's parent was not forced: " + after);
        }
    }
}
