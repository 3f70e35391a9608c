package io.selcc.wal;

import io.selcc.engine.CommitLog;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Shared memory's durability words and commit counter for log groups that stand for compute nodes in
 * separate processes ({@link Wal#shareWatermark}), without a fabric: {@link #of} gives each node its
 * {@link CommitLog.SharedWords}, and every call is counted as the one round trip it would be.
 */
final class WordsInMemory {
    final AtomicLong counter = new AtomicLong();
    final AtomicLongArray words;
    /** Calls made through each node's view: one round trip each on a fabric. */
    final AtomicLongArray roundTrips;
    final Set<Integer> fenced = ConcurrentHashMap.newKeySet();

    WordsInMemory(int computeNodes) {
        words = new AtomicLongArray(computeNodes);
        roundTrips = new AtomicLongArray(computeNodes);
    }

    /** Draws the next commit number, as a node's fetch-and-add does. */
    long draw() {
        return counter.incrementAndGet();
    }

    CommitLog.SharedWords of(int node) {
        return new CommitLog.SharedWords() {
            @Override
            public int computeNode() {
                return node;
            }

            @Override
            public int computeNodes() {
                return words.length();
            }

            @Override
            public long publishAndRead(long mine, long[] into) {
                check();
                words.set(node, mine);
                return readInto(into);
            }

            @Override
            public long read(long[] into) {
                check();
                return readInto(into);
            }

            private long readInto(long[] into) {
                roundTrips.incrementAndGet(node);
                for (int n = 0; n < into.length; n++) {
                    into[n] = words.get(n);
                }
                return counter.get();
            }

            @Override
            public long compareAndSet(int computeNode, long expected, long update) {
                check();
                roundTrips.incrementAndGet(node);
                long found = words.compareAndExchange(computeNode, expected, update);
                return found;
            }

            @Override
            public boolean fenced(int computeNode) {
                return fenced.contains(computeNode);
            }

            private void check() {
                if (fenced.contains(node)) {
                    throw new io.selcc.fabric.NodeFailedException(node, "compute node " + node + " is fenced");
                }
            }
        };
    }
}
