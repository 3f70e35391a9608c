package io.selcc.tpcc;

import io.selcc.storage.TupleView;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * C_LAST from a number 0..999 ([SPEC] 4.3.2.3): the syllables of its three digits concatenated. The
 * mapping is one-to-one, so the by-last-name index keys on the number.
 */
public final class LastNames {
    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};
    private static final byte[][] SYLLABLE_BYTES = new byte[SYLLABLES.length][];
    private static final String[] NAMES = new String[1000];
    private static final Map<String, Integer> NUMBERS = new HashMap<>();

    static {
        for (int s = 0; s < SYLLABLES.length; s++) {
            SYLLABLE_BYTES[s] = SYLLABLES[s].getBytes(StandardCharsets.ISO_8859_1);
        }
        for (int n = 0; n < NAMES.length; n++) {
            NAMES[n] = SYLLABLES[n / 100] + SYLLABLES[n / 10 % 10] + SYLLABLES[n % 10];
            if (NUMBERS.put(NAMES[n], n) != null) {
                throw new ExceptionInInitializerError("two numbers give the last name " + NAMES[n]);
            }
        }
    }

    private LastNames() {
    }

    /** The last name of {@code number} (0..999). */
    public static String name(int number) {
        if (number < 0 || number >= NAMES.length) {
            throw new IllegalArgumentException("last-name number out of range: number=" + number + " (0..999)");
        }
        return NAMES[number];
    }

    /**
     * The number of the last name in a string column, read from the stored bytes: three syllables, each
     * told apart from the others of its first letter by its later letters (none is a prefix of another).
     * The by-last-name index computes this for every customer a Payment or Delivery updates, twice (old
     * and new row); decoding a String and a map lookup each time cost more.
     *
     * @throws IllegalArgumentException if the column does not hold a TPC-C last name
     */
    public static int number(TupleView row, int column) {
        int length = row.stringLength(column);
        int at = 0;
        int number = 0;
        for (int part = 0; part < 3; part++) {
            int syllable = length > at ? syllableAt(row, column, at, length) : -1;
            if (syllable < 0) {
                throw new IllegalArgumentException("not a TPC-C last name: c_last=" + row.getString(column));
            }
            number = number * 10 + syllable;
            at += SYLLABLE_BYTES[syllable].length;
        }
        if (at != length) {
            throw new IllegalArgumentException("not a TPC-C last name: c_last=" + row.getString(column));
        }
        return number;
    }

    /** The syllable that starts at byte {@code at}, or -1. */
    private static int syllableAt(TupleView row, int column, int at, int length) {
        int first = row.stringByte(column, at);
        for (int s = 0; s < SYLLABLE_BYTES.length; s++) {
            byte[] syllable = SYLLABLE_BYTES[s];
            if (syllable[0] != first || at + syllable.length > length) {
                continue;
            }
            int i = 1;
            while (i < syllable.length && row.stringByte(column, at + i) == syllable[i]) {
                i++;
            }
            if (i == syllable.length) {
                return s;
            }
        }
        return -1;
    }

    /** The number of a last name made by {@link #name(int)}. */
    public static int number(String lastName) {
        Integer number = NUMBERS.get(lastName);
        if (number == null) {
            throw new IllegalArgumentException("not a TPC-C last name: c_last=" + lastName);
        }
        return number;
    }
}
