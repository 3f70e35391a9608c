package io.selcc.cli;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations written the way people write them on a command line: {@code 500ns}, {@code 2us},
 * {@code 1.5ms}, {@code 10s}, {@code 1m}, {@code 1h}, and a bare {@code 0}. A bare non-zero number is
 * rejected: whether {@code 2} means seconds or microseconds depends on the flag, so it must be spelled.
 */
final class Durations {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-zµ]*)");
    private static final long NANOS_PER_MICRO = 1_000L;
    private static final long NANOS_PER_MILLI = 1_000_000L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long SECONDS_PER_MINUTE = 60;
    private static final long MINUTES_PER_HOUR = 60;
    private static final Map<String, Long> NANOS_PER_UNIT = Map.of(
        "ns", 1L,
        "us", NANOS_PER_MICRO,
        "µs", NANOS_PER_MICRO,
        "ms", NANOS_PER_MILLI,
        "s", NANOS_PER_SECOND,
        "m", SECONDS_PER_MINUTE * NANOS_PER_SECOND,
        "h", MINUTES_PER_HOUR * SECONDS_PER_MINUTE * NANOS_PER_SECOND);
    static final String EXPECTED = "expected a number with a unit ns, us, ms, s, m or h, e.g. 500ns, 2us, 10s, 1m; or 0";

    private Durations() {
    }

    /** @throws IllegalArgumentException naming the text when it is not a duration */
    static Duration parse(String text) {
        Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: " + EXPECTED);
        }
        BigDecimal amount = new BigDecimal(m.group(1));
        String unit = m.group(2);
        if (unit.isEmpty()) {
            if (amount.signum() == 0) {
                return Duration.ZERO;
            }
            throw new IllegalArgumentException("'" + text + "' has no unit: " + EXPECTED);
        }
        Long factor = NANOS_PER_UNIT.get(unit);
        if (factor == null) {
            throw new IllegalArgumentException("'" + text + "' has an unknown unit '" + unit + "': " + EXPECTED);
        }
        BigDecimal nanos = amount.multiply(BigDecimal.valueOf(factor));
        try {
            return Duration.ofNanos(nanos.toBigInteger().longValueExact());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is too long a duration", e);
        }
    }
}
