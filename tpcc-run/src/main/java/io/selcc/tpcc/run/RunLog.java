package io.selcc.tpcc.run;

import io.selcc.wal.Wal;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The commit log of a run ({@link RunSpec#log}): without a data directory it logs into a temporary
 * directory removed at the end, to measure what logging costs.
 */
final class RunLog implements AutoCloseable {
    private final Wal.Mode mode;
    private final Path directory;
    private final Wal wal;
    /** Where a log not removed at the end goes (a data directory's, or a cluster's shared one), or null. */
    private final Path kept;

    private RunLog(Wal.Mode mode, Path directory, Wal wal, Path kept) {
        this.mode = mode;
        this.directory = directory;
        this.wal = wal;
        this.kept = kept;
    }

    /**
     * A log of {@code mode} (none when off) into {@code keptIn} (a data directory's, or a cluster's shared
     * one), or, when it is null, into a temporary directory removed by {@link #close}.
     *
     * @throws RunFailedException when the log cannot be opened
     */
    static RunLog open(RunSpec.LogMode mode, Path keptIn) {
        if (mode == RunSpec.LogMode.OFF) {
            return new RunLog(null, null, null, null);
        }
        Wal.Mode walMode = mode == RunSpec.LogMode.SYNC ? Wal.Mode.SYNC : Wal.Mode.ASYNC;
        try {
            if (keptIn != null) {
                return new RunLog(walMode, null, Wal.open(keptIn, walMode), keptIn);
            }
            Path directory;
            try {
                directory = Files.createTempDirectory("selcc-wal-");
            } catch (IOException e) {
                throw new RunFailedException("cannot create a temporary directory for --wal " + mode.label() + ": "
                    + e.getMessage(), e);
            }
            return new RunLog(walMode, directory, Wal.open(directory, walMode), null);
        } catch (UncheckedIOException e) {
            throw new RunFailedException("cannot open the log: " + e.getMessage(), e);
        }
    }

    /** Whether a commit returns only once its record is forced (--wal sync). */
    boolean forces() {
        return mode == Wal.Mode.SYNC;
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
     * {@link #report(PrintWriter, double)} over this log and other processes' ({@code all}: summed over every
     * process's log, this one's included).
     */
    void report(PrintWriter out, double seconds, LogFigures all) {
        if (wal == null) {
            return;
        }
        report(out, seconds, new Wal.Counters(all.records(), all.forces(), all.bytes()), ", all compute nodes");
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
            Histogram waits = wal.durabilityWaitMicros();
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

    /** This log's figures of the whole run (null durability waits unless commits wait for a force). */
    LogFigures figures() {
        if (wal == null) {
            return new LogFigures(modeName(), 0, 0, 0, null);
        }
        Wal.Counters c = wal.counters();
        return new LogFigures(modeName(), c.appends(), c.forces(), c.bytes(), forces() ? wal.durabilityWaitMicros() : null);
    }

    /** Removes the temporary log directory (the database, which closes the log, is closed first). */
    @Override
    public void close() {
        if (directory != null) {
            io.selcc.wal.Recovery.deleteTree(directory);
        }
    }
}
