package io.selcc.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CacheSizeTest {
    private static final int GCL = 2048;

    @ParameterizedTest
    @CsvSource({
        "25000, 25000",
        "64MB, 31250",
        "64mb, 31250",
        "64MiB, 32768",
        "1GB, 488281",
        "1GiB, 524288",
        "1.5GiB, 786432",
        "512KB, 250",
        "512KiB, 256",
        "4096B, 2",
        "1000B, 0"})
    void framesOf2KiBGcls(String text, long frames) {
        assertEquals(frames, CacheSize.parse(text).frames(GCL));
    }

    @ParameterizedTest
    @CsvSource({"25000, false", "64MB, true", "2048b, true"})
    void remembersWhetherBytesWereGiven(String text, boolean inBytes) {
        assertEquals(inBytes, CacheSize.parse(text).inBytes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.5", "3XB", "MB", "-1", "64 M B", "0.1B", "99999999999999999999"})
    void rejectsWithTheValueInTheMessage(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CacheSize.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }
}
