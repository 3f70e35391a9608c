package io.selcc.cli.tpcc;

import io.selcc.cli.Flags;
import io.selcc.engine.Database;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccRandom;
import io.selcc.wal.Checkpoint;
import io.selcc.wal.Recovery;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TPC-C database kept in a directory ({@code --data-dir}): what {@code tpcc load} writes (a
 * checkpoint), what {@code run} and {@code check} recover from, and what the checkpoint records of the
 * population (warehouses, seed, the NURand constants the run must keep).
 */
final class DataDir {
    static final String FORMAT = "selcc.tpcc.format";
    static final String WAREHOUSES = "tpcc.warehouses";
    static final String SEED = "tpcc.seed";
    static final String C_LAST_LOAD = "tpcc.cLastLoad";
    static final String C_LAST_RUN = "tpcc.cLastRun";
    static final String C_ID = "tpcc.cId";
    static final String OL_I_ID = "tpcc.olIId";
    /**
     * Partitioned mode's partitions (one table set per compute node, loaded with {@code tpcc load --mode
     * partitioned}); absent or 0 for fully-shared mode's one set.
     */
    static final String PARTITIONS = "tpcc.partitions";
    /** What this version writes; a directory of another format is refused. */
    static final String FORMAT_VERSION = "3"; // 2: log records carry record ids; 3: checkpoint rows too
    /** ORDER rows the initial population has per warehouse (clause 4.3.3.1: 3,000 per district). */
    static final long INITIAL_ORDERS_PER_WAREHOUSE = 30_000;

    private DataDir() {
    }

    /**
     * Takes the directory for this process until it exits: an exclusive lock on {@code DIR/lock}. Two
     * commands on one directory would each recover, and one would remove the log the other appends to.
     *
     * @throws CommandLine.ParameterException (exit 2) when another process holds it
     */
    static void lock(Path dir, CommandLine cl) {
        try {
            java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(dir.resolve("lock"),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                lock = null; // held by another command running in this process
            }
            if (lock == null) {
                channel.close();
                throw Flags.invalid(cl, "--data-dir", dir, "is in use by another command (its lock file is held)");
            }
            HELD.add(lock); // released by unlock() when the command ends, or when the process exits
        } catch (IOException e) {
            throw Flags.invalid(cl, "--data-dir", dir, "cannot be locked: " + e.getMessage());
        }
    }

    /** Locks this process holds (see {@link #lock}); {@link #unlock} releases them for commands run in-process. */
    private static final java.util.List<java.nio.channels.FileLock> HELD = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Releases the directory locks this process took (the command is over). */
    static void unlock() {
        for (java.nio.channels.FileLock lock : HELD) {
            try {
                lock.channel().close();
            } catch (IOException e) {
                // releasing: the process ends soon anyway
            }
            HELD.remove(lock);
        }
    }

