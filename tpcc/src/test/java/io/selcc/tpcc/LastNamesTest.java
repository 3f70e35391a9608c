package io.selcc.tpcc;

import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;
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

    /**
     * The decoder of stored bytes agrees with the map for all 1,000 names and refuses the rest. Shown to
     * fail with the final length check removed ("BARBARBARBAR" then decodes as 0).
     */
    @Test
    void storedNamesDecodeWithoutAString() {
        Schema schema = Schema.builder().add("c_last", io.selcc.storage.ColumnType.VARCHAR, 16, true).build();
        TupleView row = new TupleView(schema).wrap(new TupleBuffer(schema));
        for (int n = 0; n < 1000; n++) {
            row.setString(0, LastNames.name(n));
            assertEquals(n, LastNames.number(row, 0), LastNames.name(n));
        }
        for (String bad : new String[] {"", "BAR", "BARBAR", "BARBARBARBAR", "BARBARBARB", "PRIX", "BARBARPRE",
            "barbarbar", "SMITH"}) {
            row.setString(0, bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LastNames.number(row, 0), bad);
            assertTrue(e.getMessage().contains("c_last=" + bad), e.getMessage());
        }
        row.setNull(0);
        assertThrows(IllegalArgumentException.class, () -> LastNames.number(row, 0));
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
