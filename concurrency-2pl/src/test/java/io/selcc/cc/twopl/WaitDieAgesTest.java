package io.selcc.cc.twopl;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Wait-die ages: unique, increasing per node, ordered by the clock across nodes, on an injected clock. */
class WaitDieAgesTest {
    private static final long JAN_2026_MICROS = 1_767_225_600_000_000L;

    @Test
    void aStoppedClockStillGivesIncreasingUniqueAges() {
        WaitDieAges ages = new WaitDieAges(3, () -> JAN_2026_MICROS);
        long previous = ages.next();
        for (int i = 0; i < 1_000; i++) { // far more than 16 per microsecond: borrows from the next ones
            long next = ages.next();
            assertTrue(next > previous, "ages grow: " + previous + " then " + next);
            assertEquals(3, next & 63, "the node id is in the low bits");
            previous = next;
        }
    }

    @Test
    void nodesInterleaveByClockAndNeverCollide() {
        AtomicLong clock = new AtomicLong(JAN_2026_MICROS);
        WaitDieAges node0 = new WaitDieAges(0, clock::get);
        WaitDieAges node1 = new WaitDieAges(1, clock::get);
        long a = node1.next();
        long b = node0.next();
        assertTrue(a != b && b < a, "same microsecond and sequence: the node id decides");
        clock.addAndGet(1);
        long c = node0.next();
        assertTrue(c > a, "a later microsecond is younger whichever node drew the earlier age");
        assertThrows(IllegalArgumentException.class, () -> new WaitDieAges(64, clock::get));
    }
}
