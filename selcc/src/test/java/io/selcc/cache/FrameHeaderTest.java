package io.selcc.cache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The frame header's layout and its local latch word: fields inside the header and apart, a zeroed
 * header meaning "no line, latch free, invalid", and each latch transition leaving the other fields
 * alone. Planted bugs caught: a release that does not bump the version (the stale optimistic stamp
 * validates), a downgrade that loses the reader (unlockRead then throws), two fields at one offset.
 */
class FrameHeaderTest {
    private static final long[][] FIELDS = {
        {FrameHeader.TAG, 8}, {FrameHeader.LATCH, 8}, {FrameHeader.OWNERSHIP, 4}, {FrameHeader.PENDING, 4},
        {FrameHeader.DRAINING, 4}, {FrameHeader.REFERENCED, 4}, {FrameHeader.DIRTY_LOW, 4},
        {FrameHeader.DIRTY_HIGH, 4}, {FrameHeader.LOCAL_READS, 4}, {FrameHeader.LOCAL_WRITES, 4},
    };

    @Test
    void fieldsFitTheHeaderAlignedAndApart() {
        assertEquals(64, FrameHeader.SIZE, "one CPU cache line");
        for (int i = 0; i < FIELDS.length; i++) {
            long offset = FIELDS[i][0];
            long size = FIELDS[i][1];
            assertEquals(0, offset % size, "field at " + offset + " aligned for its atomic accesses");
            assertTrue(offset + size <= FrameHeader.SIZE, "field at " + offset + " inside the header");
            for (int j = 0; j < i; j++) {
                boolean apart = offset + size <= FIELDS[j][0] || FIELDS[j][0] + FIELDS[j][1] <= offset;
                assertTrue(apart, "fields at " + offset + " and " + FIELDS[j][0] + " overlap");
            }
        }
    }

    @Test
    void latchBitsAreDisjointAndTheVersionIsAbove() {
        long[] parts = {FrameHeader.READERS, FrameHeader.PARKED, FrameHeader.OPTIMISTIC_MARK,
            FrameHeader.WRITER_WAITING, FrameHeader.WRITER, FrameHeader.VERSION};
        long all = 0;
        for (long part : parts) {
            assertEquals(0, all & part, "latch word parts overlap: 0x" + Long.toHexString(part));
            all |= part;
        }
        assertEquals(-1L, all, "every bit of the latch word has a meaning");
        assertEquals(FrameHeader.VERSION_ONE, Long.lowestOneBit(FrameHeader.VERSION));
    }

    @Test
    void aZeroedHeaderHoldsNoLineAndAFreeLatch() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pool = arena.allocate(FrameHeader.SIZE, 64);
            assertEquals(FrameHeader.NO_TAG, FrameHeader.tag(pool, 0));
            assertEquals(FrameHeader.INVALID, FrameHeader.ownership(pool, 0));
            assertEquals(Ownership.INVALID, CacheFrame.decode(FrameHeader.ownership(pool, 0)));
            assertFalse(CacheFrame.maybePending(pool, 0));
            assertNotEquals(0, FrameHeader.tryOptimisticRead(pool, 0), "an optimistic stamp is never 0");
            assertNotEquals(0, FrameHeader.tryWriteLock(pool, 0), "a zeroed latch is free");
        }
    }

    @Test
    void transitionsKeepTheOtherFieldsAndMoveTheVersionOnExclusiveReleases() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pool = arena.allocate(2L * FrameHeader.SIZE, 64);
            long h = FrameHeader.SIZE; // the second header: the first must stay untouched
            FrameHeader.tag(pool, h, 0x1234_5000L);
            for (Ownership o : Ownership.values()) {
                FrameHeader.ownership(pool, h, CacheFrame.encode(o));
                assertEquals(o, CacheFrame.decode(FrameHeader.ownership(pool, h)));
            }
            long optimistic = FrameHeader.tryOptimisticRead(pool, h);
            assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(pool, h));
            assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(pool, h));
            assertEquals(2, FrameHeader.readers(FrameHeader.latchWord(pool, h)));
            assertEquals(0, FrameHeader.tryWriteLock(pool, h), "X while readers hold it");
            assertEquals(0, FrameHeader.tryConvertToWrite(pool, h), "S to X with another reader");
            assertTrue(FrameHeader.validate(pool, h, optimistic), "readers do not invalidate");
            assertFalse(FrameHeader.unlockRead(pool, h));
            assertEquals(FrameHeader.WRITE_STAMP, FrameHeader.tryConvertToWrite(pool, h), "the only reader upgrades");
            assertEquals(0, FrameHeader.tryOptimisticRead(pool, h), "no optimistic read under X");
            assertEquals(0, FrameHeader.tryReadLock(pool, h));
            assertFalse(FrameHeader.validate(pool, h, optimistic), "a writer holds it");
            assertFalse(FrameHeader.convertToRead(pool, h));
            assertEquals(1, FrameHeader.readers(FrameHeader.latchWord(pool, h)), "the downgrade keeps its reader");
            assertFalse(FrameHeader.validate(pool, h, optimistic), "an X came and went: the version moved");
            assertFalse(FrameHeader.unlockRead(pool, h));
            assertEquals(0, FrameHeader.readers(FrameHeader.latchWord(pool, h)));
            assertThrows(IllegalMonitorStateException.class, () -> FrameHeader.unlockRead(pool, h));
            assertThrows(IllegalMonitorStateException.class, () -> FrameHeader.unlockWrite(pool, h));
            assertEquals(0x1234_5000L, FrameHeader.tag(pool, h), "the latch left the tag alone");
            assertEquals(0, pool.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0), "the neighbour header untouched");
            assertEquals(0, pool.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8));
        }
    }

    /** A blocking writer marks the word; the release that lets it go on reports it, so the frame wakes it. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aParkedWaiterIsReportedByTheReleaseThatClearsTheMark() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pool = arena.allocate(FrameHeader.SIZE, 64);
            assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(pool, 0));
            assertTrue(FrameHeader.markParked(pool, 0, true), "held: a writer parks");
            assertEquals(0, FrameHeader.tryReadLockBehindWriters(pool, 0), "a blocking reader lets the writer go first");
            assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(pool, 0), "a no-wait reader does not queue");
            assertFalse(FrameHeader.unlockRead(pool, 0), "a release that leaves a reader wakes nobody: the writer could not go");
            assertTrue(FrameHeader.unlockRead(pool, 0), "the last release reports the parked writer");
            assertEquals(FrameHeader.WRITE_STAMP, FrameHeader.tryWriteLock(pool, 0));
            assertFalse(FrameHeader.unlockWrite(pool, 0), "the mark was cleared");
        }
    }
}
