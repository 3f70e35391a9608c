package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Index;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.RowVisitor;
import io.selcc.engine.Table;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.storage.TupleView;
import io.selcc.wal.CheckpointException.Damage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * A checkpoint: every row of a database in one file, written while transactions keep running (a
 * fuzzy scan), and where recovery's log replay has to start for those rows to become a consistent
 * state. The byte layout is {@link CheckpointLayout}'s.
 *
 * <p><b>What the file holds.</b> {@link #write} first takes {@code replayFrom}
 * ({@link Database#checkpointStart}): every transaction numbered at or below it had finished
 * installing its writes before the scan began, so the scan sees them (or what overwrote them). It then
 * reads every table through compute node 0, in primary key order, in short read-only transactions of
 * at most 2,000 rows each (fewer for rows over 2 KiB), so no transaction holds many latches or locks
 * for long; a chunk that aborts is retried, with half as many rows while it keeps aborting. Then it
 * reads the commit sequence counter, {@code coveredThrough}, once the scan is done. Each row is
 * committed state as of its chunk's transaction, but different chunks see different moments: a
 * transaction numbered in (replayFrom, coveredThrough] may be in the file wholly, partly or not at
 * all, and none numbered above coveredThrough is in it. Recovery loads the rows and replays, in
 * sequence order, every logged transaction numbered above replayFrom; replay must be idempotent (an
 * image put under its key whether or not the row is there, a delete of an absent key does nothing).
 * The rows are a consistent state only once replay has passed coveredThrough.
 *
 * <p><b>Durability.</b> So that a published checkpoint never holds a transaction the log could still
 * lose (with the transactions it read from), {@link #write} makes the logs durable through
 * coveredThrough before publishing ({@link Wal#forceThrough}: a {@link Wal.Mode#SYNC} log's watermark;
 * a {@link Wal.Mode#ASYNC} log, whose commits force nothing, is forced then, every node's); if the log
 * lost a number in that range, or a force failed, the checkpoint is abandoned. Otherwise a crash of the
 * machine could lose ASYNC log records the checkpoint partly holds, and recovery would refuse it (its
 * replay could not reach coveredThrough).
 *
 * <p><b>Files.</b> A checkpoint is written to {@code checkpoint-<replayFrom, 20 digits>.tmp} in the
 * data directory, forced, renamed atomically to {@code .ckpt}, and the directory is forced, and its
 * parent (which names the data directory) too; forced through the log's {@link FileForcing}. A
 * {@code .tmp} file (one being written, or left by an interrupted write) never counts. Once a
 * checkpoint is published every other checkpoint file in the directory is removed, older
 * {@code .ckpt} files and {@code .tmp} leftovers: the directory keeps just the newest checkpoint. One
 * writer per data directory at a time.
 *
 * <p><b>The log.</b> Once published, the checkpoint lets the log go: {@link Wal#truncate} removes the
 * log's cycle files whose every record is numbered at or below {@code replayFrom} (no recovery from
 * this checkpoint or a later one reads them), the files the logs are appending to excepted. The
 * checkpoint is also where a crashed compute node's repair starts ({@link Wal#checkpointPublished}):
 * each row carries its record id in the memory it was read from.
 *
 * <p><b>Reading.</b> {@link #open} reads the whole file once before returning (choice (a): two reads
 * of the file, the second in {@link Reader#forEachRow}): magic, version, trailer, CRC32C and every
 * count are checked before any value is handed out, so a caller never loads rows of a damaged file.
 * Damage is a {@link CheckpointException} whose message names the file and what is wrong.
 */
public final class Checkpoint {
    private static final System.Logger LOG = System.getLogger(Checkpoint.class.getName());

    /** Rows per scan transaction (fewer for long rows, see {@link #CHUNK_BYTES}). */
    static final int CHUNK_ROWS = 2_000;
    /** Row bytes per scan transaction at most: a chunk is held in memory until its transaction commits. */
    static final int CHUNK_BYTES = 4 << 20;
    /** Attempts per chunk size before the chunk is halved (see {@link #scan}). */
    private static final RetryPolicy CHUNK_RETRY = new RetryPolicy(100, 1_000, 1_000_000,
        () -> ThreadLocalRandom.current().nextLong());

    /**
     * What {@link #write} did.
     *
     * @param path           the published checkpoint
     * @param replayFrom     recovery replays the log records numbered above it
     * @param coveredThrough the commit sequence counter after the scan: no later transaction is in the file
     * @param rows           rows written
     * @param bytes          the file's length
     * @param millis         how long the checkpoint took, durability wait and publishing included
     * @param logFilesRemoved the log's cycle files removed once it was published ({@link Wal#truncate})
     */
    public record Summary(Path path, long replayFrom, long coveredThrough, long rows, long bytes, long millis,
                          int logFilesRemoved) {
    }

    /**
     * A table as a checkpoint records it; a database whose table with the same id differs in any field
     * is refused ({@link Reader#verify}).
     *
     * @param id       the table's id ({@code heap().tableId()}), 1 for the first table defined
     * @param name     the table's name
     * @param rowBytes bytes of each row: the tuple after its header ({@link TupleView#rowBytes()})
     * @param schema   the columns, each {@code name TYPE[(maxLength)][ NULL]}, comma separated
     */
    public record TableDescriptor(int id, String name, int rowBytes, String schema) {
        public TableDescriptor {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(schema, "schema");
        }
    }

    /** Receives the rows of {@link Reader#forEachRow}. */
    @FunctionalInterface
    public interface RowConsumer {
        /**
         * One row of table {@code tableId}, which lived at {@code recordId} in the shared memory of the
         * run that wrote the file: its descriptor's {@code rowBytes} bytes at {@code offset} in
         * {@code buffer} (what {@link TupleView#setRowFrom} takes). The buffer is reused: the bytes are
         * valid only during the call.
         */
        void row(int tableId, long recordId, byte[] buffer, int offset);
    }

    private Checkpoint() {
    }

    /**
     * Writes a checkpoint of {@code db} into {@code dataDir} (created if missing) and publishes it (see
     * the class comment), then removes every other checkpoint file there and the log files it covers
     * ({@link Wal#truncate}). Runs on the calling thread, with transactions on compute node 0; other
     * transactions may run meanwhile.
     *
     * @param wal        the log {@code db} commits into, whose durability the checkpoint waits for and
     *                   whose covered files it removes once published; null when the database logs
     *                   nothing (then only a quiescent database gives a consistent checkpoint)
     * @param properties recorded as they are (sorted by key), for the reader: what the command that
     *                   wrote the checkpoint wants to know again (say, warehouses and the algorithm)
     * @throws IllegalStateException if a scan transaction did not commit, the log lost a transaction
     *                               the checkpoint may hold (the message names the log), or a newer
     *                               checkpoint is already in the directory (another database writes there)
     * @throws UncheckedIOException  if the file cannot be written, forced or renamed (nothing is published)
     */
    public static Summary write(Database db, Path dataDir, Wal wal, Map<String, String> properties) {
        return write(db, dataDir, wal, properties, () -> { });
    }

    /**
     * {@link #write} that runs {@code afterChunk} on the calling thread after each scan transaction's
     * chunk is written: tests put a transaction between two chunks of a scan there, deterministically.
     */
    static Summary write(Database db, Path dataDir, Wal wal, Map<String, String> properties, Runnable afterChunk) {
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(dataDir, "dataDir");
        SortedMap<String, String> sorted = new TreeMap<>();
        properties.forEach((key, value) -> sorted.put(Objects.requireNonNull(key, "property key"),
            Objects.requireNonNull(value, () -> "property value: key=" + key)));
        long start = System.nanoTime();
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory: directory=" + dataDir, e);
        }
        long bulkLoadsBefore = wal == null ? 0 : wal.bulkLoads(); // a load after this is not in the scan for sure
        long replayFrom = db.checkpointStart(); // before the scan: see the class comment
        Optional<Path> existing = newest(dataDir);
        if (existing.isPresent() && replayFromOf(existing.get()) > replayFrom) {
            throw new IllegalStateException("a newer checkpoint is in the data directory: file=" + existing.get()
                + " replayFrom=" + replayFrom + " (is another database writing there?)");
        }
        DatabaseNode node = db.liveNode(); // any node that has not crashed
        List<Table> tables = node.tables();
        List<TableDescriptor> descriptors = describe(tables);
        Path partial = dataDir.resolve(CheckpointLayout.fileName(replayFrom, CheckpointLayout.PARTIAL));
        Path complete = dataDir.resolve(CheckpointLayout.fileName(replayFrom, CheckpointLayout.COMPLETE));
        long rows = 0;
        long coveredThrough;
        long bytes;
        boolean published = false;
        FileForcing forcing = wal == null ? FileForcing.DISK : wal.fileForcing();
        try {
            try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
                CheckpointLayout.Output out = new CheckpointLayout.Output(partial, channel);
                CheckpointLayout.writeHeader(out, replayFrom, sorted, descriptors);
                for (int i = 0; i < tables.size(); i++) {
                    rows += scan(node, tables.get(i), descriptors.get(i).rowBytes(), out, afterChunk);
                }
                coveredThrough = db.commitSequence();
                CheckpointLayout.writeTrailer(out, coveredThrough, rows);
                bytes = out.length();
            }
            forcing.force(partial, true);
            forceLogThrough(wal, coveredThrough, partial);
            Files.move(partial, complete, StandardCopyOption.ATOMIC_MOVE); // replaces a checkpoint of the same replayFrom
            published = true;
            // The checkpoint's entry is in the data directory; the data directory's own entry (created
            // above, by a load) is in its parent: a power failure must not lose either.
            forcing.force(dataDir, true);
            Path parent = dataDir.toAbsolutePath().getParent();
            if (parent != null) {
                forcing.force(parent, true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("checkpoint failed: file=" + (published ? complete : partial)
                + (published ? " (published, but the directory could not be forced)" : ""), e);
        } finally {
            if (!published) {
                deleteQuietly(partial);
            }
        }
        // Only now: the checkpoint that makes these records unnecessary is durable and published. The log
        // also takes it as a crashed node's repair base, and defers both removals while a repair reads.
        int logFilesRemoved;
        if (wal == null) {
            removeOthers(dataDir, complete);
            logFilesRemoved = 0;
        } else {
            logFilesRemoved = wal.checkpointPublished(complete, replayFrom, bulkLoadsBefore,
                () -> removeOthers(dataDir, complete));
        }
        return new Summary(complete, replayFrom, coveredThrough, rows, bytes, (System.nanoTime() - start) / 1_000_000,
            logFilesRemoved);
    }

    /**
     * The newest published checkpoint in {@code dataDir} (by replay start), if any; {@code .tmp} files
     * never count. The file is not opened: {@link #open} says whether it is intact.
     *
     * @throws UncheckedIOException if the directory exists but cannot be listed
     */
    public static Optional<Path> newest(Path dataDir) {
        if (!Files.isDirectory(dataDir)) {
            return Optional.empty();
        }
        try (Stream<Path> entries = Files.list(dataDir)) {
            return entries.filter(p -> replayFromOf(p) >= 0 && Files.isRegularFile(p))
                .max(Comparator.comparingLong(Checkpoint::replayFromOf));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the checkpoints: directory=" + dataDir, e);
        }
    }

    /**
     * Opens the checkpoint {@code file} and checks all of it (one full read) before returning.
     *
     * @throws CheckpointException  if it is not a checkpoint, of an unknown version, cut short, damaged
     *                              or inconsistent (the message names the file and the check)
     * @throws UncheckedIOException if it cannot be read
     */
    public static Reader open(Path file) {
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the checkpoint: file=" + file, e);
        }
        try {
            long size = channel.size();
            CheckpointLayout.checkStart(file, channel, size);
            Reader reader = new Reader(file, channel, size, CheckpointLayout.readTrailer(file, channel, size));
            reader.header = reader.pass(null, Damage.BAD_CRC);
            return reader;
        } catch (IOException e) {
            closeAfterFailure(channel, e);
            throw new UncheckedIOException("cannot read the checkpoint: file=" + file, e);
        } catch (RuntimeException | Error e) {
            closeAfterFailure(channel, e);
            throw e;
        }
    }

    /**
     * An open checkpoint whose every byte has been checked. One thread; close it when done (reading
     * {@link #forEachRow} after close fails).
     */
    public static final class Reader implements AutoCloseable {
        private final Path file;
        private final FileChannel channel;
        private final long size;
        private final CheckpointLayout.Trailer trailer;
        /** Set by {@link #open} after the first pass. */
        private CheckpointLayout.Header header;

        private Reader(Path file, FileChannel channel, long size, CheckpointLayout.Trailer trailer) {
            this.file = file;
            this.channel = channel;
            this.size = size;
            this.trailer = trailer;
        }

        public Path file() {
            return file;
        }

        /** Recovery replays the log records numbered above this. */
        public long replayFrom() {
            return header.replayFrom();
        }

        /** The commit sequence counter after the scan: no later transaction is in the file. */
        public long coveredThrough() {
            return trailer.coveredThrough();
        }

        /** Rows in the file. */
        public long rows() {
            return trailer.rows();
        }

        /** The properties the writer recorded, sorted by key; unmodifiable. */
        public Map<String, String> properties() {
            return header.properties();
        }

        /** The tables, in id order (id 1 first). */
        public List<TableDescriptor> tables() {
            return header.tables();
        }

        /**
         * Checks that {@code db}'s tables (as compute node 0 sees them) are this checkpoint's: the same
         * count and, per id, the same name, row length and columns.
         *
         * @throws IllegalArgumentException naming the file, the table and the field that differs
         */
        public void verify(Database db) {
            List<TableDescriptor> stored = header.tables();
            List<TableDescriptor> actual = describe(db.liveNode().tables());
            for (int i = 0; i < Math.max(stored.size(), actual.size()); i++) {
                if (i >= actual.size()) {
                    throw mismatch(stored.get(i).name(), i + 1, "table", "present", "absent");
                }
                if (i >= stored.size()) {
                    throw mismatch(actual.get(i).name(), i + 1, "table", "absent", "present");
                }
                TableDescriptor s = stored.get(i);
                TableDescriptor a = actual.get(i);
                if (!s.name().equals(a.name())) {
                    throw mismatch(a.name(), a.id(), "name", s.name(), a.name());
                }
                if (s.rowBytes() != a.rowBytes()) {
                    throw mismatch(a.name(), a.id(), "rowBytes", Integer.toString(s.rowBytes()), Integer.toString(a.rowBytes()));
                }
                if (!s.schema().equals(a.schema())) {
                    throw mismatch(a.name(), a.id(), "schema", "[" + s.schema() + "]", "[" + a.schema() + "]");
                }
            }
        }

        private IllegalArgumentException mismatch(String table, int id, String field, String inCheckpoint, String inDatabase) {
            return new IllegalArgumentException("checkpoint of another schema: file=" + file + " table=" + table + " id=" + id
                + " field=" + field + " checkpoint=" + inCheckpoint + " database=" + inDatabase);
        }

        /**
         * Hands every row to {@code consumer}, table by table in id order, each table's rows in primary
         * key order; may be called again. The file was checked by {@link #open}; this second read is
         * checked against the same CRC, and fails with {@link Damage#CHANGED} (after the rows) if the
         * file changed in between.
         *
         * @return the rows delivered
         * @throws CheckpointException if the file changed since it was opened
         */
        public long forEachRow(RowConsumer consumer) {
            Objects.requireNonNull(consumer, "consumer");
            if (!channel.isOpen()) {
                throw new IllegalStateException("checkpoint reader closed: file=" + file);
            }
            pass(consumer, Damage.CHANGED);
            return trailer.rows();
        }

        /** One read of the whole file, rows to {@code consumer} if not null; a CRC mismatch is {@code crcMismatch}. */
        private CheckpointLayout.Header pass(RowConsumer consumer, Damage crcMismatch) {
            CheckpointLayout.Input in = new CheckpointLayout.Input(file, channel, size);
            CheckpointLayout.Header read;
            long rows;
            try {
                read = CheckpointLayout.readHeader(in);
                rows = CheckpointLayout.readSections(in, read.tables(), consumer);
            } catch (CheckpointException structural) {
                // Damaged bytes make fields impossible more often than not: say it was the CRC if it was.
                int crc;
                try {
                    crc = in.finishCrc();
                } catch (CheckpointException | UncheckedIOException e) {
                    e.addSuppressed(structural);
                    throw e;
                }
                if (crc != trailer.crc()) {
                    CheckpointException damaged = crcFailed(crc, crcMismatch);
                    damaged.addSuppressed(structural);
                    throw damaged;
                }
                throw structural;
            }
            int crc = in.finishCrc();
            if (crc != trailer.crc()) {
                throw crcFailed(crc, crcMismatch);
            }
            if (rows != trailer.rows()) {
                throw new CheckpointException(file, Damage.BAD_COUNTS, "trailerRows=" + trailer.rows() + " rowsInSections=" + rows);
            }
            if (trailer.coveredThrough() < read.replayFrom()) {
                throw new CheckpointException(file, Damage.BAD_STRUCTURE, "replayFrom=" + read.replayFrom() + " coveredThrough="
                    + trailer.coveredThrough() + " (covered through less than it replays from)");
            }
            return read;
        }

        private CheckpointException crcFailed(int crc, Damage damage) {
            return new CheckpointException(file, damage, "crc=0x" + Integer.toHexString(crc) + " stored=0x"
                + Integer.toHexString(trailer.crc()) + " length=" + size
                + (damage == Damage.CHANGED ? " (the file changed since it was opened)" : ""));
        }

        /** Closes the file. Idempotent. */
        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close the checkpoint: file=" + file, e);
            }
        }
    }

    // ------------------------------------------------------------------ writing

    /** The descriptors of {@code tables}, which must be in id order (as {@link DatabaseNode#tables()} gives them). */
    static List<TableDescriptor> describe(List<Table> tables) {
        List<TableDescriptor> descriptors = new ArrayList<>(tables.size());
        for (int i = 0; i < tables.size(); i++) {
            Table table = tables.get(i);
            int id = table.heap().tableId();
            if (id != i + 1) {
                throw new IllegalStateException("tables not in id order: table=" + table.name() + " id=" + id + " position=" + i);
            }
            descriptors.add(new TableDescriptor(id, table.name(), new TupleView(table.schema()).rowBytes(),
                CheckpointLayout.schemaText(table.schema())));
        }
        return descriptors;
    }

    /**
     * Writes {@code table}'s section: its rows in primary key order, one chunk per scan transaction. A
     * chunk that keeps aborting (a no-wait algorithm's locks lost to writers, again and again) is
     * retried with half as many rows, down to one; the next chunk starts at full size again.
     */
    private static long scan(DatabaseNode node, Table table, int rowBytes, CheckpointLayout.Output out,
                             Runnable afterChunk) {
        ChunkScan chunk = new ChunkScan(table.primaryIndex(), rowBytes);
        CheckpointLayout.writeSectionStart(out, table.heap().tableId());
        long rows = 0;
        long low = Long.MIN_VALUE;
        while (true) {
            long from = low;
            int limit = chunk.maxRows;
            while (true) {
                int rowsWanted = limit;
                TxnResult<Integer> result = node.run(CHUNK_RETRY, tx -> chunk.read(tx, from, rowsWanted));
                if (result.committed()) {
                    break;
                }
                if (!result.outcome().reason().isRetryable() || limit == 1) {
                    throw new IllegalStateException("checkpoint scan did not commit: table=" + table.name() + " fromKey="
                        + from + " rows=" + limit + " outcome=" + result.outcome() + " attempts=" + result.attempts()
                        + " aborts=" + result.aborts());
                }
                limit = Math.max(1, limit / 2);
            }
            if (chunk.count > 0) {
                CheckpointLayout.writeChunk(out, chunk.rows, chunk.recordIds, chunk.count, rowBytes);
            }
            rows += chunk.count;
            afterChunk.run();
            if (chunk.count < limit || chunk.lastKey == Long.MAX_VALUE) {
                break;
            }
            low = chunk.lastKey + 1;
        }
        CheckpointLayout.writeSectionEnd(out, rows);
        return rows;
    }

    /**
     * One scan transaction's rows, copied out of the transient views. They are written only once the
     * transaction commits: an attempt that aborts is retried from the start, and its rows must not be
     * written twice. So one chunk, not the table, is held in memory.
     */
    private static final class ChunkScan implements RowVisitor {
        final Index primary;
        final int rowBytes;
        /** Rows per chunk without contention. */
        final int maxRows;
        final byte[] rows;
        final long[] recordIds;
        int count;
        long lastKey;
        private long from;
        private Transaction tx;

        ChunkScan(Index primary, int rowBytes) {
            this.primary = primary;
            this.rowBytes = rowBytes;
            this.maxRows = Math.max(1, Math.min(CHUNK_ROWS, CHUNK_BYTES / rowBytes));
            this.rows = new byte[maxRows * rowBytes];
            this.recordIds = new long[maxRows];
        }

        /** The body of one attempt: at most {@code limit} rows with keys from {@code from} on. */
        Integer read(Transaction tx, long from, int limit) {
            this.from = from;
            this.tx = tx;
            count = 0;
            tx.readRange(primary, from, Long.MAX_VALUE, limit, this);
            return count;
        }

        @Override
        public boolean visit(TupleView row) {
            long key = primary.keyOf(row);
            if (count > 0 ? key <= lastKey : key < from) {
                throw new IllegalStateException("primary index scan out of order: index=" + primary.name() + " key=" + key
                    + (count > 0 ? " previousKey=" + lastKey : " fromKey=" + from));
            }
            row.copyRowTo(rows, count * rowBytes);
            recordIds[count] = tx.visitingRecordId();
            lastKey = key;
            count++;
            return true;
        }
    }

    /**
     * Makes the log durable through {@code coveredThrough}, in either mode; fails naming the log if it
     * lost a number in range or could not force.
     */
    private static void forceLogThrough(Wal wal, long coveredThrough, Path file) {
        if (wal == null || coveredThrough == 0) {
            return;
        }
        try {
            wal.forceThrough(coveredThrough);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("checkpoint abandoned, the log cannot make what it holds durable: file=" + file
                + " coveredThrough=" + coveredThrough + " durable=" + wal.durable() + ": " + e.getMessage(), e);
        }
    }

    /** Removes every checkpoint file in {@code dataDir} but {@code keep}; a failure is a warning (the checkpoint is published). */
    private static void removeOthers(Path dataDir, Path keep) {
        List<Path> others;
        try (Stream<Path> entries = Files.list(dataDir)) {
            others = entries.filter(p -> !p.getFileName().equals(keep.getFileName()))
                .filter(p -> isCheckpointName(p.getFileName().toString())).toList();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "older checkpoints not removed: directory=" + dataDir, e);
            return;
        }
        for (Path other : others) {
            try {
                Files.deleteIfExists(other);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "older checkpoint not removed: file=" + other, e);
            }
        }
    }

    private static boolean isCheckpointName(String name) {
        return CheckpointLayout.replayFromOf(name, CheckpointLayout.COMPLETE) >= 0
            || CheckpointLayout.replayFromOf(name, CheckpointLayout.PARTIAL) >= 0;
    }

    /** A published checkpoint's replay start from its name, or -1 if {@code file} is not named as one. */
    private static long replayFromOf(Path file) {
        return CheckpointLayout.replayFromOf(file.getFileName().toString(), CheckpointLayout.COMPLETE);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "unfinished checkpoint not removed: file=" + file, e);
        }
    }

    private static void closeAfterFailure(FileChannel channel, Throwable failure) {
        try {
            channel.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}
