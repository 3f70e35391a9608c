package io.selcc.cache;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The off-heap header of a cache frame: the state a cache hit needs, in the 64 bytes before the frame's
 * copy of its line in the node's pool, so a hit reads one CPU cache line and no Java object.
 *
 * <pre>
 * offset  size  field
 * 0       8     tag: the GCL address cached, {@link #NO_TAG} for none; changes only under the X latch
 * 8       8     local latch word (below)
 * 16      4     ownership: {@link #INVALID}, {@link #SHARED} or {@link #MODIFIED}; changes only under X
 * 20      4     pending flag: 1 while (or just after) a remote request waits on the frame
 * 24      4     draining flag: 1 while one thread drains the local holders to serve a request
 * 28      4     CLOCK reference bit: set by a hit, cleared by the evictor (racy, a hint)
 * 32      4     dirty low: first dirty byte of the copy, {@link #CLEAN} when clean; under X
 * 36      4     dirty high: one past the last dirty byte; under X
 * 40      4     local reads counted against a pending request's lease (paper 5.3.1)
 * 44      4     local writes counted against it
 * 48      16    reserved (zero)
 * </pre>
 *
 * <p>Local latch word:
 * <pre>
 *  63                               16  15   14   13   12   11          0
 * +-----------------------------------+----+----+----+----+-------------+
 * |            version                | X  | WW | 0  | PK | readers     |
 * +-----------------------------------+----+----+----+----+-------------+
 * </pre>
 * {@code readers} counts shared holders (at most 4,095: a reader beyond that is refused, or waits);
 * {@code X} is the exclusive holder; {@code WW} says a blocking writer waits, which turns blocking
 * readers away (no-wait readers still pass it, as they passed {@code StampedLock}'s queue); {@code PK}
 * says a thread parks on the frame's monitor, so the release that clears it must wake it; the version
 * grows by one at every exclusive release, so an optimistic reader that saw version v with X clear and
 * sees them again afterwards read bytes no writer changed (the seqlock pattern). Bit 13 is never set in
 * the word: it marks a stamp as optimistic, so an optimistic stamp is never 0 ("not taken").
 *
 * <p>Zero is a valid header for a frame on the free list (no tag, latch free, invalid; the dirty bounds
 * are set when a line is installed): a pool fresh from the OS needs no initialising pass, and its pages
 * become resident as frames fill.
 */
final class FrameHeader {
    static final int SIZE = 64;

    static final long TAG = 0;
    static final long LATCH = 8;
    static final long OWNERSHIP = 16;
    static final long PENDING = 20;
    static final long DRAINING = 24;
    static final long REFERENCED = 28;
    static final long DIRTY_LOW = 32;
    static final long DIRTY_HIGH = 36;
    static final long LOCAL_READS = 40;
    static final long LOCAL_WRITES = 44;

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
    static final long VERSION_ONE = 1L << 16;
    static final long VERSION = -VERSION_ONE;
    /** Stamps of a held latch: nonzero, so 0 stays "not taken". The latch word itself is the truth. */
    static final long READ_STAMP = 1;
    static final long WRITE_STAMP = 2;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private FrameHeader() {
    }

    // ---------------------------------------------------------------- tag, ownership, flags

    static long tag(MemorySegment pool, long header) {
        return (long) LONG.getVolatile(pool, header + TAG);
    }

    static void tag(MemorySegment pool, long header, long address) {
        LONG.setVolatile(pool, header + TAG, address);
    }

    static int ownership(MemorySegment pool, long header) {
        return (int) INT.getVolatile(pool, header + OWNERSHIP);
    }

    static void ownership(MemorySegment pool, long header, int code) {
        INT.setVolatile(pool, header + OWNERSHIP, code);
    }

    /** Whether ownership {@code code} lets a latch of that mode be a hit. */
    static boolean permits(int code, boolean exclusive) {
        return exclusive ? code == MODIFIED : code != INVALID;
    }

    static int flag(MemorySegment pool, long header, long field) {
        return (int) INT.getVolatile(pool, header + field);
    }

    static void flag(MemorySegment pool, long header, long field, int value) {
        INT.setVolatile(pool, header + field, value);
    }

    static boolean casFlag(MemorySegment pool, long header, long field, int expected, int next) {
        return INT.compareAndSet(pool, header + field, expected, next);
    }

    /** A plain read, for the racy CLOCK bit (a hit writes it only when it changes). */
    static int plainInt(MemorySegment pool, long header, long field) {
        return (int) INT.get(pool, header + field);
    }

    static void plainInt(MemorySegment pool, long header, long field, int value) {
        INT.set(pool, header + field, value);
    }

    static int addInt(MemorySegment pool, long header, long field, int delta) {
        return (int) INT.getAndAdd(pool, header + field, delta) + delta;
    }

    // ---------------------------------------------------------------- local latch

    static long latchWord(MemorySegment pool, long header) {
        return (long) LONG.getVolatile(pool, header + LATCH);
    }

    private static boolean casLatch(MemorySegment pool, long header, long expected, long next) {
        return LONG.compareAndSet(pool, header + LATCH, expected, next);
    }

    /** S without waiting (a waiting writer does not stop it: no-wait callers give up, never queue). */
    static long tryReadLock(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & WRITER) != 0 || (word & READERS) == READERS) {
                return 0;
            }
            if (casLatch(pool, header, word, word + 1)) {
                return READ_STAMP;
            }
        }
    }

    /** S for a blocking reader: like {@link #tryReadLock}, but a writer that waits goes first. */
    static long tryReadLockBehindWriters(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & (WRITER | WRITER_WAITING)) != 0 || (word & READERS) == READERS) {
                return 0;
            }
            if (casLatch(pool, header, word, word + 1)) {
                return READ_STAMP;
            }
        }
    }

    /** A waiting writer that gives up clears its mark (another still waiting sets it again on its next look). */
    static void withdrawWriter(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & WRITER_WAITING) == 0 || casLatch(pool, header, word, word & ~WRITER_WAITING)) {
                return;
            }
        }
    }

    /**
     * X without waiting. The CAS is retried while the latch stays free: a waiter's mark changing the
     * word is no reason to fail. The fence keeps the holder's writes to the copy after the writer bit,
     * for optimistic readers (as {@code StampedLock} does).
     */
    static long tryWriteLock(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & (WRITER | READERS)) != 0) {
                return 0;
            }
            if (casLatch(pool, header, word, (word | WRITER) & ~WRITER_WAITING)) {
                VarHandle.storeStoreFence();
                return WRITE_STAMP;
            }
        }
    }

    /**
     * Releases S; true if a thread parked on the frame must be woken (the caller does, see {@link #PARKED}).
     * Only the last reader's release, or one from a full count, wakes: before that no waiter could go on.
     */
    static boolean unlockRead(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            long readers = word & READERS;
            if (readers == 0) {
                throw new IllegalMonitorStateException("unlockRead of a frame latch no reader holds: word=0x"
                    + Long.toHexString(word));
            }
            boolean wakes = (word & PARKED) != 0 && (readers == 1 || readers == READERS);
            if (casLatch(pool, header, word, wakes ? (word - 1) & ~PARKED : word - 1)) {
                return wakes;
            }
        }
    }

    /**
     * Releases X and bumps the version, so optimistic readers who overlapped it fail validation; true if
     * a thread parked on the frame must be woken.
     */
    static boolean unlockWrite(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & WRITER) == 0) {
                throw new IllegalMonitorStateException("unlockWrite of a frame latch no writer holds: word=0x"
                    + Long.toHexString(word));
            }
            if (casLatch(pool, header, word, ((word & ~WRITER) + VERSION_ONE) & ~PARKED)) {
                return (word & PARKED) != 0;
            }
        }
    }

    /**
     * Marks the latch as having a parked thread, unless it is {@code available} now; false if it was (the
     * caller tries again instead of parking). Called under the frame's monitor, which the waking release
     * takes too, so the mark and the wait cannot miss the release between them.
     */
    static boolean markParked(MemorySegment pool, long header, boolean exclusive) {
        while (true) {
            long word = latchWord(pool, header);
            boolean available = exclusive ? (word & (WRITER | READERS)) == 0
                : (word & (WRITER | WRITER_WAITING)) == 0 && (word & READERS) != READERS;
            if (available) {
                return false;
            }
            long marked = word | PARKED | (exclusive ? WRITER_WAITING : 0);
            if (marked == word || casLatch(pool, header, word, marked)) {
                return true;
            }
        }
    }

    /**
     * X to S atomically (no writer can come between): the version still moves, the copy may have changed.
     * True if a parked thread must be woken (a reader may go now).
     */
    static boolean convertToRead(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & WRITER) == 0) {
                throw new IllegalMonitorStateException("downgrade of a frame latch not held in X: word=0x"
                    + Long.toHexString(word));
            }
            if (casLatch(pool, header, word, (((word & ~WRITER) + VERSION_ONE) & ~PARKED) + 1)) {
                return (word & PARKED) != 0;
            }
        }
    }

    /** S to X if this thread is the only reader; 0 (S still held) otherwise. */
    static long tryConvertToWrite(MemorySegment pool, long header) {
        while (true) {
            long word = latchWord(pool, header);
            if ((word & (WRITER | READERS)) != 1) {
                return 0;
            }
            if (casLatch(pool, header, word, ((word - 1) | WRITER) & ~WRITER_WAITING)) {
                VarHandle.storeStoreFence();
                return WRITE_STAMP;
            }
        }
    }

    /** An optimistic stamp (the version, marked), or 0 while a writer holds the latch. */
    static long tryOptimisticRead(MemorySegment pool, long header) {
        long word = latchWord(pool, header);
        return (word & WRITER) != 0 ? 0 : (word & VERSION) | OPTIMISTIC_MARK;
    }

    /** True if no writer took the latch since {@code stamp} was read. */
    static boolean validate(MemorySegment pool, long header, long stamp) {
        VarHandle.acquireFence(); // the reader's loads of the copy happen before this load of the word
        long word = latchWord(pool, header);
        return (word & (VERSION | WRITER)) == (stamp & VERSION);
    }

    static int readers(long word) {
        return (int) (word & READERS);
    }

    static boolean writeLocked(long word) {
        return (word & WRITER) != 0;
    }
}
