package io.selcc.cache;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The frame header's layout and its latch and state word: words inside the header, a zeroed header
 * meaning "no line, latch free, invalid", the word's parts disjoint, and each latch transition leaving
 * the other fields (tag, ownership, flags, the neighbour frame) alone. Planted bugs caught: a release
 * that does not bump the version (the stale optimistic stamp validates), a downgrade that loses the
 * reader (unlockRead then throws), a latch transition that clears the ownership bits.
 */
class FrameHeaderTest {
    @Test
    void wordsFitTheHeader() {
        assertEquals(64, FrameHeader.WORDS * Long.BYTES, "one CPU cache line per frame");
        int[] words = {FrameHeader.TAG, FrameHeader.LATCH, FrameHeader.REFERENCED, FrameHeader.DIRTY, FrameHeader.LEASE};
        for (int i = 0; i < words.length; i++) {
            assertTrue(words[i] >= 0 && words[i] < FrameHeader.WORDS, "word " + words[i] + " inside the header");
            for (int j = 0; j < i; j++) {
                assertNotEquals(words[i], words[j], "two fields in one word");
            }
        }
        assertEquals(3 * FrameHeader.WORDS, FrameHeader.at(3));
    }

    @Test
    void latchWordPartsAreDisjointAndCoverTheWord() {
        long[] parts = {FrameHeader.READERS, FrameHeader.PARKED, FrameHeader.OPTIMISTIC_MARK, FrameHeader.WRITER_WAITING,
            FrameHeader.WRITER, FrameHeader.OWNERSHIP, FrameHeader.PENDING, FrameHeader.DRAINING, FrameHeader.VERSION};
        long all = 0;
        for (long part : parts) {
            assertEquals(0, all & part, "latch word parts overlap: 0x" + Long.toHexString(part));
            all |= part;
        }
        assertEquals(-1L, all, "every bit of the latch word has a meaning");
        assertEquals(FrameHeader.VERSION_ONE, Long.lowestOneBit(FrameHeader.VERSION));
        for (Ownership o : Ownership.values()) {
            long word = (long) CacheFrame.encode(o) << FrameHeader.OWNERSHIP_SHIFT;
            assertEquals(word, word & FrameHeader.OWNERSHIP, o + " fits its bits");
        }
    }

    @Test
    void aZeroedHeaderHoldsNoLineAndAFreeLatch() {
        long[] table = new long[FrameHeader.WORDS];
        assertEquals(FrameHeader.NO_TAG, FrameHeader.tag(table, 0));
        long word = FrameHeader.word(table, 0);
        assertEquals(Ownership.INVALID, CacheFrame.decode(FrameHeader.ownership(word)));
        assertEquals(0, word & (FrameHeader.PENDING | FrameHeader.DRAINING));
        assertNotEquals(0, FrameHeader.tryOptimisticRead(word), "an optimistic stamp is never 0");
        assertNotEquals(0, FrameHeader.tryWriteLock(table, 0), "a zeroed latch is free");
    }

