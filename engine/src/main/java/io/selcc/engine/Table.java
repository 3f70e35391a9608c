package io.selcc.engine;

import io.selcc.engine.index.BLinkTree;
import io.selcc.storage.HeapTable;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;
import io.selcc.threads.PerThread;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Predicate;

/** A table opened on one compute node: its heap, primary index and secondary indexes. */
public final class Table {
    private static final Index[] NO_INDEXES = new Index[0];
    private final TableDefinition definition;
    private final HeapTable heap;
    private final Index primary;
    private final List<Index> secondaries = new ArrayList<>();
    /** The same as an array, for the per-row loops (a list iterator per row was a fifteenth of what a New-Order allocated). */
    private Index[] secondaryArray = new Index[0];
    /**
     * True while this node's transactions and bulk loads leave the secondary indexes alone, to have them
     * built from the heap afterwards ({@link DeferredIndexes}). Plain: set and cleared by the one thread
     * that recovers, before and after any other runs transactions here.
     */
    private boolean secondariesDeferred;
    /** Per-thread hints from primary key to record id (see {@link RidHints}). */
    private final PerThread<RidHints> ridHints = PerThread.withInitial(RidHints::new);
    /** Per-thread row buffers for one statement at a time (see {@link #scratch()}). */
    private final PerThread<Scratch> scratch = PerThread.withInitial(() -> new Scratch(heap().schema()));

    Table(TableDefinition definition, HeapTable heap, BLinkTree primaryTree) {
        this.definition = definition;
        this.heap = heap;
        this.primary = new Index(new IndexDefinition(definition.primaryIndexName(), definition.name(), true,
            definition.primaryKey()), this, primaryTree, true);
    }

    void addSecondary(Index index) {
        secondaries.add(index);
        secondaryArray = secondaries.toArray(new Index[0]);
    }

    public String name() {
        return definition.name();
    }

    public Schema schema() {
        return heap.schema();
    }

    public HeapTable heap() {
        return heap;
    }

    public Index primaryIndex() {
        return primary;
    }

    public List<Index> secondaryIndexes() {
        return Collections.unmodifiableList(secondaries);
    }

    Index[] secondaryArray() {
        return secondaryArray;
    }

    /** The secondary indexes a change to a row must update: none while they are deferred. */
    Index[] maintainedSecondaries() {
        return secondariesDeferred ? NO_INDEXES : secondaryArray;
    }

    boolean secondariesDeferred() {
        return secondariesDeferred;
    }

    void deferSecondaries(boolean deferred) {
        secondariesDeferred = deferred;
    }

    /** The secondary indexes without the unmodifiable wrapper. */
    List<Index> secondaries() {
        return secondaries;
    }

    /**
     * Two row buffers with views for the calling thread's current statement (an update's before and
     * after images, an insert's image), returned with {@link Scratch#release()}: a statement's images
     * never outlive it (algorithms copy what they keep), so reusing them spares two row allocations
     * per statement. A statement nested in another's callback gets fresh ones.
     */
    Scratch scratch() {
        Scratch s = scratch.get();
        if (s.inUse) {
            s = new Scratch(heap.schema());
        }
        s.inUse = true;
        return s;
    }

    Scratch scratchFor(long key) {
        Scratch s = scratch();
        s.hasKey.key = key;
        return s;
    }

    final class Scratch {
        final TupleBuffer first;
        final TupleBuffer second;
        final TupleView firstView;
        final TupleView secondView;
        /** The statement's check that a row is the key's (set by {@link #scratchFor}). */
        final HasKey hasKey = new HasKey();
        /** A scan's check that a row still has the key its index entry was found by. */
        final IndexKeyMatch hasIndexKey = new IndexKeyMatch();
        private boolean inUse;

        Scratch(Schema schema) {
            first = new TupleBuffer(schema);
            second = new TupleBuffer(schema);
            firstView = new TupleView(schema).wrap(first);
            secondView = new TupleView(schema).wrap(second);
        }

        void release() {
            inUse = false;
        }
    }

    /** True for a row whose primary key is {@link #key}: a reusable predicate instead of a capturing lambda. */
    final class HasKey implements Predicate<TupleView> {
        long key;

