package io.selcc.storage;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The byte-level string accessors agree with the String ones for CHAR (zero-padded) and VARCHAR
 * columns: what {@code getStringBytes} copies out and {@code setString(bytes)} writes back reads as the
 * same String, and NULL and too-short buffers are refused or reported. Shown to fail with CHAR's
 * padding left unwritten by the bytes setter (a shorter value then keeps the old value's tail).
 */
class TupleViewStringBytesTest {
    private static final Schema ROW = Schema.builder().addChar("code", 8).addVarchar("name", 12)
        .add("note", ColumnType.VARCHAR, 4, true).build();

    @Test
    void bytesRoundTripAsStrings() {
        TupleView a = new TupleBuffer(ROW).view();
        TupleView b = new TupleBuffer(ROW).view();
        byte[] buffer = new byte[12];
        for (String value : new String[] {"ABCDEFGH", "AB", "", "xyz"}) {
            a.setString(0, value);
            a.setString(1, value + "-v");
            b.setString(0, "ZZZZZZZZ"); // a longer old value: the copy must pad over its tail
            int n = a.getStringBytes(0, buffer);
            assertEquals(value.length(), n);
            b.setString(0, buffer, 0, n);
            assertEquals(value, b.getString(0));
            n = a.getStringBytes(1, buffer);
            b.setString(1, buffer, 0, n);
            assertEquals(value + "-v", b.getString(1));
            assertEquals(value.length(), a.stringLength(0));
        }
        a.setNull(2);
        assertEquals(-1, a.getStringBytes(2, buffer));
        assertEquals(-1, a.stringLength(2));
        a.setString(1, "twelve-chars");
        assertThrows(IllegalArgumentException.class, () -> a.getStringBytes(1, new byte[4]));
        byte[] tooLong = "123456789".getBytes(StandardCharsets.ISO_8859_1);
        assertThrows(IllegalArgumentException.class, () -> b.setString(0, tooLong, 0, tooLong.length));
        assertEquals('w', a.stringByte(1, 1));
    }
}