    @Test
    void transitionsKeepTheOtherFieldsAndMoveTheVersionOnExclusiveReleases() {
        long[] table = new long[2 * FrameHeader.WORDS];
        int h = FrameHeader.at(1); // the second frame: the first must stay untouched
        FrameHeader.tag(table, h, 0x1234_5000L);
        FrameHeader.ownership(table, h, FrameHeader.SHARED);
        FrameHeader.flag(table, h, FrameHeader.PENDING, true);
        long optimistic = FrameHeader.tryOptimisticRead(FrameHeader.word(table, h));
        assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(table, h));
        assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(table, h));
        assertEquals(2, FrameHeader.readers(FrameHeader.word(table, h)));
        assertEquals(0, FrameHeader.tryWriteLock(table, h), "X while readers hold it");
        assertEquals(0, FrameHeader.tryConvertToWrite(table, h), "S to X with another reader");
        assertTrue(FrameHeader.validate(table, h, optimistic), "readers do not invalidate");
        assertTrue(FrameHeader.pendingSeen(FrameHeader.unlockRead(table, h)), "a release reports the pending flag");
        assertEquals(FrameHeader.WRITE_STAMP, FrameHeader.tryConvertToWrite(table, h), "the only reader upgrades");
        assertEquals(0, FrameHeader.tryOptimisticRead(FrameHeader.word(table, h)), "no optimistic read under X");
        assertEquals(0, FrameHeader.tryReadLock(table, h));
        assertFalse(FrameHeader.validate(table, h, optimistic), "a writer holds it");
        FrameHeader.ownership(table, h, FrameHeader.MODIFIED);
        assertFalse(FrameHeader.convertToRead(table, h));
        assertEquals(1, FrameHeader.readers(FrameHeader.word(table, h)), "the downgrade keeps its reader");
        assertFalse(FrameHeader.validate(table, h, optimistic), "an X came and went: the version moved");
        assertFalse(FrameHeader.wakes(FrameHeader.unlockRead(table, h)));
        long word = FrameHeader.word(table, h);
        assertEquals(0, FrameHeader.readers(word));
        assertEquals(FrameHeader.MODIFIED, FrameHeader.ownership(word), "the latch left the ownership alone");
        assertTrue((word & FrameHeader.PENDING) != 0, "and the pending flag");
        long before = FrameHeader.tryOptimisticRead(FrameHeader.word(table, h));
        assertEquals(FrameHeader.WRITE_STAMP, FrameHeader.tryWriteLock(table, h));
        FrameHeader.unlockWrite(table, h);
        assertFalse(FrameHeader.validate(table, h, before), "an exclusive release moves the version");
        assertThrows(IllegalMonitorStateException.class, () -> FrameHeader.unlockRead(table, h));
        assertThrows(IllegalMonitorStateException.class, () -> FrameHeader.unlockWrite(table, h));
        assertEquals(0x1234_5000L, FrameHeader.tag(table, h), "the latch left the tag alone");
        for (int i = 0; i < FrameHeader.WORDS; i++) {
            assertEquals(0, table[i], "the neighbour frame's header untouched");
        }
    }

    @Test
    void packedFieldsKeepTheirHalves() {
        long[] table = new long[FrameHeader.WORDS];
        FrameHeader.dirty(table, 0, FrameHeader.CLEAN, 0);
        assertEquals(FrameHeader.CLEAN, FrameHeader.dirtyLow(table, 0));
        FrameHeader.widenDirty(table, 0, 100, 200);
        FrameHeader.widenDirty(table, 0, 8, 150);
        assertEquals(8, FrameHeader.dirtyLow(table, 0));
        assertEquals(200, FrameHeader.dirtyHigh(table, 0));
        assertEquals(1, FrameHeader.countLeaseRead(table, 0));
        assertEquals(2, FrameHeader.countLeaseRead(table, 0));
        assertEquals(1, FrameHeader.countLeaseWrite(table, 0));
        assertEquals(2, FrameHeader.leaseReads(table, 0));
        assertEquals(1, FrameHeader.leaseWrites(table, 0));
    }

    /** A blocking writer marks the word; the release that lets it go on reports it, so the frame wakes it. */
    @Test
    void aParkedWaiterIsReportedByTheReleaseThatLetsItGoOn() {
        long[] table = new long[FrameHeader.WORDS];
        assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(table, 0));
        assertTrue(FrameHeader.markParked(table, 0, true), "held: a writer parks");
        assertEquals(0, FrameHeader.tryReadLockBehindWriters(table, 0), "a blocking reader lets the writer go first");
        assertEquals(FrameHeader.READ_STAMP, FrameHeader.tryReadLock(table, 0), "a no-wait reader does not queue");
        assertFalse(FrameHeader.wakes(FrameHeader.unlockRead(table, 0)), "a release that leaves a reader wakes nobody");
        assertTrue(FrameHeader.wakes(FrameHeader.unlockRead(table, 0)), "the last release reports the parked writer");
        assertEquals(FrameHeader.WRITE_STAMP, FrameHeader.tryWriteLock(table, 0));
        assertFalse(FrameHeader.wakes(FrameHeader.unlockWrite(table, 0)), "the mark was cleared");
    }
}
