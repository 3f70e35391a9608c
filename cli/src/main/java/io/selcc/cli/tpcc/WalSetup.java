package io.selcc.cli.tpcc;

import io.selcc.cli.CliFailure;
import io.selcc.cli.Flags;
import io.selcc.cli.JsonWriter;
import io.selcc.wal.Wal;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The commit log of a {@code tpcc run} ({@code --wal off|async|sync}): without a data directory it
 * logs into a temporary directory removed at the end, to measure what logging costs.
 */
final class WalSetup implements AutoCloseable {
    private final Wal.Mode mode;
    private final Path directory;
    private final Wal wal;
    /** Where a log not removed at the end goes (a data directory's, or a cluster's shared one), or null. */
    private final Path kept;

    private WalSetup(Wal.Mode mode, Path directory, Wal wal, Path kept) {
        this.mode = mode;
        this.directory = directory;
        this.wal = wal;
        this.kept = kept;
    }

    /**
     * Parses {@code --wal}; off gives a setup without a log. The log goes into {@code keptIn} (a data
     * directory's), or, when it is null, into a temporary directory removed by {@link #close}.
     */
    static WalSetup open(String flag, CommandLine cl, Path keptIn) {
        Wal.Mode mode = switch (flag.toLowerCase(Locale.ROOT)) {
            case "off" -> null;
            case "async" -> Wal.Mode.ASYNC;
            case "sync" -> Wal.Mode.SYNC;
            default -> throw Flags.invalid(cl, "--wal", flag, "must be off, async or sync");
        };
        if (mode == null) {
            return new WalSetup(null, null, null, null);
        }
        if (keptIn != null) {
            return new WalSetup(mode, null, Wal.open(keptIn, mode), keptIn);
        }
        Path directory;
        try {
            directory = Files.createTempDirectory("selcc-wal-");
        } catch (IOException e) {
            throw new CliFailure("cannot create a temporary directory for --wal " + flag + ": " + e.getMessage(), e);
        }
        return new WalSetup(mode, directory, Wal.open(directory, mode), null);
    }

    /** Whether a commit returns only once its record is forced (--wal sync). */
    boolean forces() {
        return mode == Wal.Mode.SYNC;
    }

    /** The temporary directory the logs go into, or null (none, or a data directory's). */
    Path temporaryDirectory() {
        return directory;
    }

    /** Where the logs go (a temporary directory, or a data directory's), or null with {@code --wal off}. */
    Path directory() {
        return directory != null ? directory : kept;
    }

    /** The log group to give the database, or null with {@code --wal off}. */
    Wal wal() {
        return wal;
    }

    String modeName() {
        return mode == null ? "off" : mode.name().toLowerCase(Locale.ROOT);
    }

    void describe(PrintWriter out) {
        if (wal != null && directory != null) {
            out.printf("logging commits (--wal %s) into %s, removed at the end%n", modeName(), directory);
        } else if (wal != null) {
            out.printf("logging commits (--wal %s) into %s%n", modeName(), kept);
        }
    }

    /** Whether {@code directory} does not exist or holds nothing. */
    static boolean emptyOrAbsent(Path directory) {
        if (!Files.exists(directory)) {
            return true;
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * {@link #report(PrintWriter, double)} over this log and other processes' ({@code counts}: records,
     * forces, bytes summed over every process's log, this one's included).
     */
    void report(PrintWriter out, double seconds, long[] counts) {
        if (wal == null) {
            return;
        }
        report(out, seconds, new Wal.Counters(counts[0], counts[1], counts[2]), ", all compute nodes");
    }

    void json(JsonWriter json, long[] counts) {
        json.name("wal").beginObject().field("mode", modeName());
        if (wal != null) {
            json.field("records", counts[0]).field("forces", counts[1]).field("bytes", counts[2])
                .field("recordsPerForce", counts[1] == 0 ? 0 : counts[0] / (double) counts[1]);
        }
        json.endObject();
    }

    /**
     * One line: records, forces, bytes, over the whole run (warm-up included: the log's counters are
     * not reset at the measurement's start), per second of {@code seconds} and per record.
     */
    void report(PrintWriter out, double seconds) {
        if (wal == null) {
            return;
        }
        report(out, seconds, wal.counters(), "");
        if (forces()) {
            org.HdrHistogram.Histogram waits = wal.durabilityWaitMicros();
            out.printf(Locale.ROOT, "durability wait per commit (whole run): p50 %,d us, p99 %,d us, max %,d us over %,d commits%n",
                waits.getValueAtPercentile(50), waits.getValueAtPercentile(99), waits.getMaxValue(), waits.getTotalCount());
        }
    }

    private void report(PrintWriter out, double seconds, Wal.Counters c, String whose) {
        out.printf(Locale.ROOT, "wal %s (whole run, warm-up included" + whose + "): %,d commit records, %,d forces (%,.0f/s,"
                + " %.1f records per force), %,.0f log bytes per record%n", modeName(), c.appends(), c.forces(),
            seconds > 0 ? c.forces() / seconds : 0, c.forces() == 0 ? 0 : c.appends() / (double) c.forces(),
            c.appends() == 0 ? 0 : c.bytes() / (double) c.appends());
    }

    void json(JsonWriter json) {
        json.name("wal").beginObject().field("mode", modeName());
        if (wal != null) {
            Wal.Counters c = wal.counters();
            json.field("records", c.appends()).field("forces", c.forces()).field("bytes", c.bytes())
                .field("recordsPerForce", c.forces() == 0 ? 0 : c.appends() / (double) c.forces());
            if (forces()) {
                org.HdrHistogram.Histogram waits = wal.durabilityWaitMicros();
                json.field("durabilityWaitP50Micros", waits.getValueAtPercentile(50))
                    .field("durabilityWaitP99Micros", waits.getValueAtPercentile(99))
                    .field("durabilityWaitMaxMicros", waits.getMaxValue());
            }
        }
        json.endObject();
    }

    /** Removes the temporary log directory (the database, which closes the log, is closed first). */
    @Override
    public void close() {
        if (directory != null) {
            removeDirectory(directory);
        }
    }

    /** Removes {@code directory} and everything in it. */
    static void removeDirectory(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the log directory " + directory, e);
        }
    }
}
