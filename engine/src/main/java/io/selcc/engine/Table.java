package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.index.BLinkTree;
import io.selcc.storage.HeapTable;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;
import io.selcc.threads.PerThread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
    /** Hints from primary key to record id, shared by this node's threads (see {@link RidHints}). */
    private final RidHints.Words hintWords = new RidHints.Words();
    /** Each thread's view of {@link #hintWords}. */
    private final PerThread<RidHints> ridHints = PerThread.withInitial(() -> new RidHints(hintWords));
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
     * Two row buffers for the calling thread's current statement (an update's before image and the buffer
     * an algorithm that buffers its writes may read the row into, an insert's image), returned with
     * {@link Scratch#release()}: a statement's images never outlive it (algorithms copy what they keep), so
     * reusing them spares two row allocations per statement. A statement nested in another's callback gets
     * fresh ones.
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
        /**
         * The view a read hands its reader ({@code CcTransaction.readView}: the page's row or a copy's,
         * read-only), or an update its updater ({@code CcTransaction.updateView}: columns only).
         */
        final TupleView rowView;
        /** The statement's check that a row is the key's (set by {@link #scratchFor}). */
        final HasKey hasKey = new HasKey();
        /** A scan's check that a row still has the key its index entry was found by. */
        final IndexKeyMatch hasIndexKey = new IndexKeyMatch();
        /**
         * An {@code insertAll}'s run of primary-index probes: the keys probed, the row each belongs to and
         * what the probe found, {@link #probed} of them (grown as needed, kept for the thread's next call).
         */
        long[] probeKeys = new long[0];
        int[] probeRows = new int[0];
        long[] probeFound = new long[0];
        int probed;
        private boolean inUse;

        Scratch(Schema schema) {
            first = new TupleBuffer(schema);
            second = new TupleBuffer(schema);
            firstView = new TupleView(schema).wrap(first);
            rowView = new TupleView(schema);
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

    /** This thread's view of the node's record id hints for the primary key. */
    RidHints ridHints() {
        return ridHints.get();
    }

    /**
     * Where this node's threads last found each of many primary keys: a cache of (key, record id, cache
     * frame) entries, shared by the node's threads (a key one terminal found is hinted to the others; a
     * table per thread made every thread find every key through the index once: with two terminals on a
     * node a tenth of TPC-C's stock and item accesses went down the B-link tree over 30 s, a thirtieth with
     * one table). A hint is only a guess: the
     * caller reads the row through its algorithm and checks that it is visible and has the key, which
     * makes it the key's row (a unique key has at most one visible row), and falls back to the index when
     * not. Rows rarely move (a delete and a new insert of the key), so a point lookup of a hot key skips
     * the B-link descent. The frame is where the compute node cached the row's page when last seen
     * ({@code ComputeNode.NO_FRAME} if unknown), so the access goes from the entry to the frame without
     * the node's lookup from address to frame; the frame's tag confirms it (a line may leave the cache
     * at any time).
     *
     * <p>Threads write entries without a lock: every word is read and written whole (opaque), so a
     * reader sees a key, a record id and a frame that some thread stored, perhaps from different entries
     * when two writers met in a bucket; the caller's checks make any such mix cost a lookup, never an
     * answer. This object is one thread's view: the answer of its last {@link #get} and its count of
     * hints tried; the words live in the table's {@link Words}.
     */
    static final class RidHints {
        private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
        private static final int MIN_BITS = 10;
        /**
         * 2^18 entries = 6 MiB per table and compute node at most: room for the 200,000 stock rows of two
         * TPC-C warehouses. (Per thread, 2^18 answered fewer than 2^16 in a short run: each growth starts
         * empty and each thread refilled its own; one table per node is filled by all of them.)
         */
        private static final int MAX_BITS = 18;
        /** Entries per bucket, log 2: four, so the key scan of a bucket stays within about a cache line. */
        private static final int WAY_BITS = 2;
        private static final int WAYS = 1 << WAY_BITS;
        /**
         * Words per entry: key, record id (0 = empty), frame plus one (0 = none). Plus one because a shift
         * may copy an empty entry's zeros over a half-written one (two writers in one bucket), and a zero
         * read as a frame was frame 0, a frame nobody stored: now it reads as no frame.
         */
        private static final int ENTRY = 3;
        private static final int RID = 1;
        private static final int FRAME = 2;

        /**
         * A table's entries, shared by its node's threads. Buckets of {@link #WAYS} entries, most recently
         * stored first. Direct-mapped (one entry per slot) lost ~12% of lookups to keys sharing a slot,
         * each miss a B-link descent; four ways keep nearly all.
         */
        static final class Words {
            /** The current generation: replaced whole on growth (readers of the old one lose nothing). */
            private volatile Generation generation = new Generation(MIN_BITS);
            /** Misses since the last growth; racy (a lost count only delays a growth). */
            private int missesSinceGrowth;
        }

        /** One size of the table: its words and log 2 of its entries, read together. */
        private static final class Generation {
            final long[] words;
            final int bits;

            Generation(int bits) {
                this.bits = bits;
                this.words = new long[ENTRY << bits];
            }

            int bucket(long key) {
                return ENTRY * (int) ((key * 0x9E3779B97F4A7C15L) >>> (64 - bits + WAY_BITS) << WAY_BITS);
            }
        }

        private final Words shared;
        /** The frame of the entry {@link #get} last found (meaningless when it answered 0: no hint). */
        private int foundFrame = ComputeNode.NO_FRAME;
        /** Hints {@link #get} returned to this thread (right or stale: the reader checks); tests assert they were used. */
        long tries;

        /** One thread's view of a table's shared entries. */
        RidHints(Words shared) {
            this.shared = shared;
        }

        /** A view of entries of its own (tests). */
        RidHints() {
            this(new Words());
        }

        private static long word(long[] w, int i) {
            return (long) WORD.getOpaque(w, i);
        }

        private static void word(long[] w, int i, long value) {
            WORD.setOpaque(w, i, value);
        }

        int bucket(long key) {
            return shared.generation.bucket(key);
        }

        /**
         * The first and last words of {@code key}'s bucket, summed: reading them brings the bucket's lines
         * (96 bytes, two or three CPU cache lines) into the CPU's cache.
         */
        long bucketWord(long key) {
            Generation g = shared.generation;
            int b = g.bucket(key);
            return g.words[b] + g.words[b + ENTRY * WAYS - 1];
        }

        /** The hinted record id of {@code key}, 0 if none; its frame is then {@link #foundFrame()}. */
        long get(long key) {
            long rid = peek(key);
            if (rid != 0) {
                tries++;
            }
            return rid;
        }

        /** {@link #get}, not counted as a hint tried (a prefetch's look ahead). */
        long peek(long key) {
            Generation g = shared.generation;
            long[] w = g.words;
            int b = g.bucket(key);
            for (int i = b; i < b + ENTRY * WAYS; i += ENTRY) {
                if ((long) WORD.getAcquire(w, i) == key) { // then the frame and record id stored before it
                    foundFrame = (int) (word(w, i + FRAME) - 1); // 0 stored: NO_FRAME
                    return word(w, i + RID);
                }
            }
            foundFrame = ComputeNode.NO_FRAME;
            return 0;
        }

        /** The cache frame of the record id {@link #get} returned last. */
        int foundFrame() {
            return foundFrame;
        }

        /**
         * Remembers where the index found {@code key}. Called after each miss: a table whose hot keys
         * outnumber the slots (twice as many misses as slots since the last growth) grows 4x, up to
         * {@link #MAX_BITS}; a small table keeps the small array.
         */
        void put(long key, long rid, int frame) {
            Words s = shared;
            Generation g = s.generation;
            // The size first: once the table is full grown, a miss writes nothing beside the entry (the
            // count shares a CPU cache line with the generation every lookup reads).
            if (g.bits < MAX_BITS && ++s.missesSinceGrowth > (2 << g.bits)) {
                s.missesSinceGrowth = 0;
                // Hints only: losing them costs lookups, not answers (so does a racing growth's array).
                s.generation = new Generation(Math.min(MAX_BITS, g.bits + 2));
            }
            remember(key, rid, frame);
        }

        /**
         * Records where a scan found {@code key}, without counting it as a miss (no growth): first in
         * its bucket, the entries before its old place (or all, dropping the last) moving one way down.
         * Word by word, not {@code System.arraycopy}: its wide moves need not keep each word whole.
         */
        void remember(long key, long rid, int frame) {
            Generation g = shared.generation;
            long[] w = g.words;
            int b = g.bucket(key);
            int at = b + ENTRY * (WAYS - 1);
            for (int i = b; i < b + ENTRY * WAYS; i += ENTRY) {
                if (word(w, i) == key) {
                    at = i;
                    break;
                }
            }
            if (at == b && word(w, b + RID) == rid && word(w, b + FRAME) == frame + 1L) {
                return; // first already, unchanged: no write to a line other threads read
            }
            // Each entry's key last, released: a lookup that finds the head entry's key finds the frame and
            // record id stored with it, not the empty entry's zeros (which now read as no hint, not frame 0).
            for (int e = at; e >= b + ENTRY; e -= ENTRY) {
                word(w, e + FRAME, word(w, e - ENTRY + FRAME));
                word(w, e + RID, word(w, e - ENTRY + RID));
                WORD.setRelease(w, e, word(w, e - ENTRY));
            }
            word(w, b + FRAME, frame + 1L);
            word(w, b + RID, rid);
            WORD.setRelease(w, b, key);
        }

        /** Records that {@code key}'s row, found through its hint, was in {@code frame} (another than hinted). */
        void moved(long key, int frame) {
            Generation g = shared.generation;
            long[] w = g.words;
            int b = g.bucket(key);
            for (int i = b; i < b + ENTRY * WAYS; i += ENTRY) {
                if (word(w, i) == key) {
                    word(w, i + FRAME, frame + 1L);
                    return;
                }
            }
        }

        void forget(long key) {
            Generation g = shared.generation;
            long[] w = g.words;
            int b = g.bucket(key);
            for (int i = b; i < b + ENTRY * WAYS; i += ENTRY) {
                if (word(w, i) == key) {
                    word(w, i + RID, 0);
                }
            }
        }

        int slots() {
            return 1 << shared.generation.bits;
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
