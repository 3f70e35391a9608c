package io.selcc.tpcc.run;

import io.selcc.engine.Database;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccRandom;
import io.selcc.wal.Checkpoint;
import io.selcc.wal.Recovery;

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
public final class DataDir {
    static final String FORMAT = "selcc.tpcc.format";
    /** The warehouses of the population (a checkpoint property). */
    public static final String WAREHOUSES = "tpcc.warehouses";
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
     * A kept database opened for a run or a check: its checkpoint's properties, and the directory locked
     * until {@link #close}.
     */
    public static final class Kept implements Held {
        private final Path dir;
        private final Map<String, String> properties;
        private final java.nio.channels.FileLock lock;

        private Kept(Path dir, Map<String, String> properties, java.nio.channels.FileLock lock) {
            this.dir = dir;
            this.properties = properties;
            this.lock = lock;
        }

        public Path dir() {
            return dir;
        }

        /** The checkpoint's properties (what {@link #properties(int, long, TpccRandom.Constants, int)} wrote). */
        public Map<String, String> properties() {
            return properties;
        }

        public int warehouses() {
            return Integer.parseInt(properties.get(WAREHOUSES));
        }

        /** Table sets, one per compute node (0: fully shared). */
        public int partitions() {
            return DataDir.partitions(properties);
        }

        /** The load's NURand constants, which every run keeps. */
        public TpccRandom.Constants constants() {
            return DataDir.constants(properties);
        }

        /** The bytes of the newest checkpoint and of the logs (what recovery loads and replays). */
        public long recoveredBytes() {
            return DataDir.recoveredBytes(dir);
        }

        /** Releases the directory. */
        @Override
        public void close() {
            DataDir.release(lock);
        }
    }

    /** A directory this process holds until it closes this. */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private static InvalidRunException invalid(Path dir, String problem) {
        return new InvalidRunException(new RunSpec.Violation("--data-dir", dir, problem));
    }

    /**
     * Takes the directory for this process: an exclusive lock on {@code DIR/lock}, held until released
     * (or the process exits). Two commands on one directory would each recover, and one would remove the
     * log the other appends to.
     *
     * @throws InvalidRunException when another command holds it
     */
    private static java.nio.channels.FileLock lock(Path dir) {
        try {
            java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(dir.resolve("lock"),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                lock = null; // held by another command running in this process
            } catch (IOException e) {
                channel.close();
                throw e;
            }
            if (lock == null) {
                channel.close();
                throw invalid(dir, "is in use by another command (its lock file is held)");
            }
            return lock;
        } catch (IOException e) {
            throw invalid(dir, "cannot be locked: " + e.getMessage());
        }
    }

    private static void release(java.nio.channels.FileLock lock) {
        try {
            lock.channel().close();
        } catch (IOException e) {
            // releasing: the process ends soon anyway, and closing the channel frees the lock regardless
        }
    }

    /**
     * For {@code tpcc load}: a directory that can be created and written, and holds no database yet;
     * locked until the returned lock is closed.
     *
     * @throws InvalidRunException naming what is wrong with it
     */
    public static Held forLoad(Path dir) {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw invalid(dir, "is a file, not a directory");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw invalid(dir, "cannot be created: " + e.getMessage());
        }
        if (!Files.isWritable(dir)) {
            throw invalid(dir, "is not writable");
        }
        java.nio.channels.FileLock lock = lock(dir);
        java.util.Optional<Path> existing = Checkpoint.newest(dir);
        if (existing.isPresent()) {
            release(lock);
            throw invalid(dir, "holds a database already (" + existing.get().getFileName() + "); load into an empty"
                + " directory");
        }
        return () -> release(lock);
    }

