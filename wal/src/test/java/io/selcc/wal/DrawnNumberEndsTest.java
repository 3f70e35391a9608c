package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.fabric.NodeFailedException;
import io.selcc.wal.ChronicleCommitLog.FaultPoint;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Every commit number a log draws ends published or lost (issue 28, a review): a number that is
 * neither holds the watermark below it for ever, and with it every later commit's durability wait, on
 * every node of the group. Each case lets node 0's append fail somewhere after (or during) its draw
 * while node 1 appends the next number; node 1's wait for that number must end (with
 * {@link CommitLog.NotDurableException}: the number below it is lost), where it used to hang until the
 * test's timeout failed it.
 *
 * <p>Planted bugs each case caught (shown failing by the timeout, the wait for node 1's number never
 * returning): the draw's exception propagated out of the append without counting a number lost (the
 * code before this change); the fault before the write and the one while publishing left outside the
 * append's failure handling, as {@code drawnElsewhere} (a step the shared watermark of issue 28 removed
 * since) and {@code group.appended} were.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
class DrawnNumberEndsTest {
    /**
     * The fetch-and-add that draws node 0's number takes effect in memory and its reply is lost (the
     * supplier throws after drawing): the number is unknown, so the log counts the lowest it could be as
     * lost, fails, and answers {@link CommitLog#OUTCOME_UNKNOWN} (the engine then stops the node).
     */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void aDrawWhoseReplyWasLostLosesTheNumber(Mode mode, @TempDir Path dir) {
        AtomicLong counter = new AtomicLong();
        AtomicBoolean loseReply = new AtomicBoolean();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, mode)) {
            CommitLog zero = wal.open(0, () -> {
                long drawn = counter.incrementAndGet();
                if (loseReply.get()) {
                    throw new IllegalStateException("planted: the reply of the fetch-and-add that drew " + drawn + " was lost");
                }
                return drawn;
            });
            CommitLog one = wal.open(1, counter::incrementAndGet);
            assertEquals(1, zero.append(Redos.numbered(redo, 1)));
            loseReply.set(true);
            long answer = appendAsTheEngineDoes(zero, Redos.numbered(redo, 2));
            assertEquals(2, counter.get(), "the lost reply's number was drawn");
            assertEquals(3, one.append(Redos.numbered(redo, 3)));
            one.awaitDurable(1);
            assertThrows(CommitLog.NotDurableException.class, () -> one.awaitDurable(3),
                "a number after the one drawn without a reply is never acknowledged, and the wait ends");
            assertEquals(CommitLog.OUTCOME_UNKNOWN, answer);
            assertNotNull(wal.failure());
            assertTrue(wal.failure().contains("draw (outcome unknown)"), wal.failure());
            assertEquals(CommitLog.FAILED, zero.append(Redos.numbered(redo, 4)), "the log failed");
        }
    }

    /**
     * A fenced node's fetch-and-add takes no effect and throws {@link NodeFailedException}: nothing was
     * drawn, so nothing is lost and node 1's commits stay durable. (Shown to fail with every draw failure
     * counted as unknown: the append answered OUTCOME_UNKNOWN, and the group lost a number nobody drew.)
     */
    @Test
    void aFencedDrawDrawsNothingAndLosesNothing(@TempDir Path dir) {
        AtomicLong counter = new AtomicLong();
        Redo redo = new Redo();
        try (Wal wal = Wal.open(dir, Mode.SYNC)) {
            CommitLog zero = wal.open(0, () -> {
                throw new NodeFailedException(0, "planted: compute node 0 is fenced off the fabric");
            });
            CommitLog one = wal.open(1, counter::incrementAndGet);
            assertThrows(NodeFailedException.class, () -> zero.append(Redos.numbered(redo, 1)));
            assertEquals(1, one.append(Redos.numbered(redo, 2)));
            one.awaitDurable(1);
            assertNull(wal.failure());
        }
    }

    /**
     * Node 0's append fails at {@code at} after a number was drawn: before the write (where
     * {@code drawnElsewhere} ran), or after it while the number is handed on (where SYNC queues it for
     * the flusher and ASYNC publishes it, {@code group.appended}). Before the write the transaction may
     * abort ({@link CommitLog#FAILED}); after it the record is in the log ({@link CommitLog#OUTCOME_UNKNOWN}).
     */
    @ParameterizedTest
    @EnumSource(value = FaultPoint.class, names = {"DRAWN", "PUBLISHING"})
    void aFailureAfterTheDrawLosesTheNumberInEitherMode(FaultPoint at, @TempDir Path dir) {
        for (Mode mode : Mode.values()) {
            AtomicLong counter = new AtomicLong();
            Redo redo = new Redo();
            try (Wal wal = Wal.open(dir.resolve(mode.name()), mode)) {
                CommitLog zero = wal.open(0, counter::incrementAndGet);
                CommitLog one = wal.open(1, counter::incrementAndGet);
                assertEquals(1, one.append(Redos.numbered(redo, 1)));
                wal.logForTest(0).plantFaultForTest(at, new IllegalStateException("planted: a failure at " + at));
                long answer = appendAsTheEngineDoes(zero, Redos.numbered(redo, 2));
                assertTrue(!wal.logForTest(0).faultPlantedForTest(), "the planted fault was thrown");
                assertEquals(3, one.append(Redos.numbered(redo, 3)));
                one.awaitDurable(1);
                assertThrows(CommitLog.NotDurableException.class, () -> one.awaitDurable(3), mode + " " + at);
                assertEquals(at == FaultPoint.DRAWN ? CommitLog.FAILED : CommitLog.OUTCOME_UNKNOWN, answer, mode + " " + at);
                assertTrue(wal.failure().contains("sequence=2"), wal.failure());
            }
        }
    }

    /** An append as {@code Transaction.commitPoint} makes it: an exception is a failed append (the commit aborts). */
    private static long appendAsTheEngineDoes(CommitLog log, Redo redo) {
        try {
            return log.append(redo);
        } catch (RuntimeException e) {
            System.out.println("DrawnNumberEndsTest: the append threw, taken for a failed one: " + e);
            return CommitLog.FAILED;
        }
    }
}
