package io.selcc.wal;

import io.selcc.engine.Redo;
import io.selcc.engine.RedoFixture;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Redos for the wal tests, and the checks that a record read back is the Redo written. */
final class Redos {
    /** One change as a test describes it. */
    record Change(byte kind, int tableId, long key, byte[] image) {
        @Override
        public String toString() {
            return "Change[kind=" + kind + " tableId=" + tableId + " key=" + key + " imageLength=" + image.length + "]";
        }
    }

    private Redos() {
    }

    static Redo of(List<Change> changes) {
        Redo redo = new Redo();
        for (Change c : changes) {
            RedoFixture.add(redo, c.kind(), c.tableId(), c.key(), c.image());
        }
        return redo;
    }

    /**
     * Refills {@code redo} with transaction {@code n}'s changes: an update of row n in table 1 and,
     * every third transaction, an insert into table 2; images carry n so a record names its writer.
     */
    static Redo numbered(Redo redo, long n) {
        RedoFixture.clear(redo);
        RedoFixture.add(redo, Redo.UPDATE, 1, n, image(n, 40));
        if (n % 3 == 0) {
            RedoFixture.add(redo, Redo.INSERT, 2, n + 1_000_000, image(n, 120));
        }
        return redo;
    }

    static byte[] image(long n, int length) {
        byte[] image = new byte[length];
        for (int i = 0; i < length; i++) {
            image[i] = (byte) (n * 31 + i);
        }
        return image;
    }

    /** Asserts {@code record} holds exactly {@code redo}'s changes. */
    static void assertHolds(Redo redo, LogRecord record) {
        assertEquals(redo.size(), record.entries().size(), "entries of sequence " + record.sequence());
        for (int i = 0; i < redo.size(); i++) {
            LogRecord.Entry e = record.entries().get(i);
            String where = "sequence " + record.sequence() + " entry " + i;
            assertEquals(redo.kind(i), e.kind(), where);
            assertEquals(redo.tableId(i), e.tableId(), where);
            assertEquals(redo.key(i), e.key(), where);
            assertEquals(redo.recordId(i), e.recordId(), where);
            byte[] image = new byte[redo.imageLength(i)];
            System.arraycopy(redo.images(), redo.imageOffset(i), image, 0, image.length);
            assertArrayEquals(image, e.image(), where);
        }
    }
}
