package io.selcc.wal;

import io.selcc.engine.Redo;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * One compute node's two-phase-commit log (partitioned mode): the records the protocol forces, beside
 * the node's commit log. A participant forces a <em>prepare</em> record with its branch's changes
 * before it votes yes; a coordinator forces its <em>commit decision</em>, with its own branch's changes,
 * before it tells anyone. Presumed abort: an abort is never logged, so a transaction with no decision
 * record aborted. A branch's commit record still goes to the commit log once the decision is known
 * (recovery replays it from there); the prepare record is what a participant that crashed in doubt
 * replays once its coordinator's log says commit.
 *
 * <p>Records are {@link LogRecordLayout}'s, kind {@code KIND_PREPARE} or {@code KIND_DECISION}, with the
 * global transaction id where a commit record has its sequence number. Each is forced on its own
 * ({@code fdatasync} of its cycle file; the file's directory entry and Chronicle's metadata too when
 * the file is new) before its method returns: the baseline pays one force per record, which is what
 * the comparison with fully-shared mode measures. {@link #inMemory} forces nothing and keeps nothing
 * on disk (no {@code --data-dir}, {@code --wal off}).
 *
 * <p>Thread-safe: appends and forces are serialized.
 */
public final class TwoPhaseLog implements AutoCloseable {
    private final int computeNode;
    /** Null for an in-memory log. */
    private final Path directory;
    private final SingleChronicleQueue queue;
    /** Whether each record is forced before its method returns (false: appended, written back by the OS). */
    private final boolean forcing;
    private final ExcerptAppender appender;
    private final CRC32C crc = new CRC32C();
    private byte[] buffer = new byte[4096];
    /** Global ids with a durable commit decision that nobody may forget yet. */
    private final Set<Long> committed = new HashSet<>();
    /** Prepare records found when the log was opened, by global id (in doubt unless decided). */
    private final Map<Long, LogRecord> preparedAtOpen = new HashMap<>();
    private File forcedFile;
    private FileChannel channel;
    private long forces;
    /** Whether the directories above this log's were forced (with its first file). */
    private boolean parentsForced;
    private boolean closed;
    /**
     * Why a write or force failed, or null. A failed log takes no more records: one after a damaged or
     * unforced record would be invisible to a recovery (which stops reading at the damage) while the
     * protocol acted on it (a participant voting yes, a coordinator deciding).
     */
    private String failure;

    /** How records are forced: the disk's, or a test's seam. */
    private final FileForcing fileForcing;

    private TwoPhaseLog(int computeNode, Path directory, boolean forcing, FileForcing fileForcing) {
        this.fileForcing = fileForcing;
        this.computeNode = computeNode;
        this.directory = directory;
        this.forcing = forcing;
        if (directory == null) {
            queue = null;
            appender = null;
            return;
        }
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the two-phase-commit log directory: " + directory, e);
        }
        queue = MonotonicCycleTime.build(SingleChronicleQueueBuilder.binary(directory).rollCycle(Wal.rollCycle()),
            "two-phase-commit log of computeNode=" + computeNode + " directory=" + directory);
        try {
            readBack();
            appender = queue.createAppender();
            appender.singleThreadedCheckDisabled(true); // every thread of the node appends, under this object's lock
        } catch (RuntimeException | Error e) {
            queue.close();
            throw e;
        }
    }

    /**
     * Opens (or creates) the log of {@code computeNode} in {@code directory}, reading back what it holds:
     * the commit decisions (what a recovered coordinator answers) and the prepare records.
     */
    public static TwoPhaseLog open(Path directory, int computeNode) {
        return open(directory, computeNode, true);
    }

    /**
     * {@link #open(Path, int)}; with {@code forcing} false the records are appended and left to the OS to
     * write back, as an ASYNC commit log's are (a machine crash may lose the newest).
     */
    public static TwoPhaseLog open(Path directory, int computeNode, boolean forcing) {
        return new TwoPhaseLog(computeNode, java.util.Objects.requireNonNull(directory, "directory"), forcing, FileForcing.DISK);
    }

    /** {@link #open(Path, int, boolean)} forcing through {@code fileForcing} (tests: a force that fails). */
    static TwoPhaseLog open(Path directory, int computeNode, boolean forcing, FileForcing fileForcing) {
        return new TwoPhaseLog(computeNode, java.util.Objects.requireNonNull(directory, "directory"), forcing, fileForcing);
    }

    /** Where compute node {@code computeNode}'s two-phase-commit log lives under a log directory {@code root}. */
    public static Path directory(Path root, int computeNode) {
        return root.resolve(DIRECTORY_PREFIX + computeNode);
    }

    /**
     * Deletes every two-phase-commit log under the log directory {@code root} (they must be closed) and
     * forces {@code root}, so the deletion is on disk before anything that relies on it. For the end of a
     * partitioned run, once every branch ended: each decided branch's commit record is in its commit log,
     * so the decisions are no longer needed, and they must be gone before a checkpoint truncates the commit
     * logs (a recovery would otherwise find decisions whose branch records were truncated, take them for
     * missing, and apply their old images over later writes).
     */
    public static void removeAll(Path root) {
        for (Path log : Recovery.subdirectories(root, DIRECTORY_PREFIX)) {
            Recovery.deleteTree(log);
        }
        try {
            FileForcing.DISK.force(root, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot force the log directory " + root, e);
        }
    }

    /** The name of every two-phase-commit log's directory starts so (beside the commit logs' {@code node-N}). */
    static final String DIRECTORY_PREFIX = "twopc-node-";

    /**
     * Reads every undamaged record of the two-phase-commit log in {@code directory} in order, handing
     * each with its kind ({@link LogRecordLayout#KIND_PREPARE} or {@code KIND_DECISION}) to {@code sink};
     * returns a warning when the log was cut at a damaged record (its tail was never forced), else null.
     * For recovery: the log is closed.
     */
    static String forEachRecord(Path directory, java.util.function.BiConsumer<Byte, LogRecord> sink) {
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(directory).rollCycle(Wal.rollCycle())
                .readOnly(true).build()) {
            return forEachRecord(queue, directory, sink);
        }
    }

    /** {@link #forEachRecord(Path, java.util.function.BiConsumer)} over an open queue of {@code directory}. */
    private static String forEachRecord(SingleChronicleQueue queue, Path directory,
                                        java.util.function.BiConsumer<Byte, LogRecord> sink) {
        try (ExcerptTailer tailer = queue.createTailer()) {
            CRC32C crc = new CRC32C();
            byte[] buffer = new byte[4096];
            long read = 0;
            while (true) {
                try (DocumentContext document = tailer.readingDocument()) {
                    if (!document.isPresent()) {
                        return null;
                    }
                    Bytes<?> bytes = document.wire().bytes();
                    long available = bytes.readRemaining();
                    if (available > Integer.MAX_VALUE) {
                        return damaged(directory, read, LogRecordLayout.Damage.BAD_LENGTH);
                    }
                    int length = (int) available;
                    if (buffer.length < length) {
                        buffer = new byte[Math.max(length, 2 * buffer.length)];
                    }
                    bytes.read(buffer, 0, length);
                    LogRecordLayout.Damage damage = LogRecordLayout.check(buffer, length, crc, LogRecordLayout.KIND_PREPARE,
                        LogRecordLayout.KIND_DECISION);
                    if (damage != LogRecordLayout.Damage.NONE) {
                        return damaged(directory, read, damage);
                    }
                    sink.accept(buffer[LogRecordLayout.KIND_OFFSET], LogRecordLayout.decode(buffer, length));
                    read++;
                }
            }
        }
    }

    private static String damaged(Path directory, long recordsBefore, LogRecordLayout.Damage damage) {
        return "two-phase-commit log cut at a damaged record: directory=" + directory + " damage=" + damage
            + " recordsBefore=" + recordsBefore;
    }

    /** A log that forces nothing and keeps its decisions only in memory: a crash loses them. */
    public static TwoPhaseLog inMemory(int computeNode) {
        return new TwoPhaseLog(computeNode, null, false, FileForcing.DISK);
    }

    /** Forces a participant's prepare record for global transaction {@code gtid}; {@code changes} may be null. */
    public synchronized void forcePrepare(long gtid, Redo changes) {
        append(LogRecordLayout.KIND_PREPARE, gtid, changes);
    }

    /** Forces the coordinator's commit decision for {@code gtid}, with its own branch's changes (may be null). */
    public synchronized void forceCommit(long gtid, Redo coordinatorChanges) {
        append(LogRecordLayout.KIND_DECISION, gtid, coordinatorChanges);
        committed.add(gtid);
    }

    /** Whether a commit decision for {@code gtid} is in this log (and not forgotten). */
    public synchronized boolean hasCommit(long gtid) {
        return committed.contains(gtid);
    }

    /**
     * Every participant has applied the commit of {@code gtid}: nobody will ask about it any more, so
     * this log stops answering for it (its record stays on disk until the log is truncated).
     */
    public synchronized void forget(long gtid) {
        committed.remove(gtid);
    }

    /**
     * Drops the decisions known in memory and reads them back from the disk, as a coordinator that
     * restarted would (what {@link #forget} dropped comes back too), after forcing the current file when
     * records are forced. An in-memory log keeps its set.
     *
     * @throws UncheckedIOException if the force fails (nothing is reread then)
     */
    public synchronized void rereadDecisions() {
        if (queue == null) {
            return;
        }
        java.io.File current = appender.currentFile();
        if (failure != null) {
            throw new IllegalStateException("two-phase-commit log failed, it cannot be reread as a recovered one:"
                + " computeNode=" + computeNode + " (" + failure + "); restart from the data directory");
        }
        if (forcing && current != null && current.exists()) {
            // A force that failed may have left its record in the page cache only: answering from there
            // ("commit") could be contradicted by a machine crash later. So the file is forced first; if
            // that fails again, this throws and the coordinator stays down.
            force(current);
        }
        committed.clear();
        preparedAtOpen.clear();
        readBack();
    }

    /** The prepare records this log held when it was opened, by global transaction id. */
    public synchronized Map<Long, LogRecord> preparedAtOpen() {
        return Map.copyOf(preparedAtOpen);
    }

    /** Forces done so far (each of a cycle file, its directory or Chronicle's metadata counts one). */
    public synchronized long forces() {
        return forces;
    }


    private void append(byte kind, long gtid, Redo changes) {
        if (closed) {
            throw new IllegalStateException("two-phase-commit log closed: computeNode=" + computeNode);
        }
        if (failure != null) {
            throw new IllegalStateException("two-phase-commit log failed earlier, it takes no more records: computeNode="
                + computeNode + " (" + failure + ")");
        }
        if (queue == null) {
            return;
        }
        int length = LogRecordLayout.encodedLengthOrHeader(changes);
        if (length < 0) {
            throw new IllegalArgumentException("branch too large for one record: computeNode=" + computeNode + " gtid=" + gtid);
        }
        if (buffer.length < length) {
            buffer = new byte[Math.max(length, 2 * buffer.length)];
        }
        LogRecordLayout.encode(kind, changes, gtid, computeNode, buffer, crc);
        try {
            try (DocumentContext document = appender.writingDocument()) {
                try {
                    document.wire().bytes().write(buffer, 0, length);
                } catch (RuntimeException | Error e) {
                    document.rollbackOnClose(); // no half record left complete
                    throw e;
                }
            }
            if (forcing) {
                force(appender.currentFile());
            }
        } catch (RuntimeException | Error e) {
            failure = e.toString();
            throw e;
        }
    }

    private void force(File file) {
        try {
            boolean newFile = !file.equals(forcedFile);
            if (newFile) {
                if (channel != null) {
                    channel.close();
                }
                channel = FileChannel.open(file.toPath(), StandardOpenOption.READ);
                forcedFile = file;
            }
            fileForcing.forceData(channel, file.toPath());
            forces++;
            if (newFile) {
                forces += LogFlusher.forceFindable(fileForcing, directory, !parentsForced);
                parentsForced = true;
            }
        } catch (IOException e) {
            // A record the disk may not hold: the protocol must not go on as if it did.
            throw new UncheckedIOException("two-phase-commit log force failed: computeNode=" + computeNode
                + " directory=" + directory, e);
        }
    }

    /** Reads every good record; stops at the first damaged one (a torn tail). */
    private void readBack() {
        forEachRecord(queue, directory, (kind, record) -> {
            if (kind == LogRecordLayout.KIND_DECISION) {
                committed.add(record.sequence());
            } else {
                preparedAtOpen.put(record.sequence(), record);
            }
        });
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            // a read channel used for forcing: closing it loses nothing
        }
        if (queue != null) {
            queue.close();
        }
    }
}
