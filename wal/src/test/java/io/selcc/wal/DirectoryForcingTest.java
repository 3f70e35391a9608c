package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Before a SYNC commit is acknowledged, every directory entry from the data directory down to the
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
}
