package io.selcc.tpcc;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LastNamesTest {
    @Test
    void thousandDistinctNamesThatMapBackToTheirNumbers() {
        Set<String> names = new HashSet<>();
        for (int n = 0; n < 1000; n++) {
            String name = LastNames.name(n);
            assertTrue(name.length() <= 16, () -> "longer than C_LAST's 16: " + name);
            assertEquals(n, LastNames.number(name), name);
            names.add(name);
        }
        assertEquals(1000, names.size());
    }

    @Test
    void specExamples() {
        assertEquals("PRICALLYOUGHT", LastNames.name(371));
        assertEquals("BARPRESBAR", LastNames.name(40));
        assertEquals("BARBARBAR", LastNames.name(0));
        assertEquals("EINGEINGEING", LastNames.name(999));
        assertEquals("OUGHTABLEPRI", LastNames.name(123));
    }

    @Test
    void refusesWhatIsNotALastName() {
        assertThrows(IllegalArgumentException.class, () -> LastNames.name(-1));
        assertThrows(IllegalArgumentException.class, () -> LastNames.name(1000));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LastNames.number("SMITH"));
        assertTrue(e.getMessage().contains("SMITH"), e.getMessage());
    }
}
