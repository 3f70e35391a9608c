package io.selcc.cli;

import io.selcc.cache.AccessMode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;
import java.util.Locale;

/**
 * Picocli converters for flag values. Each throws {@link TypeConversionException} with a message that
 * quotes the bad value; picocli prefixes the flag name, so the user sees both. Converters for the
 * shared mixins are package-private; those a subcommand may use are public.
 */
public final class Converters {
    /** Bounds of a percentage flag. */
    static final int MIN_PERCENT = 0;
    static final int MAX_PERCENT = 100;

    private Converters() {
    }

    /** {@code 2us}, {@code 10s}, {@code 0}: see {@link Durations}. */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Durations.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Frames or bytes with a unit: see {@link CacheSize}. */
    static final class CacheSizeConverter implements ITypeConverter<CacheSize> {
        @Override
        public CacheSize convert(String value) {
            try {
                return CacheSize.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code selcc} or {@code sel}, any case. */
    static final class AccessModeConverter implements ITypeConverter<AccessMode> {
        @Override
        public AccessMode convert(String value) {
            try {
                return AccessMode.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not an access mode (expected selcc or sel)");
            }
        }
    }

    /** {@code on} or {@code off} (also {@code true}/{@code false}). */
    static final class OnOffConverter implements ITypeConverter<Boolean> {
        @Override
        public Boolean convert(String value) {
            return switch (value.strip().toLowerCase(Locale.ROOT)) {
                case "on", "true" -> Boolean.TRUE;
                case "off", "false" -> Boolean.FALSE;
                default -> throw new TypeConversionException("'" + value + "' is neither on nor off");
            };
        }
    }

    /** A whole percentage in [0, 100]. */
    public static final class PercentConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int percent;
            try {
                percent = Integer.parseInt(value.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a whole percentage in [0, 100]");
            }
            if (percent < MIN_PERCENT || percent > MAX_PERCENT) {
                throw new TypeConversionException("'" + value + "' is not a whole percentage in [0, 100]");
            }
            return percent;
        }
    }

    /** {@code auto}, {@code unlimited} or a whole number >= 1: how many transactions a compute node runs at once. */
    public static final class ActivePerNodeConverter implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            String given = value.strip().toLowerCase(Locale.ROOT);
            if (given.equals("auto")) {
                return io.selcc.tpcc.run.RunSpec.AUTO_ACTIVE;
            }
            if (given.equals("unlimited")) {
                return io.selcc.tpcc.driver.DriverConfig.UNLIMITED;
            }
            int n = given.matches("[0-9]{1,9}") ? Integer.parseInt(given) : 0;
            if (n < 1) {
                throw new TypeConversionException("'" + value + "' is not auto, unlimited or a whole number >= 1");
            }
            return n;
        }
    }

    /** The value of {@code choices} whose label is {@code value}; else a conversion error naming them. */
    private static <E> E byLabel(E[] choices, java.util.function.Function<E, String> label, String value, String what) {
        for (E choice : choices) {
            if (label.apply(choice).equals(value)) {
                return choice;
            }
        }
        throw new TypeConversionException("'" + value + "' is not " + what + ": "
            + String.join(" or ", java.util.Arrays.stream(choices).map(label).toList()));
    }

    /** {@code local} or {@code tcp}. */
    public static final class FabricConverter implements ITypeConverter<ClusterSettings.FabricChoice> {
        @Override
        public ClusterSettings.FabricChoice convert(String value) {
            return byLabel(ClusterSettings.FabricChoice.values(), ClusterSettings.FabricChoice::label, value, "a fabric");
        }
    }

    /** {@code home} or {@code spread}. */
    public static final class PlacementConverter implements ITypeConverter<io.selcc.tpcc.driver.TerminalPlacement.Placement> {
        @Override
        public io.selcc.tpcc.driver.TerminalPlacement.Placement convert(String value) {
            return byLabel(io.selcc.tpcc.driver.TerminalPlacement.Placement.values(),
                io.selcc.tpcc.driver.TerminalPlacement.Placement::label, value, "a placement");
        }
    }

    /** {@code virtual} or {@code platform}. */
    public static final class TerminalThreadsConverter implements ITypeConverter<io.selcc.tpcc.driver.DriverConfig.TerminalThreads> {
        @Override
        public io.selcc.tpcc.driver.DriverConfig.TerminalThreads convert(String value) {
            return byLabel(io.selcc.tpcc.driver.DriverConfig.TerminalThreads.values(),
                io.selcc.tpcc.driver.DriverConfig.TerminalThreads::label, value, "a kind of thread");
        }
    }
}
