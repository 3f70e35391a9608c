package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two log groups over one directory drawing commit numbers from one counter, as compute nodes in two
 * processes do ({@link Wal#othersDrawNumbers}): each group's watermark passes the numbers the other
 * drew, so a sync commit is acknowledged once its own record is forced.
 *
 * <p>Shown to fail: without {@code othersDrawNumbers} the first group's watermark stops below the
 * second's first number and {@code awaitDurable} never returns (the test's timeout fails it).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedNumberingTest {
    @TempDir
    Path dir;

    @Test
    void eachGroupAcknowledgesItsOwnCommitsPastTheOthersNumbers() {
        AtomicLong counter = new AtomicLong();
        Redo redo = new Redo();
        try (Wal first = Wal.open(dir, Wal.Mode.SYNC).othersDrawNumbers();
             Wal second = Wal.open(dir, Wal.Mode.SYNC).othersDrawNumbers()) {
            CommitLog a = first.open(0, counter::incrementAndGet);
            CommitLog b = second.open(1, counter::incrementAndGet);
            assertEquals(1, a.append(Redos.numbered(redo, 1)));
            assertEquals(2, b.append(Redos.numbered(redo, 2)));
            assertEquals(3, b.append(Redos.numbered(redo, 3)));
            assertEquals(4, a.append(Redos.numbered(redo, 4)));
            a.awaitDurable(4); // returns once 1 and 4 are forced: 2 and 3 are the other group's
            assertEquals(4, first.durable(), "the first group's watermark passed the other's numbers");
            b.awaitDurable(3);
            assertTrue(second.durable() >= 3, "the second group's watermark: " + second.durable());
            assertEquals(2, first.counters().appends(), "each group logged its own records only");
            assertEquals(2, second.counters().appends());
        }
        try (Wal reader = Wal.open(dir, Wal.Mode.ASYNC)) {
            long[] changes = {0};
            reader.open(0, () -> 100).close();
            try (CommitLog.RepairSource source = reader.openRepair()) {
                source.forEachChange((sequence, kind, tableId, key, recordId, image) -> changes[0]++);
            }
            assertTrue(changes[0] >= 4, "a repair reads every process's log in the directory: " + changes[0]);
        }
    }

    @Test
    void aGroupWhoseNumbersOthersDrawHoldsOneLog() {
        AtomicLong counter = new AtomicLong();
        try (Wal wal = Wal.open(dir, Wal.Mode.ASYNC).othersDrawNumbers()) {
            wal.open(0, counter::incrementAndGet);
            assertThrows(IllegalStateException.class, () -> wal.open(1, counter::incrementAndGet));
            assertThrows(IllegalStateException.class, wal::othersDrawNumbers);
        }
    }
}
