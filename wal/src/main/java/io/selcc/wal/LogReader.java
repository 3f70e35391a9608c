package io.selcc.wal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.RollingResourcesCache;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads one compute node's log back, in append order, for recovery. Every record's length and CRC
 * are verified; the log is cut at the first record that fails (a torn or damaged write: nothing
 * after it can be trusted to follow it), and a warning names the file and the record's place.
 *
 * <p>A Chronicle document whose header was never completed (the writer died inside it) is not
 * visible to a reader at all; what this class catches is a complete document whose bytes are not
 * the record that was written.
 */
public final class LogReader {
    private static final System.Logger LOG = System.getLogger(LogReader.class.getName());

    /** The records read, and why reading stopped early ({@code null} if it read to the end). */
    public record Result(List<LogRecord> records, String warning) {
        public Result {
            records = List.copyOf(records);
        }

        /** Whether every document in the log was a good record. */
        public boolean complete() {
            return warning == null;
        }
    }

    private LogReader() {
    }

    /**
     * Reads every good record of the node log in {@code nodeDirectory} ({@link Wal#nodeDirectory}),
     * stopping at the first damaged one. Does not modify the log.
     *
     * @throws IllegalArgumentException if the directory does not exist
     */
    public static Result read(Path nodeDirectory) {
        List<LogRecord> records = new ArrayList<>();
        String warning = forEach(nodeDirectory, records::add);
        return new Result(records, warning);
    }

    /**
     * {@link #read} without keeping the records: hands each good record to {@code each}, in the log's
     * order, and returns the warning that cut the log at a damaged record, or null if every document was
     * a good record.
     *
     * @throws IllegalArgumentException if the directory does not exist
     */
    public static String forEach(Path nodeDirectory, java.util.function.Consumer<LogRecord> each) {
        try (Cursor cursor = open(nodeDirectory)) {
            for (LogRecord record = cursor.next(); record != null; record = cursor.next()) {
                each.accept(record);
            }
            return cursor.warning();
        }
    }

    /**
     * A cursor over the good records of the node log in {@code nodeDirectory}, in the log's order: one
     * record at a time, so several logs can be merged by sequence number without holding them.
     *
     * @throws IllegalArgumentException if the directory does not exist
     */
    public static Cursor open(Path nodeDirectory) {
        if (!Files.isDirectory(nodeDirectory)) {
            throw new IllegalArgumentException("no log directory: directory=" + nodeDirectory);
        }
        return new Cursor(nodeDirectory);
    }

    /** See {@link #open}. One thread; close it when done. */
    public static final class Cursor implements AutoCloseable {
        private final Path nodeDirectory;
        private final SingleChronicleQueue queue;
        private final ExcerptTailer tailer;
        private byte[] buffer = new byte[4096];
        private final CRC32C crc = new CRC32C();
        private long count;
        /** The sequence number of the last record returned; a node's log holds them in ascending order. */
        private long lastSequence = Long.MIN_VALUE;
        private String warning;
        private boolean ended;

        private Cursor(Path nodeDirectory) {
            this.nodeDirectory = nodeDirectory;
            if (!holdsCycleFiles(nodeDirectory)) {
                // Nothing was ever appended. Not opened: a process killed while Chronicle was creating the
                // queue can leave its metadata file half made, and opening it then fails on its lock.
                queue = null;
                tailer = null;
                ended = true;
                return;
            }
            queue = SingleChronicleQueueBuilder.binary(nodeDirectory).rollCycle(Wal.rollCycle()).readOnly(true).build();
            try {
                tailer = queue.createTailer();
                startAtLowestCycleFile(queue, tailer, nodeDirectory);
            } catch (RuntimeException | Error e) {
                queue.close();
                throw e;
            }
        }

