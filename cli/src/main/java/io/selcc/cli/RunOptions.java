package io.selcc.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;

/** Flags of a timed, seeded run with optional JSON output; a mixin validated into {@link RunSettings}. */
public final class RunOptions {
    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s",
        converter = Converters.DurationConverter.class,
        description = "Measured run time (10s, 500ms, 1m). Default: ${DEFAULT-VALUE}.")
    private Duration duration;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "0s",
        converter = Converters.DurationConverter.class,
        description = "Unmeasured run time before the measured one. Default: ${DEFAULT-VALUE}.")
    private Duration warmup;

    @Option(names = "--seed", paramLabel = "LONG", defaultValue = "42",
        description = "Seed of all randomness; the same seed gives the same access sequence per thread (tpcc run: per"
            + " terminal). Default: ${DEFAULT-VALUE}.")
    private long seed;

    @Option(names = "--json", paramLabel = "FILE",
        description = "Also write parameters and results to FILE as JSON.")
    private Path json;

    @Option(names = "--csv", paramLabel = "FILE",
        description = "Also append the results to FILE as CSV: a header row, then one row per transaction type (micro:"
            + " reads, writes) and one for all (a file with the same header collects a sweep).")
    private Path csv;

    /**
     * @param csvHeader the benchmark's CSV header (checked against an existing {@code --csv} file)
     * @throws CommandLine.ParameterException naming the flag and value on bad input
     */
    public RunSettings settings(CommandLine cl, java.util.List<String> csvHeader) {
        Flags.require(!duration.isZero(), cl, "--duration", "0", "must be > 0");
        if (json != null) {
            String problem = JsonFile.whyNotWritable(json);
            Flags.require(problem == null, cl, "--json", json, problem);
        }
        if (csv != null) {
            String problem = CsvFile.whyNotWritable(csv, csvHeader);
            Flags.require(problem == null, cl, "--csv", csv, problem);
        }
        return new RunSettings(duration.toNanos(), warmup.toNanos(), seed, json, csv);
    }
}
