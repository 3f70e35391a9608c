package io.selcc.cli;

import java.nio.file.Path;

/**
 * Validated run flags (see {@link RunOptions}).
 *
 * @param json where to write the JSON report; null for none
 * @param csv  where to append the CSV rows ({@link CsvFile}); null for none
 */
public record RunSettings(long durationNanos, long warmupNanos, long seed, Path json, Path csv) {
}