    /** For {@code tpcc load}: a directory that can be created and written, and holds no database yet. */
    static Path forLoad(Path dir, CommandLine cl) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw Flags.invalid(cl, "--data-dir", dir, "is a file, not a directory");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw Flags.invalid(cl, "--data-dir", dir, "cannot be created: " + e.getMessage());
        }
        if (!Files.isWritable(dir)) {
            throw Flags.invalid(cl, "--data-dir", dir, "is not writable");
        }
        lock(dir, cl);
        Checkpoint.newest(dir).ifPresent(existing -> {
            throw Flags.invalid(cl, "--data-dir", dir, "holds a database already (" + existing.getFileName()
                + "); load into an empty directory");
        });
        return dir;
    }

    /**
     * For {@code run} and {@code check}: the population recorded in the directory's checkpoint; sets
     * {@code --warehouses} from it, or refuses a value given that differs.
     */
    static Map<String, String> forRecovery(Path dir, TpccOptions tpcc, CommandLine cl) {
        if (!Files.isDirectory(dir)) {
            throw Flags.invalid(cl, "--data-dir", dir, "is not a directory: load a database into it first with"
                + " 'tpcc load --data-dir " + dir + "'");
        }
        if (!Files.isWritable(dir)) {
            throw Flags.invalid(cl, "--data-dir", dir, "is not writable (recovery and the run write into it)");
        }
        lock(dir, cl);
        Map<String, String> properties;
        try {
            properties = Recovery.properties(dir).orElseThrow(() -> Flags.invalid(cl, "--data-dir", dir,
                "holds no checkpoint: load a database into it first with 'tpcc load --data-dir " + dir + "'"));
        } catch (IllegalStateException | IllegalArgumentException | java.io.UncheckedIOException e) {
            throw Flags.invalid(cl, "--data-dir", dir, "its checkpoint cannot be read: " + e.getMessage());
        }
        if (!FORMAT_VERSION.equals(properties.get(FORMAT))) {
            throw Flags.invalid(cl, "--data-dir", dir, "was written by another version (format "
                + properties.get(FORMAT) + ", this one reads " + FORMAT_VERSION + ")");
        }
        int stored = Integer.parseInt(properties.get(WAREHOUSES));
        if (cl.getParseResult().hasMatchedOption("--warehouses") && tpcc.warehouses != stored) {
            throw Flags.invalid(cl, "--warehouses", tpcc.warehouses, "differs from the " + stored
                + " warehouse(s) " + dir + " holds (leave it out with --data-dir)");
        }
        tpcc.warehouses = stored;
        try {
            tpcc.partitions = partitions(properties);
        } catch (NumberFormatException e) {
            throw Flags.invalid(cl, "--data-dir", dir, "its checkpoint names no partition count (" + PARTITIONS + "="
                + properties.get(PARTITIONS) + ")");
        }
        tpcc.recoveredBytes = recoveredBytes(dir);
        return properties;
    }

    /** The partitions a checkpoint's properties record (0: fully shared). */
    static int partitions(Map<String, String> properties) {
        String value = properties.get(PARTITIONS);
        return value == null ? 0 : Integer.parseInt(value);
    }

    /**
     * The mode of the database kept in {@code dir} ({@code shared} or {@code partitioned}), or null when
     * the directory holds no readable checkpoint (what {@link #forRecovery} then reports).
     */
    static String storedMode(Path dir) {
        try {
            return Recovery.properties(dir).map(p -> partitions(p) > 0 ? "partitioned" : "shared").orElse(null);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** What the load's checkpoint records. */
    static Map<String, String> properties(int warehouses, long seed, TpccRandom.Constants constants, int partitions) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put(FORMAT, FORMAT_VERSION);
        p.put(WAREHOUSES, Integer.toString(warehouses));
        p.put(PARTITIONS, Integer.toString(partitions));
        p.put(SEED, Long.toString(seed));
        p.put(C_LAST_LOAD, Integer.toString(constants.cLastLoad()));
        p.put(C_LAST_RUN, Integer.toString(constants.cLastRun()));
        p.put(C_ID, Integer.toString(constants.cId()));
        p.put(OL_I_ID, Integer.toString(constants.olIId()));
        return p;
    }

    /** The NURand constants of the load (clause 2.1.6: a run keeps C_LAST's relation to the load's). */
    static TpccRandom.Constants constants(Map<String, String> p) {
        return new TpccRandom.Constants(Integer.parseInt(p.get(C_LAST_LOAD)), Integer.parseInt(p.get(C_LAST_RUN)),
            Integer.parseInt(p.get(C_ID)), Integer.parseInt(p.get(OL_I_ID)));
    }

    /** count(ORDER) (over every partition's table) minus the orders the load created: New-Orders committed since the load. */
    static long ordersSinceLoad(Database db, int warehouses, int partitions) {
        LongAdder orders = new LongAdder();
        java.util.List<String> tables = partitions == 0 ? java.util.List.of(TpccSchema.Order.TABLE)
            : java.util.stream.IntStream.range(0, partitions).mapToObj(p -> TpccSchema.name(TpccSchema.Order.TABLE, p)).toList();
        for (String table : tables) {
            db.liveNode().table(table).heap().scan((rid, row) -> orders.increment());
        }
        return orders.sum() - INITIAL_ORDERS_PER_WAREHOUSE * warehouses;
    }

    /** Writes a checkpoint; a directory that cannot take it is a one-line failure (exit 1) naming it. */
    static void checkpoint(Database db, Path dir, io.selcc.wal.Wal wal, Map<String, String> properties, PrintWriter out) {
        Checkpoint.Summary summary;
        try {
            summary = Checkpoint.write(db, dir, wal, properties);
        } catch (java.io.UncheckedIOException e) {
            throw new io.selcc.cli.CliFailure("cannot write a checkpoint into " + dir + ": " + e.getMessage()
                + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : ""), e);
        } catch (IllegalStateException e) {
            throw new io.selcc.cli.CliFailure("cannot write a checkpoint into " + dir + ": " + e.getMessage(), e);
        }
        printCheckpoint(out, summary);
    }

    static void printCheckpoint(PrintWriter out, Checkpoint.Summary summary) {
        out.printf(Locale.ROOT, "checkpoint %s written: %,d rows, %,d bytes, replay from sequence %,d, in %.1f s%n",
            summary.path(), summary.rows(), summary.bytes(), summary.replayFrom(), summary.millis() / 1000.0);
        out.flush();
    }

    /** The bytes of {@code dir}'s newest checkpoint and of its logs (what recovery loads and replays). */
    static long recoveredBytes(Path dir) {
        long bytes = 0;
        try {
            java.util.Optional<Path> checkpoint = io.selcc.wal.Checkpoint.newest(dir);
            if (checkpoint.isPresent()) {
                bytes += Files.size(checkpoint.get());
            }
            Path logs = Recovery.logDirectory(dir);
            if (Files.isDirectory(logs)) {
                try (java.util.stream.Stream<Path> files = Files.walk(logs)) {
                    for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                        bytes += Files.size(file);
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot size the database in " + dir, e);
        }
        return bytes;
    }

    /** Recovers {@code db} from {@code dir}, printing what it did (warnings to {@code err}). */
    static Recovery.Summary recover(Database db, Path dir, PrintWriter out, PrintWriter err) {
        Recovery.Summary summary;
        try {
            summary = Recovery.recover(db, dir);
        } catch (io.selcc.cache.SharedMemoryFullException e) {
            throw new io.selcc.cli.CliFailure("cannot recover from " + dir + ": " + e.getMessage() + ": raise --memory", e);
        } catch (IllegalArgumentException e) {
            // Another schema, or no checkpoint: the directory is not this database's.
            throw new io.selcc.cli.CliFailure("cannot recover from " + dir + ": " + e.getMessage(), e);
        } catch (IllegalStateException | java.io.UncheckedIOException e) {
            // A damaged checkpoint, a log Chronicle Queue cannot open, a full disk: named, one line, exit 1.
            throw new io.selcc.cli.CliFailure("cannot recover from " + dir + ": " + io.selcc.cli.CliFailure.withRootCause(e), e);
        }
        for (String warning : summary.warnings()) {
            err.println("warning: " + warning);
        }
        err.flush();
        out.println(summary.describe());
        out.flush();
        return summary;
    }
}
