package io.selcc.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A compute-side cache size as given on the command line: a plain number of frames ({@code 25000}),
 * or bytes with a unit ({@code 512KB}, {@code 64MB}, {@code 64MiB}, {@code 1GB}). KB/MB/GB/TB are
 * decimal (10^3 ...) and KiB/MiB/GiB/TiB binary (2^10 ...), as in IEC 80000-13; units ignore case.
 *
 * @param text what was written, for messages
 * @param amount frames, or bytes when {@code inBytes}
 */
public record CacheSize(String text, long amount, boolean inBytes) {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-z]*)");
    private static final long KILO = 1_000L;
    private static final long KIBI = 1L << 10;
    private static final Map<String, Long> BYTES_PER_UNIT = Map.of(
        "b", 1L,
        "kb", KILO, "mb", KILO * KILO, "gb", KILO * KILO * KILO, "tb", KILO * KILO * KILO * KILO,
        "kib", KIBI, "mib", KIBI * KIBI, "gib", KIBI * KIBI * KIBI, "tib", KIBI * KIBI * KIBI * KIBI);
    static final String EXPECTED = "expected a number of frames, or bytes with a unit B, KB, MB, GB, KiB, MiB or GiB,"
        + " e.g. 25000, 64MB, 1GiB";

    /** @throws IllegalArgumentException naming the text when it is not a size */
    public static CacheSize parse(String text) {
        Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a cache size: " + EXPECTED);
        }
        BigDecimal amount = new BigDecimal(m.group(1));
        String unit = m.group(2);
        long factor = 1;
        if (!unit.isEmpty()) {
            Long bytesPerUnit = BYTES_PER_UNIT.get(unit);
            if (bytesPerUnit == null) {
                throw new IllegalArgumentException("'" + text + "' has an unknown unit '" + unit + "': " + EXPECTED);
            }
            factor = bytesPerUnit;
        }
        BigDecimal scaled = amount.multiply(BigDecimal.valueOf(factor));
        try {
            // Fractions of a frame or a byte make no sense; 1.5GB is fine, 2.5 frames is not.
            return new CacheSize(text, scaled.longValueExact(), !unit.isEmpty());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a whole number of "
                + (unit.isEmpty() ? "frames" : "bytes") + " or too large: " + EXPECTED, e);
        }
    }

    /** Frames of {@code gclSize} bytes this size stands for (bytes round down to whole frames). */
    long frames(int gclSize) {
        return inBytes ? amount / gclSize : amount;
    }

    @Override
    public String toString() {
        return text;
    }
}