    /**
     * For a run or a check: the database kept in {@code dir}, locked until the result is closed.
     *
     * @throws InvalidRunException when it is no directory, holds no readable checkpoint of this version,
     *                             or another command holds it
     */
    public static Kept open(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw invalid(dir, "is not a directory: load a database into it first with 'tpcc load --data-dir " + dir + "'");
        }
        if (!Files.isWritable(dir)) {
            throw invalid(dir, "is not writable (recovery and the run write into it)");
        }
        java.nio.channels.FileLock lock = lock(dir);
        try {
            Map<String, String> properties;
            try {
                properties = Recovery.properties(dir).orElseThrow(() -> invalid(dir,
                    "holds no checkpoint: load a database into it first with 'tpcc load --data-dir " + dir + "'"));
            } catch (IllegalStateException | IllegalArgumentException | java.io.UncheckedIOException e) {
                throw invalid(dir, "its checkpoint cannot be read: " + e.getMessage());
            }
            if (!FORMAT_VERSION.equals(properties.get(FORMAT))) {
                throw invalid(dir, "was written by another version (format " + properties.get(FORMAT) + ", this one"
                    + " reads " + FORMAT_VERSION + ")");
            }
            try {
                partitions(properties);
            } catch (NumberFormatException e) {
                throw invalid(dir, "its checkpoint names no partition count (" + PARTITIONS + "="
                    + properties.get(PARTITIONS) + ")");
            }
            return new Kept(dir, properties, lock);
        } catch (RuntimeException e) {
            release(lock);
            throw e;
        }
    }

    /** The partitions a checkpoint's properties record (0: fully shared). */
    public static int partitions(Map<String, String> properties) {
        String value = properties.get(PARTITIONS);
        return value == null ? 0 : Integer.parseInt(value);
    }

    /**
     * The properties of the newest checkpoint in {@code dir}, read without taking the directory, or null
     * when it holds no readable one (what {@link #open} then reports).
     */
    public static Map<String, String> peek(Path dir) {
        try {
            Map<String, String> properties = Recovery.properties(dir).orElse(null);
            if (properties != null) {
                Integer.parseInt(properties.get(WAREHOUSES));
                partitions(properties);
            }
            return properties;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The mode of the database whose checkpoint has {@code properties}. */
    public static RunSpec.Mode mode(Map<String, String> properties) {
        return partitions(properties) > 0 ? RunSpec.Mode.PARTITIONED : RunSpec.Mode.SHARED;
    }

    /** A run's {@code mode} against the one of the database kept in {@code dir}: why it is refused, or null. */
    public static RunSpec.Violation differingMode(Path dir, Map<String, String> properties, RunSpec.Mode mode) {
        RunSpec.Mode kept = mode(properties);
        return mode == kept ? null : new RunSpec.Violation("--mode", mode.label(), "differs from the " + kept.label()
            + " database " + dir + " holds (leave it out with --data-dir; a database's mode is chosen by tpcc load --mode)");
    }

    /** A run's {@code warehouses} against those of the database kept in {@code dir}: why it is refused, or null. */
    public static RunSpec.Violation differingWarehouses(Path dir, Map<String, String> properties, int warehouses) {
        int kept = Integer.parseInt(properties.get(WAREHOUSES));
        return warehouses == kept ? null : new RunSpec.Violation("--warehouses", warehouses, "differs from the " + kept
            + " warehouse(s) " + dir + " holds (leave it out with --data-dir)");
    }

    /** What the load's checkpoint records. */
    public static Map<String, String> properties(int warehouses, long seed, TpccRandom.Constants constants, int partitions) {
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
    public static TpccRandom.Constants constants(Map<String, String> p) {
        return new TpccRandom.Constants(Integer.parseInt(p.get(C_LAST_LOAD)), Integer.parseInt(p.get(C_LAST_RUN)),
            Integer.parseInt(p.get(C_ID)), Integer.parseInt(p.get(OL_I_ID)));
    }

    /** count(ORDER) (over every partition's table) minus the orders the load created: New-Orders committed since the load. */
    public static long ordersSinceLoad(Database db, int warehouses, int partitions) {
        LongAdder orders = new LongAdder();
        java.util.List<String> tables = partitions == 0 ? java.util.List.of(TpccSchema.Order.TABLE)
            : java.util.stream.IntStream.range(0, partitions).mapToObj(p -> TpccSchema.name(TpccSchema.Order.TABLE, p)).toList();
        for (String table : tables) {
            db.liveNode().table(table).heap().scan((rid, row) -> orders.increment());
        }
        return orders.sum() - INITIAL_ORDERS_PER_WAREHOUSE * warehouses;
    }

    /** Writes a checkpoint; a directory that cannot take it is a one-line failure (exit 1) naming it. */
    public static void checkpoint(Database db, Path dir, io.selcc.wal.Wal wal, Map<String, String> properties, PrintWriter out) {
        Checkpoint.Summary summary;
        try {
            summary = Checkpoint.write(db, dir, wal, properties);
        } catch (java.io.UncheckedIOException e) {
            throw new RunFailedException("cannot write a checkpoint into " + dir + ": " + e.getMessage()
                + (e.getCause() != null ? " (" + e.getCause().getMessage() + ")" : ""), e);
        } catch (IllegalStateException e) {
            throw new RunFailedException("cannot write a checkpoint into " + dir + ": " + e.getMessage(), e);
        }
        printCheckpoint(out, summary);
    }

    public static void printCheckpoint(PrintWriter out, Checkpoint.Summary summary) {
        out.printf(Locale.ROOT, "checkpoint %s written: %,d rows, %,d bytes, replay from sequence %,d, in %.1f s%n",
            summary.path(), summary.rows(), summary.bytes(), summary.replayFrom(), summary.millis() / 1000.0);
        out.flush();
    }

    /** The bytes of {@code dir}'s newest checkpoint and of its logs (what recovery loads and replays). */
    public static long recoveredBytes(Path dir) {
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
    public static Recovery.Summary recover(Database db, Path dir, PrintWriter out, PrintWriter err) {
        Recovery.Summary summary;
        try {
            summary = Recovery.recover(db, dir);
        } catch (io.selcc.cache.SharedMemoryFullException e) {
            throw new RunFailedException("cannot recover from " + dir + ": " + e.getMessage() + ": raise --memory", e);
        } catch (IllegalArgumentException e) {
            // Another schema, or no checkpoint: the directory is not this database's.
            throw new RunFailedException("cannot recover from " + dir + ": " + e.getMessage(), e);
        } catch (IllegalStateException | java.io.UncheckedIOException e) {
            // A damaged checkpoint, a log Chronicle Queue cannot open, a full disk: named, one line, exit 1.
            throw new RunFailedException("cannot recover from " + dir + ": " + RunFailedException.withRootCause(e), e);
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
