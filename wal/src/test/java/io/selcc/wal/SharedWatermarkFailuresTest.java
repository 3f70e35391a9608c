package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.DurabilityWord;
import io.selcc.engine.Redo;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The durable watermark shared across processes when a process's log or its words fail (found in review,
 * with these cases as probes): two logs of two "processes" share words held in memory.
 *
 * <p>Planted bugs these caught: without the flusher publishing its loss, node 0's commit above node 1's
 * failed force, and a read-only commit on node 1, waited for ever (the timeout failed the first case);
 * with the broken exchange's stale counter returned, the read-only commit of the second case was
 * acknowledged while node 1's commit below it was not forced.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedWatermarkFailuresTest {
    /** Node 1's force fails: node 0's commit above the lost number is refused, not left waiting; so is a read-only commit on node 1. */
    @Test
    void aFailedForceInAnotherProcessIsRefusedNotWaitedFor(@TempDir Path dir) throws Exception {
        WordsInMemory memory = new WordsInMemory(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Wal zero = Wal.open(dir, Mode.SYNC).shareWatermark(); Wal one = Wal.open(dir, Mode.SYNC).shareWatermark()) {
            CommitLog a = zero.open(0, 0, memory::draw, memory.of(0));
            CommitLog b = one.open(1, 0, memory::draw, memory.of(1));
            Redo redo = new Redo();
            a.awaitDurable(a.append(Redos.numbered(redo, 1)));
            long forcedAtOne = b.append(Redos.numbered(redo, 10));
            b.awaitDurable(forcedAtOne); // node 1's flusher has its channel open now
            one.logForTest(1).breakForcesForTest();
            long lost = b.append(Redos.numbered(redo, 2));
            long above = a.append(Redos.numbered(redo, 3));
            assertTrue(above > lost);
            assertThrows(CommitLog.NotDurableException.class, () -> b.awaitDurable(lost), "node 1's own commit");
            Future<?> zeroWaits = pool.submit(() -> a.awaitDurable(above));
            ExecutionException refused = assertThrows(ExecutionException.class, zeroWaits::get);
            assertInstanceOf(CommitLog.NotDurableException.class, refused.getCause());
            assertTrue(DurabilityWord.lost(memory.words.get(1)), "node 1's word says lost: "
                + DurabilityWord.describe(memory.words.get(1)));
            Future<?> readOnly = pool.submit(b::awaitAppendedDurable);
            ExecutionException readOnlyRefused = assertThrows(ExecutionException.class, readOnly::get);
            assertInstanceOf(CommitLog.NotDurableException.class, readOnlyRefused.getCause());
            memory.words.set(1, DurabilityWord.OUT); // let the closes finish
        } finally {
            pool.shutdownNow();
        }
    }

    /** Node 0's exchange breaks (fenced) while a read-only commit waits for the counter: it is refused, not acknowledged. */
    @Test
    void aReadOnlyCommitIsRefusedWhenTheExchangeBreaks(@TempDir Path dir) throws Exception {
        WordsInMemory memory = new WordsInMemory(2);
        ExecutorService pool = Executors.newFixedThreadPool(1);
        try (Wal zero = Wal.open(dir, Mode.SYNC); Wal one = Wal.open(dir, Mode.SYNC)) {
            zero.holdFlushersForTest();
            one.holdFlushersForTest();
            zero.shareWatermark();
            one.shareWatermark();
            CommitLog a = zero.open(0, 0, memory::draw, memory.of(0));
            CommitLog b = one.open(1, 0, memory::draw, memory.of(1));
            Redo redo = new Redo();
            long unforced = b.append(Redos.numbered(redo, 1)); // node 1's commit, not forced (flusher held)
            Thread[] waiter = new Thread[1];
            Future<?> readOnly = pool.submit(() -> {
                waiter[0] = Thread.currentThread();
                a.awaitAppendedDurable(); // a read-only transaction that read node 1's commit
            });
            while (waiter[0] == null || waiter[0].getState() != Thread.State.WAITING) {
                Thread.yield();
            }
            memory.fenced.add(0);
            zero.logForTest(0).flusherForTest().doWork();
            ExecutionException refused = assertThrows(ExecutionException.class, readOnly::get,
                "acknowledged while " + unforced + " is not forced");
            assertInstanceOf(CommitLog.NotDurableException.class, refused.getCause());
            assertEquals(0, zero.durable(), "nothing durable in node 0's group");
            memory.fenced.clear();
            memory.words.set(0, DurabilityWord.OUT);
        } finally {
            pool.shutdownNow();
        }
    }
}
