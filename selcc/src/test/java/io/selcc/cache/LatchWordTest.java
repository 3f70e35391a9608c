package io.selcc.cache;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Latch-word arithmetic: every transition is one FAA/CAS operand and never corrupts the other field. */
class LatchWordTest {
    private static final int MAX = LatchWord.MAX_COMPUTE_NODES - 1;

    @Property
    void exclusiveNamesItsWriterAndNoReaders(@ForAll @IntRange(min = 0, max = MAX) int node) {
        long word = LatchWord.exclusive(node);
        assertEquals(node, LatchWord.writer(word));
        assertTrue(LatchWord.hasWriter(word));
        assertEquals(0, LatchWord.readers(word));
        assertEquals(LatchWord.FREE, word + LatchWord.releaseExclusiveDelta(node));
    }

    @Property
    void handoverMovesExclusiveOwnershipAndKeepsReaders(@ForAll @IntRange(min = 0, max = MAX) int from,
                                                        @ForAll @IntRange(min = 0, max = MAX) int to,
                                                        @ForAll("readerSets") long readers) {
        long word = LatchWord.exclusive(from) + readers;
        long after = word + LatchWord.handoverDelta(from, to);
        assertEquals(to, LatchWord.writer(after));
        assertEquals(readers, LatchWord.readers(after));
    }

    @Property
    void downgradeLeavesBothAsReaders(@ForAll @IntRange(min = 0, max = MAX) int writer,
                                      @ForAll @IntRange(min = 0, max = MAX) int reader) {
        if (writer == reader) {
            return;
        }
        long after = LatchWord.exclusive(writer) + LatchWord.downgradeDelta(writer, reader);
        assertFalse(LatchWord.hasWriter(after));
        assertEquals(LatchWord.readerBit(writer) | LatchWord.readerBit(reader), LatchWord.readers(after));
    }

    @Property
    void readerAcquireAndReleaseTouchOnlyTheirBit(@ForAll @IntRange(min = 0, max = MAX) int node,
                                                  @ForAll("readerSets") long others,
                                                  @ForAll @IntRange(min = -1, max = MAX) int writer) {
        long readers = others & ~LatchWord.readerBit(node);
        long word = (writer < 0 ? 0 : LatchWord.exclusive(writer)) + readers;
        long acquired = word + LatchWord.readerBit(node);
        assertTrue(LatchWord.isReader(acquired, node));
        assertEquals(writer, LatchWord.writer(acquired));
        assertEquals(word, acquired + LatchWord.releaseSharedDelta(node));
    }

    /**
     * The real invariant: a chain of handovers A->B->C->... applied in order (each owner's FAA completes
     * before it answers, and only the answered node hands on) always names one writer, never reads as
     * free and never touches the reader bitmap.
     */
    @Property
    void handoversInOrderNeverReadAsFree(@ForAll("chains") List<Integer> chain) {
        long readers = 0b1010L;
        long word = LatchWord.exclusive(chain.get(0)) + readers;
        for (int i = 1; i < chain.size(); i++) {
            word += LatchWord.handoverDelta(chain.get(i - 1), chain.get(i));
            assertEquals(chain.get(i).intValue(), LatchWord.writer(word), "after handover " + i);
            assertEquals(readers, LatchWord.readers(word), "handover touched the reader bitmap");
        }
    }

    /**
     * Why handovers must be applied in order: the same deltas out of order can read as free (and can
     * wrap the tag). An earlier javadoc claimed the writer offset made any order safe; it does not.
     */
    @Test
    void handoversOutOfOrderCanReadAsFree() {
        long word = LatchWord.exclusive(0);
        long there = LatchWord.handoverDelta(0, 50);
        long back = LatchWord.handoverDelta(50, 0);
        word += back; // 0->50->0->50->0 with both "back" deltas applied first
        word += back;
        assertEquals(LatchWord.FREE, word, "an intermediate word reads as free");
        word += there;
        word += there;
        assertEquals(LatchWord.exclusive(0), word, "the final sum is still right");
    }

    @Provide
    Arbitrary<Long> readerSets() {
        return Arbitraries.longs().map(l -> l & LatchWord.READER_MASK);
    }

    @Provide
    Arbitrary<List<Integer>> chains() {
        return Arbitraries.integers().between(0, MAX).list().ofMinSize(2).ofMaxSize(6);
    }

    @Test
    void nodeIdsBeyondTheBitmapAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LatchWord.exclusive(56));
        assertTrue(e.getMessage().contains("nodeId=56"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LatchWord.readerBit(-1));
    }

    @Test
    void freeWordHasNoHolders() {
        assertEquals(-1, LatchWord.writer(LatchWord.FREE));
        assertFalse(LatchWord.hasWriter(LatchWord.FREE));
        assertEquals(0, LatchWord.readers(LatchWord.FREE));
    }
}
