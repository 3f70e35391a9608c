package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The record id hint table keeps four keys per bucket, most recently stored first, each with its record id
 * and cache frame. Shown failing with one way per bucket (the direct-mapped table this replaced: three of
 * the four sharing keys lost).
 */
class RidHintsTest {
    /** The first {@code count} keys from 1 up that share the bucket of key 1. */
    private static List<Long> keysSharingABucket(Table.RidHints hints, int count) {
        return keysSharingABucket(hints, count, 1);
    }

    /** {@code count} keys from {@code from} on that share {@code from}'s bucket. */
    private static List<Long> keysSharingABucket(Table.RidHints hints, int count, long from) {
        List<Long> keys = new ArrayList<>();
        int bucket = hints.bucket(from);
        for (long key = from; keys.size() < count; key++) {
            if (hints.bucket(key) == bucket) {
                keys.add(key);
            }
        }
        return keys;
    }

    @Test
    void fourKeysOfOneBucketAreAllKept() {
        Table.RidHints hints = new Table.RidHints();
        List<Long> keys = keysSharingABucket(hints, 4);
        for (long key : keys) {
            hints.remember(key, 1000 + key, (int) key);
        }
        for (long key : keys) {
            assertEquals(1000 + key, hints.get(key), "key " + key + " of " + keys);
            assertEquals((int) key, hints.foundFrame(), "its frame, key " + key);
        }
    }

    /**
     * Moving a bucket's entries down stays inside the bucket: the next bucket's four entries keep their
     * record ids and frames. Shown failing with the move one word too long (the next bucket's first key
     * overwritten).
     */
    @Test
    void movingABucketsEntriesLeavesTheNextBucketAlone() {
        Table.RidHints hints = new Table.RidHints();
        List<Long> first = keysSharingABucket(hints, 5);
        int next = hints.bucket(first.get(0)) + 12; // four entries of three words
        List<Long> neighbours = new ArrayList<>();
        for (long key = 1; neighbours.size() < 4; key++) {
            if (hints.bucket(key) == next) {
                neighbours.add(key);
            }
        }
        for (long key : neighbours) {
            hints.remember(key, 5000 + key, (int) key);
        }
        for (int i = 0; i < 4; i++) {
            hints.remember(first.get(i), 1000 + i, i);
        }
        hints.remember(first.get(3), 2003, 23); // the last one moves to the front
        hints.remember(first.get(4), 1004, 4); // a new one pushes the last out
        for (long key : neighbours) {
            assertEquals(5000 + key, hints.get(key), "neighbour " + key + " of " + neighbours);
            assertEquals((int) key, hints.foundFrame(), "its frame");
        }
        assertEquals(2003, hints.get(first.get(3)));
        assertEquals(1004, hints.get(first.get(4)));
    }