        @Override
        public boolean test(TupleView row) {
            return primaryKey(row) == key;
        }
    }

    /** True for a row whose key in {@link #index} is {@link #key}. */
    static final class IndexKeyMatch implements Predicate<TupleView> {
        Index index;
        long key;

        @Override
        public boolean test(TupleView row) {
            return index.keyOf(row) == key;
        }
    }

    /** This thread's record id hints for the primary key. */
    RidHints ridHints() {
        return ridHints.get();
    }

    /**
     * Where this thread last found each of a few thousand primary keys: a direct-mapped cache of
     * (key, record id) pairs. A hint is only a guess: the caller reads the row through its algorithm
     * and checks that it is visible and has the key, which makes it the key's row (a unique key has
     * at most one visible row), and falls back to the index when not. Rows rarely move (a delete and
     * a new insert of the key), so a point lookup of a hot key skips the B-link descent.
     */
    static final class RidHints {
        private static final int MIN_BITS = 10;
        /**
         * 2^16 pairs = 1 MiB per table and thread at most. 2^18 (4 MiB, room for all of TPC-C's 100,000
         * items) saved no more accesses in a 15 s run: each growth starts an empty array.
         */
        private static final int MAX_BITS = 16;
        /** Pairs per bucket, log 2: four pairs, 64 bytes, so one bucket is about one cache line. */
        private static final int WAY_BITS = 2;
        private static final int WAYS = 1 << WAY_BITS;
        private int bits = MIN_BITS;
        /**
         * Buckets of {@link #WAYS} pairs, most recently stored first: key at 2i, record id at 2i + 1
         * (0 = empty). Direct-mapped (one pair per slot) lost ~12% of lookups to keys sharing a slot,
         * each miss a B-link descent; four ways read the same line and keep nearly all.
         */
        private long[] pairs = new long[2 << MIN_BITS];
        private int missesSinceGrowth;
        /** Hints returned to a reader (right or stale: the reader checks); tests assert they were used. */
        long tries;

        int bucket(long key) {
            return (int) ((key * 0x9E3779B97F4A7C15L) >>> (64 - bits + WAY_BITS)) << (WAY_BITS + 1);
        }

        /** The hinted record id of {@code key}, 0 if none. */
        long get(long key) {
            long[] p = pairs;
            int b = bucket(key);
            for (int i = b; i < b + 2 * WAYS; i += 2) {
                if (p[i] == key) {
                    return p[i + 1];
                }
            }
            return 0;
        }

        /**
         * Remembers where the index found {@code key}. Called after each miss: a table whose hot keys
         * outnumber the slots (twice as many misses as slots since the last growth) grows 4x, up to
         * {@link #MAX_BITS}; a small table keeps the small array.
         */
        void put(long key, long rid) {
            if (++missesSinceGrowth > (2 << bits) && bits < MAX_BITS) {
                bits = Math.min(MAX_BITS, bits + 2);
                pairs = new long[2 << bits]; // hints only: losing them costs lookups, not answers
                missesSinceGrowth = 0;
            }
            remember(key, rid);
        }

        /**
         * Records where a scan found {@code key}, without counting it as a miss (no growth): first in
         * its bucket, the pairs before its old place (or all, dropping the last) moving one way down.
         */
        void remember(long key, long rid) {
            long[] p = pairs;
            int b = bucket(key);
            int at = b + 2 * (WAYS - 1);
            for (int i = b; i < b + 2 * WAYS; i += 2) {
                if (p[i] == key) {
                    at = i;
                    break;
                }
            }
            System.arraycopy(p, b, p, b + 2, at - b);
            p[b] = key;
            p[b + 1] = rid;
        }

        void forget(long key) {
            long[] p = pairs;
            int b = bucket(key);
            for (int i = b; i < b + 2 * WAYS; i += 2) {
                if (p[i] == key) {
                    p[i + 1] = 0;
                }
            }
        }

        int slots() {
            return 1 << bits;
        }
    }

    /** The primary key of {@code row}, a row of this table. */
    public long primaryKey(TupleView row) {
        return definition.primaryKey().key(row);
    }

    @Override
    public String toString() {
        return "Table[" + name() + "]";
    }
}
