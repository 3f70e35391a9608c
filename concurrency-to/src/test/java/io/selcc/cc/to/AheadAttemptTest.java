package io.selcc.cc.to;

import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Table;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A transaction that keeps failing runs ahead from attempt {@value TimestampOrderingProvider#AHEAD_FROM_ATTEMPT}
 * on ({@link TimestampCounter}): younger than every transaction that begins meanwhile, so what it reads
 * wins over them, and it waits for an older writer's intent instead of aborting. Shown failing: with the
 * ahead reader aborting on the intent as a normal one does,
 * {@link #anAheadReaderWaitsForAnOlderWritersIntentAndReadsItsWrite} (the reader used up its attempts with
 * LOCK_CONFLICT); with the attempt number not passed by the engine (every attempt 1),
 * {@link #aWriterThatBeginsWhileAnAheadReaderRunsIsOlderAndLoses} (the writer committed: the reader was
 * not ahead).
 */
@Timeout(60)
class AheadAttemptTest {
    private static final int AHEAD = TimestampOrderingProvider.AHEAD_FROM_ATTEMPT;

    /** Throws a conflict on the attempts before the ahead one, as if the transaction kept losing. */
    private static void failBeforeAhead(AtomicInteger attempts) {
        if (attempts.incrementAndGet() < AHEAD) {
            throw new AbortException(AbortReason.LOCK_CONFLICT, "planted: this attempt loses");
        }
    }

    @Test
    void aWriterThatBeginsWhileAnAheadReaderRunsIsOlderAndLoses() {
        try (Database db = ThreeItems.open()) {
            ThreeItems.load(db.node(0));
            Table onA = db.node(0).table("item");
            Table onB = db.node(1).table("item");
            AtomicInteger attempts = new AtomicInteger();
            boolean[] writerCommitted = new boolean[1];
            TxnResult<Long> read = db.node(0).run(new RetryPolicy(AHEAD, 0, 0, () -> 0L), tx -> {
                failBeforeAhead(attempts);
                long value = tx.get(onA, 1).getLong(1);
                // Begins after the reader: a normal transaction would be younger and its write would come after
                // the read in timestamp order; against an ahead reader it is older and comes too late.
                Transaction writer = db.node(1).begin();
                try {
                    writer.update(onB, 1, row -> row.setLong(1, 11));
                    writerCommitted[0] = writer.commit().committed();
                } catch (AbortException expected) {
                    assertEquals(AbortReason.TIMESTAMP_TOO_OLD, expected.reason());
                }
                return value;
            });
            assertTrue(read.committed(), "the ahead attempt commits: " + read);
            assertEquals(AHEAD, read.attempts());
            assertEquals(10, read.value());
            assertFalse(writerCommitted[0], "the writer came after the ahead reader read the row: it is too late");
            assertEquals(1, db.cluster().totalCounters().get(Counter.TO_AHEAD_ATTEMPTS));
            // The attempt ended: a transaction that begins now is younger and writes.
            assertTrue(db.node(1).run(tx -> tx.update(onB, 1, row -> row.setLong(1, 12))).committed());
        }
    }

    @Test
    void anAheadReaderWaitsForAnOlderWritersIntentAndReadsItsWrite() throws Exception {
        try (Database db = ThreeItems.open(); ExecutorService thread = Executors.newSingleThreadExecutor()) {
            ThreeItems.load(db.node(0));
            Table onA = db.node(0).table("item");
            Table onB = db.node(1).table("item");
            Transaction writer = db.node(0).begin();
            assertTrue(writer.update(onA, 2, row -> row.setLong(1, 21)));
            AtomicInteger attempts = new AtomicInteger();
            Future<TxnResult<Long>> reader = thread.submit(() -> db.node(1).run(new RetryPolicy(50, 0, 0, () -> 0L), tx -> {
                failBeforeAhead(attempts);
                return tx.get(onB, 2).getLong(1);
            }));
            // The writer commits once the reader waits for its intent (or has given up, which fails below).
            while (!reader.isDone() && db.cluster().totalCounters().get(Counter.TO_AHEAD_INTENT_WAITS) == 0) {
                LockSupport.parkNanos(100_000);
            }
            assertEquals(CommitOutcome.COMMITTED, writer.commit());
            TxnResult<Long> read = reader.get();
            assertTrue(read.committed(), "the ahead reader waited for the intent: " + read);
            assertEquals(21, read.value(), "it reads after the older writer");
            assertTrue(db.cluster().totalCounters().get(Counter.TO_AHEAD_INTENT_WAITS) > 0);
        }
    }
}