    /**
     * The node's threads write one table without a lock: whatever they do at once, a lookup answers 0 or
     * a record id some thread stored (never a torn word, a frame or a key in its place), and a frame some
     * thread stored or none. Two threads put, remember, move and forget eight keys of one bucket while
     * both look them up; one of them starts a fresh table every 128 operations for most of the run (a
     * shift that copies an empty entry over one another writer fills is where a frame nobody stored
     * came from), then lets the last table grow. Shown failing with {@code moved} writing the frame at
     * the record id's offset (a frame answered as a record id), and with frames stored as they are
     * instead of plus one (a frame of 0, in about one run in two: CI met it once; a reviewer's
     * interleaving of two shifting writers reproduced it, and storing the key last did not prevent it).
     * A serial run (one pool thread) fails the count of lookups on fresh tables both wrote. A bucket move
     * by a stride of one word instead of one entry is not caught here (the moved entries' keys become
     * frames and never match: hints lost, not wrong);
     * {@link #movingABucketsEntriesLeavesTheNextBucketAlone} checks the move's extent.
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void concurrentWritersNeverMakeAWordNobodyStored() throws Exception {
        // One bucket of every fresh table; keys far above record ids (index << 1 | 1) and frames, so a key
        // answered in either place is caught.
        List<Long> keys = keysSharingABucket(new Table.RidHints(), 8, 1_000_000_000L);
        java.util.concurrent.atomic.AtomicReference<Table.RidHints.Words> table =
            new java.util.concurrent.atomic.AtomicReference<>(new Table.RidHints.Words());
        long seed = System.nanoTime();
        System.out.println("concurrentWritersNeverMakeAWordNobodyStored seed=" + seed);
        int ops = 2_000_000;
        int renewUntil = ops * 3 / 4; // then the last table grows
        java.util.concurrent.atomic.AtomicLong answeredFresh = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger starter = new java.util.concurrent.atomic.AtomicInteger();
        // The table each worker works on now: a lookup counts only while the other works on the same one.
        java.util.concurrent.atomic.AtomicReferenceArray<Table.RidHints.Words> working =
            new java.util.concurrent.atomic.AtomicReferenceArray<>(2);
        java.util.concurrent.Callable<Void> worker = () -> {
            int me = starter.getAndIncrement();
            boolean renews = me == 0; // one worker starts the fresh tables
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed + me);
            Table.RidHints.Words seen = null;
            int opsOnTable = 0;
            for (int op = 0; op < ops; op++) {
                if (renews && op < renewUntil && op % 128 == 127) {
                    table.set(new Table.RidHints.Words());
                }
                Table.RidHints.Words words = table.get();
                opsOnTable = words == seen ? opsOnTable + 1 : 0;
                seen = words;
                working.set(me, words);
                Table.RidHints view = new Table.RidHints(words);
                int index = random.nextInt(keys.size());
                long key = keys.get(index);
                long rid = (long) index << 1 | 1; // odd, decodes to its key's index
                int frame = 1_000 + index;
                switch (random.nextInt(5)) {
                    case 0 -> view.put(key, rid, frame);
                    case 1 -> view.remember(key, rid, frame);
                    case 2 -> view.moved(key, frame);
                    case 3 -> view.forget(key);
                    default -> {
                        long got = view.get(key);
                        if (got != 0) {
                            if (opsOnTable < 50 && working.get(1 - me) == words) {
                                answeredFresh.incrementAndGet(); // a fresh table both were writing
                            }
                            if ((got & 1) == 0 || (got >> 1) < 0 || (got >> 1) >= keys.size()) {
                                throw new AssertionError("a record id nobody stored: " + got + " (seed=" + seed + ")");
                            }
                            int f = view.foundFrame();
                            if (f != ComputeNode.NO_FRAME && (f < 1_000 || f >= 1_000 + keys.size())) {
                                throw new AssertionError("a frame nobody stored: " + f + " (seed=" + seed + ")");
                            }
                        }
                    }
                }
            }
            return null;
        };
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<Void>> done = pool.invokeAll(List.of(worker, worker));
            for (java.util.concurrent.Future<Void> f : done) {
                f.get(); // a worker's failure fails the test
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(answeredFresh.get() > 1_000,
            "lookups answered by a table 50 operations old or less while both wrote it: " + answeredFresh.get());
        assertTrue(new Table.RidHints(table.get()).slots() > new Table.RidHints().slots(), "the last table grew");
    }

    @Test
    void aFifthKeyDropsTheLeastRecentlyStored() {
        Table.RidHints hints = new Table.RidHints();
        List<Long> keys = keysSharingABucket(hints, 5);
        for (int i = 0; i < 4; i++) {
            hints.remember(keys.get(i), 1000 + i, i);
        }
        hints.remember(keys.get(0), 2000, 20); // stored again: most recent, with its new record id
        hints.remember(keys.get(4), 1004, 4);
        assertEquals(2000, hints.get(keys.get(0)));
        assertEquals(20, hints.foundFrame(), "the frame stored with it again");
        assertEquals(0, hints.get(keys.get(1)), "the least recently stored key left");
        assertEquals(ComputeNode.NO_FRAME, hints.foundFrame(), "no frame for no hint");
        assertEquals(1002, hints.get(keys.get(2)));
        assertEquals(1003, hints.get(keys.get(3)));
        assertEquals(1004, hints.get(keys.get(4)));
        hints.forget(keys.get(2));
        assertEquals(0, hints.get(keys.get(2)), "forgotten");
        assertEquals(1003, hints.get(keys.get(3)), "its neighbours stay");
        assertEquals(3, hints.foundFrame());
        hints.moved(keys.get(3), 33);
        assertEquals(1003, hints.get(keys.get(3)), "a move keeps the record id");
        assertEquals(33, hints.foundFrame(), "and changes the frame");
        assertEquals(1004, hints.get(keys.get(4)));
        assertEquals(4, hints.foundFrame(), "of that key only");
    }
}
