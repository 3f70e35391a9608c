package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.engine.RedoFixture;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the crash repair reads: every node's log back, each in its order, with each change's record id,
 * only this run's records, and a sealed log that takes nothing more. Seen failing: with readBack's
 * skip of earlier runs' records removed (now in the repair source), the second run read the first run's records too.
 */
class ReadBackTest {
    private record Seen(long sequence, byte kind, long key, long recordId) {
    }

    @Test
    @Timeout(60)
    void changesComeBackInCommitOrderAndASealedLogTakesNothingMore(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        List<Long> appended = new ArrayList<>();
        try (Wal wal = Wal.open(dir, Mode.ASYNC)) {
            CommitLog[] logs = {wal.open(0, sequences::incrementAndGet), wal.open(1, sequences::incrementAndGet)};
            Redo redo = new Redo();
            for (int n = 1; n <= 20; n++) {
                long s = logs[n % 2].append(Redos.numbered(redo, n));
                assertTrue(s > 0);
                appended.add(s);
            }
            assertTrue(wal.canReadBack());
            wal.seal(1);
            assertEquals(CommitLog.FAILED, logs[1].append(Redos.numbered(redo, 21)), "a sealed log takes nothing");
            long s = logs[0].append(Redos.numbered(redo, 22));
            assertTrue(s > 0, "the other log goes on");
            appended.add(s);

            List<Seen> seen = new ArrayList<>();
            try (CommitLog.RepairSource source = wal.openRepair()) {
                assertFalse(source.baseIsCheckpoint(), "no checkpoint: the base is memory when logging started");
                source.forEachChange((sequence, kind, tableId, key, recordId, image) ->
                    seen.add(new Seen(sequence, kind, key, recordId)));
            }
            List<Long> sequencesSeen = seen.stream().map(Seen::sequence).distinct().sorted().toList();
            assertEquals(appended, sequencesSeen, "every record (node by node, each in its order)");
            for (Seen change : seen) {
                assertEquals(RedoFixture.recordIdOf(change.key()), change.recordId(), "record id of " + change);
            }
            // Transactions 1-20 and 22 (21 was refused): one update each, and an insert for 3, 6, ... 18.
            assertEquals(21 + 6, seen.size(), "every change of every record");
        }
    }

    @Test
    @Timeout(60)
    void anEarlierRunsRecordsAreNotHandedOver(@TempDir Path dir) {
        AtomicLong sequences = new AtomicLong();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, Mode.ASYNC)) {
            CommitLog log = wal.open(0, sequences::incrementAndGet);
            for (int n = 1; n <= 5; n++) {
                log.append(Redos.numbered(redo, n));
            }
        }
        try (Wal wal = Wal.open(dir, Mode.ASYNC)) {
            CommitLog log = wal.open(0, 5, sequences::incrementAndGet); // this run's logging starts after 5
            for (int n = 6; n <= 8; n++) {
                log.append(Redos.numbered(redo, n));
            }
            List<Long> seen = new ArrayList<>();
            try (CommitLog.RepairSource source = wal.openRepair()) {
                source.forEachChange((sequence, kind, tableId, key, recordId, image) -> seen.add(sequence));
            }
            assertEquals(List.of(6L, 6L, 7L, 8L), seen, "only this run's records (6 has two changes)");
        }
    }
}
