package io.selcc.wal;

import io.selcc.engine.Redo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TwoPhaseLog}: a log whose write or force failed takes no more records (found in review: it went
 * on, so a participant could vote yes on a prepare record written after a damaged one, which a recovery
 * never reads), and what it holds reads back in order.
 *
 * <p>Planted bugs these caught: without the failed state the second prepare was forced and acknowledged
 * (the test's {@code assertThrows} failed); {@code removeAll} taking every subdirectory removed the commit
 * log's too.
 */
class TwoPhaseLogTest {
    @Test
    void aFailedForceStopsTheLog(@TempDir Path dir) {
        AtomicInteger dataForces = new AtomicInteger();
        FileForcing failsSecond = new FileForcing() {
            @Override
            public void forceData(FileChannel channel, Path file) throws IOException {
                if (dataForces.incrementAndGet() == 2) {
                    throw new IOException("planted: fdatasync failed");
                }
                channel.force(false);
            }

            @Override
            public void force(Path path, boolean metadata) throws IOException {
                FileForcing.DISK.force(path, metadata);
            }
        };
        Path log = TwoPhaseLog.directory(dir, 1);
        try (TwoPhaseLog twoPc = TwoPhaseLog.open(log, 1, true, failsSecond)) {
            twoPc.forcePrepare(11, new Redo());
            assertThrows(java.io.UncheckedIOException.class, () -> twoPc.forcePrepare(12, new Redo()), "the planted force");
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> twoPc.forcePrepare(13, new Redo()));
            assertTrue(refused.getMessage().contains("failed earlier"), refused.getMessage());
            assertThrows(IllegalStateException.class, () -> twoPc.forceCommit(14, null), "a decision is refused too");
            assertFalse(twoPc.hasCommit(14));
            assertThrows(IllegalStateException.class, twoPc::rereadDecisions, "a failed log is not reread as a recovered one");
            assertEquals(2, dataForces.get(), "nothing was forced after the failure");
        }
        List<Long> read = new ArrayList<>();
        assertEquals(null, TwoPhaseLog.forEachRecord(log, (kind, record) -> read.add(record.sequence())));
        assertEquals(List.of(11L, 12L), read, "the record whose force failed may be there; nothing after it");
    }

    @Test
    void removeAllDeletesEveryTwoPhaseCommitLogAndNothingElse(@TempDir Path dir) throws IOException {
        for (int node = 0; node < 2; node++) {
            try (TwoPhaseLog twoPc = TwoPhaseLog.open(TwoPhaseLog.directory(dir, node), node)) {
                twoPc.forceCommit(100 + node, null);
            }
        }
        java.nio.file.Files.createDirectories(Wal.nodeDirectory(dir, 0));
        TwoPhaseLog.removeAll(dir);
        try (java.util.stream.Stream<Path> left = java.nio.file.Files.list(dir)) {
            assertEquals(List.of(Wal.nodeDirectory(dir, 0)), left.toList(), "the commit log's directory stays");
        }
    }
}
