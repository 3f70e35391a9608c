package io.selcc.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DurationsTest {
    @ParameterizedTest
    @CsvSource({
        "2us, 2000",
        "2µs, 2000",
        "500ns, 500",
        "1.5ms, 1500000",
        "500ms, 500000000",
        "10s, 10000000000",
        "1m, 60000000000",
        "1h, 3600000000000",
        "0, 0",
        "0s, 0",
        "10S, 10000000000",
        "' 2us ', 2000"})
    void parses(String text, long nanos) {
        assertEquals(nanos, Durations.parse(text).toNanos());
    }

    @ParameterizedTest
    @ValueSource(strings = {"5", "abc", "-1s", "10x", "", "s", "1.5.2s", "2 u s"})
    void rejectsWithTheValueInTheMessage(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }

    @Test
    void rejectsOverflow() {
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("99999999999999h"));
    }
}
