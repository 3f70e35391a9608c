package io.selcc.engine;

import io.selcc.fabric.Counter;
import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node's {@link CommitLog.SharedWords}, as the engine hands them to a log: one exchange (write
 * this node's durability word, read every node's, read the commit counter) is exactly one round trip on
 * the fabric, the read sees the write and every other node's word, and the counter is the one commits
 * draw from.
 *
 * <p>Shown to fail with the write posted before the rest (two batches): 2 round trips, not 1; with the
 * durability words placed on the counters GCL (the catalog's counters address), node 1's word read as the
 * commit counter's value, 4.
 */
class DurabilityWordsTest {
    @Test
    void anExchangeIsOneRoundTripAndSeesEveryWord() {
        CapturingFactory logs = new CapturingFactory();
        Schema schema = Schema.builder().addLong("id").build();
        try (Database db = Database.builder().cc("2pl").computeNodes(3)
            .table(TableDefinition.of("t", schema, row -> row.getLong(0))).commitLog(logs).build()) {
            for (int n = 0; n < 3; n++) {
                db.node(n);
            }
            DatabaseNode zero = db.node(0);
            Table t = zero.table("t");
            for (long k = 1; k <= 4; k++) {
                long key = k;
                assertTrue(zero.run(tx -> tx.insert(t, row -> row.setLong(0, key))).committed());
            }
            assertEquals(4, db.commitSequence());
            long[] words = new long[3];
            CommitLog.SharedWords at0 = logs.words.get(0);
            CommitLog.SharedWords at1 = logs.words.get(1);
            assertEquals(3, at0.computeNodes());
            assertEquals(1, at1.computeNode());

            long before = db.cluster().counters(0).get(Counter.ROUND_TRIPS);
            long counter = at0.publishAndRead(DurabilityWord.of(4, false), words);
            assertEquals(1, db.cluster().counters(0).get(Counter.ROUND_TRIPS) - before, "one exchange, one round trip");
            assertEquals(4, counter, "the counter commits draw from");
            assertEquals(DurabilityWord.of(4, false), words[0], "the read sees this node's write");
            assertEquals(0, words[1], "node 1 has published nothing");

            long before1 = db.cluster().counters(1).get(Counter.ROUND_TRIPS);
            assertEquals(4, at1.publishAndRead(DurabilityWord.of(2, true), words));
            assertEquals(DurabilityWord.of(4, false), words[0], "node 1 reads node 0's word");
            assertEquals(DurabilityWord.of(2, true), words[1]);
            assertEquals(1, db.cluster().counters(1).get(Counter.ROUND_TRIPS) - before1);

            long word0 = DurabilityWord.of(4, false);
            assertEquals(word0, at1.compareAndSet(0, word0, word0 | DurabilityWord.OUT));
            assertEquals(4, at0.read(words));
            assertTrue(DurabilityWord.out(words[0]));
            assertFalse(DurabilityWord.counts(words[0]));
            assertTrue(DurabilityWord.counts(words[1]) && DurabilityWord.lost(words[1]));
            assertFalse(at0.fenced(2));
        }
    }

    /** A commit log that keeps each node's shared words and otherwise only draws numbers. */
    private static final class CapturingFactory implements CommitLog.Factory {
        final Map<Integer, CommitLog.SharedWords> words = new HashMap<>();

        @Override
        public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence) {
            return new CommitLog() {
                @Override
                public long append(Redo redo) {
                    return nextSequence.getAsLong();
                }

                @Override
                public void awaitDurable(long sequence) {
                }

                @Override
                public void awaitAppendedDurable() {
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public synchronized CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence,
                                           CommitLog.SharedWords shared) {
            words.put(computeNode, shared);
            return open(computeNode, settledThrough, nextSequence);
        }

        @Override
        public void close() {
        }
    }
}
