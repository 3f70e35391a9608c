package io.selcc.engine;

import io.selcc.cache.SelccCluster;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.engine.index.LeafGuard;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wait-die is starvation-free only if a retried transaction keeps its first attempt's age (it then
 * becomes the oldest): {@link DatabaseNode#run} draws one age per logical transaction and passes it to
 * every attempt, while each {@link DatabaseNode#begin()} draws a new one. It also numbers the attempts
 * (TO goes ahead from the fourth): shown failing with every attempt passed as the first.
 */
class RetryKeepsAgeTest {
    @Test
    void everyAttemptOfARunGetsTheFirstAttemptsAge() {
        RecordingProvider provider = new RecordingProvider();
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).build()) {
            DatabaseNode node = DatabaseNode.open(cluster.node(0), provider, Map.of(), List.of());
            AtomicInteger attempts = new AtomicInteger();
            TxnResult<Integer> result = node.run(new RetryPolicy(10, 0, 0, () -> 0L), tx -> {
                if (attempts.incrementAndGet() < 3) {
                    throw new AbortException(AbortReason.LOCK_CONFLICT, "planted conflict");
                }
                return attempts.get();
            });
            assertTrue(result.outcome().committed(), "committed on the third attempt: " + result);
            assertEquals(3, result.attempts());
            assertEquals(List.of(1L, 1L, 1L), provider.begun, "the three attempts of one run");

            node.run(tx -> 0);
            node.begin().abort();
            assertEquals(List.of(1L, 1L, 1L, 2L, 3L), provider.begun, "a new run and a new begin draw new ages");
            assertEquals(List.of(1, 2, 3, 1, 1), provider.attempts, "each attempt is numbered within its run");
        }
    }

    /** An algorithm accepts only no-wait unless it says otherwise; the command line's names parse. */
    @Test
    void policiesByDefaultAndByName() {
        assertTrue(new RecordingProvider().supports(LockWaitPolicy.NO_WAIT));
        assertTrue(!new RecordingProvider().supports(LockWaitPolicy.WAIT_DIE));
        assertEquals(LockWaitPolicy.WAIT_DIE, LockWaitPolicy.byName("wait-die"));
        assertEquals(LockWaitPolicy.NO_WAIT, LockWaitPolicy.byName("NO_WAIT"));
        assertThrows(IllegalArgumentException.class, () -> LockWaitPolicy.byName("wound-wait"));
    }

    /**
     * Ages 1, 2, 3... and a record of the age and number every attempt began with; its transactions do
     * nothing.
     */
    private static final class RecordingProvider implements ConcurrencyControlProvider {
        final List<Long> begun = new ArrayList<>();
        final List<Integer> attempts = new ArrayList<>();
        private final AtomicLong ages = new AtomicLong();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public ConcurrencyControl create(CcEnvironment environment) {
            return new ConcurrencyControl() {
                @Override
                public String name() {
                    return "recording";
                }

                @Override
                public CcTransaction begin() {
                    throw new AssertionError("the engine passes an age");
                }

                @Override
                public long newAge() {
                    return ages.incrementAndGet();
                }

                @Override
                public CcTransaction begin(long age) {
                    throw new AssertionError("the engine passes the attempt's number");
                }

                @Override
                public CcTransaction begin(long age, int attempt) {
                    begun.add(age);
                    attempts.add(attempt);
                    return new EmptyTransaction();
                }
            };
        }
    }

    private static final class EmptyTransaction implements CcTransaction {
        @Override
        public boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                              TupleBuffer before, TupleBuffer after) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long insert(HeapTable table, TupleBuffer row) {
            throw new UnsupportedOperationException();
        }

        @Override
        public LeafGuard leafGuard() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void indexReadDone() {
        }

        @Override
        public AbortReason indexRefusal() {
            return null;
        }

        @Override
        public LeafGuard undoGuard() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CommitOutcome commit(CommitHook hook) {
            return CommitOutcome.COMMITTED;
        }

        @Override
        public void abort(AbortReason reason) {
        }
    }
}
