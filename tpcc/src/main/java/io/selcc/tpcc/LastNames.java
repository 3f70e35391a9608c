package io.selcc.tpcc;

import java.util.HashMap;
import java.util.Map;

/**
 * C_LAST from a number 0..999 ([SPEC] 4.3.2.3): the syllables of its three digits concatenated. The
 * mapping is one-to-one, so the by-last-name index keys on the number.
 */
public final class LastNames {
    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};
    private static final String[] NAMES = new String[1000];
    private static final Map<String, Integer> NUMBERS = new HashMap<>();

    static {
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

    /** The number of a last name made by {@link #name(int)}. */
    public static int number(String lastName) {
        Integer number = NUMBERS.get(lastName);
        if (number == null) {
            throw new IllegalArgumentException("not a TPC-C last name: c_last=" + lastName);
        }
        return number;
    }
}
