package io.selcc.engine;

import io.selcc.storage.Schema;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Configuration errors are refused before anything is built, with the bad value named. */
class DatabaseConfigurationTest {
    static final Schema ONE = Schema.builder().addLong("id").build();

    @Test
    void unknownConcurrencyControlIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Database.builder().cc("mvcc").build());
        assertTrue(e.getMessage().contains("cc=mvcc"), e.getMessage());
    }

    @Test
    void theAlgorithmMustBeChosen() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Database.builder().build());
        assertTrue(e.getMessage().contains("no concurrency control chosen"), e.getMessage());
    }

    @Test
    void indexOnAnUnknownTableIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Database.builder()
            .table(TableDefinition.of("t", ONE, row -> row.getLong(0)))
            .index(new IndexDefinition("t.x", "missing", false, row -> 0)).cc("2pl").build());
        assertTrue(e.getMessage().contains("table=missing"), e.getMessage());
    }

    @Test
    void tableDefinedTwiceIsNamed() {
        Database.Builder builder = Database.builder().table(TableDefinition.of("t", ONE, row -> row.getLong(0)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> builder.table(TableDefinition.of("t", ONE, row -> row.getLong(0))));
        assertTrue(e.getMessage().contains("table=t"), e.getMessage());
    }
}
