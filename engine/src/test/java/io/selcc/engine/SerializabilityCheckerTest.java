package io.selcc.engine;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The checker itself must reject what is not serializable. */
class SerializabilityCheckerTest {
    @Test
    void acceptsASerialHistory() {
        SerializabilityChecker.check(List.of(
            new SerializabilityChecker.Committed(1, List.of(new long[] {1, 0}), List.of(new long[] {1, 0})),
            new SerializabilityChecker.Committed(2, List.of(new long[] {1, 1}), List.of(new long[] {2, 0}))));
    }

    @Test
    void rejectsWriteSkew() {
        // T1 reads x,y (initial), writes x; T2 reads x,y (initial), writes y: rw edges both ways.
        AssertionError e = assertThrows(AssertionError.class, () -> SerializabilityChecker.check(List.of(
            new SerializabilityChecker.Committed(1, List.of(new long[] {1, 0}, new long[] {2, 0}), List.of(new long[] {1, 0})),
            new SerializabilityChecker.Committed(2, List.of(new long[] {1, 0}, new long[] {2, 0}), List.of(new long[] {2, 0})))));
        assertTrue(e.getMessage().contains("cycle"), e.getMessage());
    }

    @Test
    void rejectsALostUpdate() {
        AssertionError e = assertThrows(AssertionError.class, () -> SerializabilityChecker.check(List.of(
            new SerializabilityChecker.Committed(1, List.of(), List.of(new long[] {1, 0})),
            new SerializabilityChecker.Committed(2, List.of(), List.of(new long[] {1, 0})))));
        assertTrue(e.getMessage().contains("lost update"), e.getMessage());
    }
}