        /**
         * The next good record, or null at the end of the log or at its first damaged record ({@link #warning}).
         *
         * @throws IllegalStateException if the record's sequence number is not above the one before it
         */
        public LogRecord next() {
            if (ended) {
                return null;
            }
            try (DocumentContext document = tailer.readingDocument()) {
                if (!document.isPresent()) {
                    ended = true;
                    return null;
                }
                Bytes<?> bytes = document.wire().bytes();
                long available = bytes.readRemaining();
                long position = bytes.readPosition();
                LogRecordLayout.Damage damage;
                int length = (int) Math.min(available, Integer.MAX_VALUE);
                if (available > Integer.MAX_VALUE) {
                    damage = LogRecordLayout.Damage.BAD_LENGTH;
                } else {
                    if (buffer.length < length) {
                        buffer = new byte[Math.max(length, 2 * buffer.length)];
                    }
                    bytes.read(buffer, 0, length);
                    damage = LogRecordLayout.check(buffer, length, crc);
                }
                if (damage != LogRecordLayout.Damage.NONE) {
                    File file = tailer.currentFile();
                    warning = "wal log cut at a damaged record: directory=" + nodeDirectory
                        + " file=" + (file == null ? "?" : file.getName()) + " index=0x" + Long.toHexString(document.index())
                        + " position=" + position + " length=" + available + " damage=" + damage
                        + " recordsBefore=" + count;
                    LOG.log(System.Logger.Level.WARNING, warning);
                    ended = true;
                    return null;
                }
                LogRecord record = LogRecordLayout.decode(buffer, length);
                if (record.sequence() <= lastSequence) {
                    // Not the end of the log, and not a torn write: records were appended out of their
                    // order (Chronicle writing to an earlier cycle file after the clock stepped back) or
                    // damaged in a way the CRC does not catch. Reading on would misplace a gap.
                    File file = tailer.currentFile();
                    throw new IllegalStateException("wal log out of order, a corrupt log: directory=" + nodeDirectory
                        + " file=" + (file == null ? "?" : file.getName()) + " index=0x" + Long.toHexString(document.index())
                        + " sequence=" + record.sequence() + " after sequence=" + lastSequence
                        + " recordsBefore=" + count);
                }
                lastSequence = record.sequence();
                count++;
                return record;
            }
        }

        /** Why the log was cut at a damaged record, or null if every document read so far was a good record. */
        public String warning() {
            return warning;
        }

        @Override
        public void close() {
            if (tailer != null) {
                tailer.close();
            }
            if (queue != null) {
                queue.close();
            }
        }
    }

    /**
     * Puts the tailer at the start of the lowest cycle file in the directory. A tailer starts at the
     * lowest cycle Chronicle's metadata file names, and a truncated log can name one that is gone (a
     * crash between removing the file and refreshing the listing, {@link ChronicleCommitLog#truncate});
     * a read-only queue cannot refresh it, and its tailer then reads nothing at all.
     */
    private static void startAtLowestCycleFile(SingleChronicleQueue queue, ExcerptTailer tailer, Path nodeDirectory) {
        RollingResourcesCache names = new RollingResourcesCache(queue.rollCycle(), queue.epoch(),
            name -> nodeDirectory.resolve(name + SingleChronicleQueue.SUFFIX).toFile(),
            file -> file.getName().substring(0, file.getName().length() - SingleChronicleQueue.SUFFIX.length()));
        int lowest = Integer.MAX_VALUE;
        try (java.util.stream.Stream<Path> files = Files.list(nodeDirectory)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (name.endsWith(SingleChronicleQueue.SUFFIX)) {
                    lowest = Math.min(lowest, names.parseCount(name.substring(0, name.length() - SingleChronicleQueue.SUFFIX.length())));
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot list the log directory " + nodeDirectory, e);
        }
        int first = queue.firstCycle();
        int last = queue.lastCycle();
        // Only a listing that starts below the lowest file present is stale this way. A file the listing
        // does not reach at all is one whose creation a kill cut short, before any record went in (the
        // appender lists a cycle before it writes to it): read as before, it yields nothing.
        if (lowest != Integer.MAX_VALUE && lowest > first && lowest <= last && !tailer.moveToCycle(lowest)) {
            throw new IllegalStateException("cannot read the log from its first cycle file: directory=" + nodeDirectory
                + " cycle=" + lowest + " (Chronicle's listing: cycles " + first + " to " + last + ")");
        }
    }

    /** Whether the directory holds a Chronicle cycle file (records live only there). */
    private static boolean holdsCycleFiles(Path nodeDirectory) {
        try (java.util.stream.Stream<Path> files = Files.list(nodeDirectory)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith(".cq4"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot list the log directory " + nodeDirectory, e);
        }
    }
}
