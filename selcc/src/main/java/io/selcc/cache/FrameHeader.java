package io.selcc.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The header of a cache frame: the state a cache hit needs, in 64 bytes of its node's header table (a
 * {@code long[]} of {@link #WORDS} words per frame, frame i's at {@code i * WORDS}), so a hit reads one
 * or two CPU cache lines and no Java object. Words:
 *
 * <pre>
 * word  field
 * 0     tag: the GCL address cached, {@link #NO_TAG} for none; changes only under the X latch
 * 1     latch and state word (below): the local latch, the ownership, the pending and draining flags
 * 2     CLOCK reference bit (0 or 1): set by a hit, cleared by the evictor (racy, a hint)
 * 3     dirty bounds: low (first dirty byte of the copy) in the high half, high (one past the last) in
 *       the low half; low = {@link #CLEAN} when clean; under X
 * 4     lease counts against a pending request (paper 5.3.1): local reads in the high half, writes in the low
 * 5-7   reserved (zero): 64 bytes a frame, so two frames' latch words are never in one CPU cache line
 *       (a header may straddle two lines: a Java array is not 64-byte aligned)
 * </pre>
 *
 * <p>Latch and state word:
 * <pre>
 *  63                        20  19  18  17-16  15  14  13  12  11        0
 * +----------------------------+---+---+------+---+---+---+---+-----------+
 * |          version           | D | P | own  | X | WW| 0 | PK|  readers  |
 * +----------------------------+---+---+------+---+---+---+---+-----------+
 * </pre>
 * {@code readers} counts shared holders (at most 4,095: a reader beyond that is refused, or waits);
 * {@code X} is the exclusive holder; {@code WW} says a blocking writer waits, which turns blocking
 * readers away (no-wait readers still pass it, as they passed {@code StampedLock}'s queue); {@code PK}
 * says a thread parks on the frame's condition, so the release that clears it must wake it; {@code own} is
 * the ownership ({@link #INVALID}, {@link #SHARED}, {@link #MODIFIED}), changed only under X; {@code P}
 * says a remote request may be pending on the frame, {@code D} that a thread drains its local holders
 * (either sends a hit down the full path). The version grows by one at every exclusive release, so an
 * optimistic reader that saw version v with X clear and sees them again afterwards read bytes no writer
 * changed (the seqlock pattern). Bit 13 is never set in the word: it marks a stamp as optimistic, so an
 * optimistic stamp is never 0 ("not taken"). Keeping the state in the latch word lets a hit learn the
 * ownership and the flags from the word it CASes, and a release learn them from the word it replaced.
 *
 * <p>A zeroed header is a frame on the free list (no tag, latch free, invalid; the dirty bounds are set
 * when a line is installed), so the table needs no initialising pass.
 */
final class FrameHeader {
    /** Longs per frame: 64 bytes. */
    static final int WORDS = 8;

    static final int TAG = 0;
    static final int LATCH = 1;
    static final int REFERENCED = 2;
    static final int DIRTY = 3;
    static final int LEASE = 4;

    static final long NO_TAG = 0L;
    /** Ownership codes: zero is invalid, so a zeroed header holds nothing. */
    static final int INVALID = 0;
    static final int SHARED = 1;
    static final int MODIFIED = 2;
    /** Dirty low of a clean copy: 0 is a dirty offset (the copy starts at the line's byte 0). */
    static final int CLEAN = -1;

    static final long READERS = (1L << 12) - 1;
    static final long PARKED = 1L << 12;
    static final long OPTIMISTIC_MARK = 1L << 13;
    static final long WRITER_WAITING = 1L << 14;
    static final long WRITER = 1L << 15;
    static final int OWNERSHIP_SHIFT = 16;
    static final long OWNERSHIP = 3L << OWNERSHIP_SHIFT;
    static final long PENDING = 1L << 18;
    static final long DRAINING = 1L << 19;
    static final long VERSION_ONE = 1L << 20;
    static final long VERSION = -VERSION_ONE;
    /** Stamps of a held latch: nonzero, so 0 stays "not taken". The latch word itself is the truth. */
    static final long READ_STAMP = 1;
    static final long WRITE_STAMP = 2;

    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);

    private FrameHeader() {
    }

    /** Where frame {@code index}'s header starts in the table. */
    static int at(int index) {
        return index * WORDS;
    }

    // ---------------------------------------------------------------- tag, CLOCK, dirty, lease

    static long tag(long[] table, int at) {
        return (long) WORD.getVolatile(table, at + TAG);
    }

    static void tag(long[] table, int at, long address) {
        WORD.setVolatile(table, at + TAG, address);
    }

    static boolean referenced(long[] table, int at) {
        return table[at + REFERENCED] != 0;
    }

    /** Racy on purpose (a hint); a hit writes it only when it changes, so a hit does not dirty the line. */
    static void touch(long[] table, int at) {
        if (table[at + REFERENCED] == 0) {
            table[at + REFERENCED] = 1;
        }
    }

    static void referenced(long[] table, int at, boolean referenced) {
        table[at + REFERENCED] = referenced ? 1 : 0;
    }

    static int dirtyLow(long[] table, int at) {
        return (int) (table[at + DIRTY] >> 32);
    }

    static int dirtyHigh(long[] table, int at) {
        return (int) table[at + DIRTY];
    }

    static void dirty(long[] table, int at, int low, int high) {
        table[at + DIRTY] = (long) low << 32 | (high & 0xFFFF_FFFFL);
    }

    /** Widens the dirty bounds to cover [low, high); under the frame's X latch. */
    static void widenDirty(long[] table, int at, int low, int high) {
        int dirtyLow = dirtyLow(table, at);
        if (dirtyLow == CLEAN) {
            dirty(table, at, low, high);
        } else {
            dirty(table, at, Math.min(dirtyLow, low), Math.max(dirtyHigh(table, at), high));
        }
    }

    static int leaseReads(long[] table, int at) {
        return (int) ((long) WORD.getVolatile(table, at + LEASE) >>> 32);
    }

    static int leaseWrites(long[] table, int at) {
        return (int) (long) WORD.getVolatile(table, at + LEASE);
    }

    static int countLeaseRead(long[] table, int at) {
        return (int) (((long) WORD.getAndAdd(table, at + LEASE, 1L << 32) >>> 32) + 1);
    }

    static int countLeaseWrite(long[] table, int at) {
        return (int) (long) WORD.getAndAdd(table, at + LEASE, 1L) + 1;
    }

    static void resetLease(long[] table, int at) {
        WORD.setVolatile(table, at + LEASE, 0L);
    }

    // ---------------------------------------------------------------- state in the latch word

    static long word(long[] table, int at) {
        return (long) WORD.getVolatile(table, at + LATCH);
    }

    private static boolean cas(long[] table, int at, long expected, long next) {
        return WORD.compareAndSet(table, at + LATCH, expected, next);
    }

    static int ownership(long word) {
        return (int) ((word & OWNERSHIP) >>> OWNERSHIP_SHIFT);
    }

    /** Whether ownership {@code code} lets a latch of that mode be a hit. */
    static boolean permits(int code, boolean exclusive) {
        return exclusive ? code == MODIFIED : code != INVALID;
    }

    /** Sets the ownership; only under X (the CAS loop keeps the other fields others may change meanwhile). */
    static void ownership(long[] table, int at, int code) {
        setBits(table, at, OWNERSHIP, (long) code << OWNERSHIP_SHIFT);
    }

    /** Sets or clears flag {@code bit} ({@link #PENDING}, {@link #DRAINING}). */
    static void flag(long[] table, int at, long bit, boolean set) {
        setBits(table, at, bit, set ? bit : 0);
    }

    /** Sets {@link #DRAINING} if clear; true if this call set it. */
    static boolean startDrain(long[] table, int at) {
        while (true) {
            long word = word(table, at);
            if ((word & DRAINING) != 0) {
                return false;
            }
            if (cas(table, at, word, word | DRAINING)) {
                return true;
            }
        }
    }

    private static void setBits(long[] table, int at, long mask, long bits) {
        while (true) {
            long word = word(table, at);
            long next = (word & ~mask) | bits;
            if (next == word || cas(table, at, word, next)) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------- local latch

    /** S without waiting (a waiting writer does not stop it: no-wait callers give up, never queue). */
    static long tryReadLock(long[] table, int at) {
        while (true) {
            long word = word(table, at);
            if ((word & WRITER) != 0 || (word & READERS) == READERS) {
                return 0;
            }
            if (cas(table, at, word, word + 1)) {
                return READ_STAMP;
            }
        }
    }

    /**
     * The hit path's latch: one CAS from {@code word}, the word the caller read and judged (its
     * ownership and flags) before reading the tag. Success means the latch word did not change since,
     * so no writer came between: the tag read in between is still the frame's, and the ownership is
     * the one judged. 0 if the word moved (the caller takes the full path) or a writer holds it.
     */
    static long tryLatchFrom(long[] table, int at, long word, boolean exclusive) {
        if (exclusive) {
            if ((word & (WRITER | READERS)) != 0 || !cas(table, at, word, (word | WRITER) & ~WRITER_WAITING)) {
                return 0;
            }
            VarHandle.storeStoreFence();
            return WRITE_STAMP;
        }
        if ((word & WRITER) != 0 || (word & READERS) == READERS || !cas(table, at, word, word + 1)) {
            return 0;
        }
        return READ_STAMP;
    }

    /** S for a blocking reader: like {@link #tryReadLock}, but a writer that waits goes first. */
    static long tryReadLockBehindWriters(long[] table, int at) {
        while (true) {
            long word = word(table, at);
            if ((word & (WRITER | WRITER_WAITING)) != 0 || (word & READERS) == READERS) {
                return 0;
            }
            if (cas(table, at, word, word + 1)) {
                return READ_STAMP;
            }
        }
    }

    /** A waiting writer that gives up clears its mark (another still waiting sets it again on its next look). */
    static void withdrawWriter(long[] table, int at) {
        setBits(table, at, WRITER_WAITING, 0);
    }

    /**
     * X without waiting. The CAS is retried while the latch stays free: a flag or a waiter's mark changing
     * the word is no reason to fail. The fence keeps the holder's writes to the copy after the writer
     * bit, for optimistic readers (as {@code StampedLock} does).
     */
    static long tryWriteLock(long[] table, int at) {
        while (true) {
            long word = word(table, at);
            if ((word & (WRITER | READERS)) != 0) {
                return 0;
            }
            if (cas(table, at, word, (word | WRITER) & ~WRITER_WAITING)) {
                VarHandle.storeStoreFence();
                return WRITE_STAMP;
            }
        }
    }

    /**
     * Releases S and returns the word it replaced (its flags: {@link #PARKED} set there means a parked
     * thread must be woken, see {@link #wakes}). Only the last reader's release, or one from a full
     * count, clears the mark: before that no waiter could go on.
     */
    static long unlockRead(long[] table, int at) {
        long seen = word(table, at);
        if ((seen & (PARKED | READERS)) > 0 && (seen & PARKED) == 0 && cas(table, at, seen, seen - 1)) {
            return seen; // the common case: nobody parked
        }
        while (true) {
            long word = word(table, at);
            long readers = word & READERS;
            if (readers == 0) {
                throw new IllegalMonitorStateException("unlockRead of a frame latch no reader holds: word=0x"
                    + Long.toHexString(word));
            }
            boolean wakes = (word & PARKED) != 0 && (readers == 1 || readers == READERS);
            if (cas(table, at, word, wakes ? (word - 1) & ~PARKED : word - 1)) {
                return wakes ? word : word & ~PARKED;
            }
        }
    }

    /**
     * Releases X, bumping the version so optimistic readers who overlapped it fail validation; returns the
     * word it replaced (see {@link #wakes}).
     */
    static long unlockWrite(long[] table, int at) {
        long seen = word(table, at);
        if ((seen & (WRITER | PARKED)) == WRITER && cas(table, at, seen, (seen & ~WRITER) + VERSION_ONE)) {
            return seen; // the common case: nobody parked
        }
        while (true) {
            long word = word(table, at);
            if ((word & WRITER) == 0) {
                throw new IllegalMonitorStateException("unlockWrite of a frame latch no writer holds: word=0x"
                    + Long.toHexString(word));
            }
            if (cas(table, at, word, ((word & ~WRITER) + VERSION_ONE) & ~PARKED)) {
                return word;
            }
        }
    }

    /** Whether the release that returned {@code replaced} must wake the threads parked on the frame. */
    static boolean wakes(long replaced) {
        return (replaced & PARKED) != 0;
    }

    /** Whether the release that returned {@code replaced} saw a request pending on the frame. */
    static boolean pendingSeen(long replaced) {
        return (replaced & PENDING) != 0;
    }

    /**
     * Marks the latch as having a parked thread, unless it is available now; false if it was (the caller
     * tries again instead of parking). Called holding the frame's parking lock, which the waking release
     * takes too, so the mark and the wait cannot miss the release between them.
     */
    static boolean markParked(long[] table, int at, boolean exclusive) {
        while (true) {
            long word = word(table, at);
            boolean available = exclusive ? (word & (WRITER | READERS)) == 0
                : (word & (WRITER | WRITER_WAITING)) == 0 && (word & READERS) != READERS;
            if (available) {
                return false;
            }
            long marked = word | PARKED | (exclusive ? WRITER_WAITING : 0);
            if (marked == word || cas(table, at, word, marked)) {
                return true;
            }
        }
    }

    /**
     * X to S atomically (no writer can come between): the version still moves, the copy may have changed.
     * True if a parked thread must be woken (a reader may go now).
     */
    static boolean convertToRead(long[] table, int at) {
        while (true) {
            long word = word(table, at);
            if ((word & WRITER) == 0) {
                throw new IllegalMonitorStateException("downgrade of a frame latch not held in X: word=0x"
                    + Long.toHexString(word));
            }
            if (cas(table, at, word, (((word & ~WRITER) + VERSION_ONE) & ~PARKED) + 1)) {
                return (word & PARKED) != 0;
            }
        }
    }

    /** S to X if this thread is the only reader; 0 (S still held) otherwise. */
    static long tryConvertToWrite(long[] table, int at) {
        while (true) {
            long word = word(table, at);
            if ((word & (WRITER | READERS)) != 1) {
                return 0;
            }
            if (cas(table, at, word, ((word - 1) | WRITER) & ~WRITER_WAITING)) {
                VarHandle.storeStoreFence();
                return WRITE_STAMP;
            }
        }
    }

    /** An optimistic stamp (the version, marked), or 0 while a writer holds the latch. */
    static long tryOptimisticRead(long word) {
        return (word & WRITER) != 0 ? 0 : (word & VERSION) | OPTIMISTIC_MARK;
    }

    /** True if no writer took the latch since {@code stamp} was read. */
    static boolean validate(long[] table, int at, long stamp) {
        VarHandle.acquireFence(); // the reader's loads of the copy happen before this load of the word
        long word = word(table, at);
        return (word & (VERSION | WRITER)) == (stamp & VERSION);
    }

    static int readers(long word) {
        return (int) (word & READERS);
    }
}
