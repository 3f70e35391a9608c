package io.selcc.wal;

import io.selcc.engine.CommitLog;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What a crashed compute node's repair reads from in a log group ({@link Wal}), and the truncation that
 * waits for it: the base (the newest checkpoint this run published, else memory when logging started),
 * the log files removed so far, the bulk loads since the base began, and the repair sources open. While
 * a repair reads ({@link #openRepair}) a checkpoint published removes neither older checkpoints nor log
 * files, and {@link #truncate} removes nothing: the repair may be reading them.
 *
 * <p>Thread-safe: everything is guarded by {@link #repairLock}.
 */
final class RepairBase {
    /** The log directory: every node's log is under it. */
    private final Path directory;
    /** The group's logs as they are now (indexed by compute node, null where none is open). */
    private final Supplier<ChronicleCommitLog[]> logs;
    /** The settled number the first log opened with: a repair reads only records above it; guarded by {@link #repairLock}. */
    private long loggingFrom = -1;
    /** Guards the repair base, the repairs reading, and truncation. */
    private final Object repairLock = new Object();
    /** The newest checkpoint of this run ({@link Wal#checkpointPublished}), a crashed node's repair base; null before. */
    private Path baseCheckpoint;
    /** {@link #baseCheckpoint}'s replay start. */
    private long baseReplayFrom;
    /** Repair sources open: while any is, a checkpoint published removes neither older checkpoints nor log files. */
    private int repairsOpen;
    /** The highest replay start a {@link #truncate} that removed files was given: records up to it may be gone. */
    private long truncatedThrough = -1;
    /** Bulk loads into the database so far ({@link #bulkLoaded}); guarded by {@link #repairLock}. */
    private long bulkLoads;
    /** {@link #bulkLoads} when the base checkpoint's scan began: another load since makes the base incomplete. */
    private long baseBulkLoads;

    RepairBase(Path directory, Supplier<ChronicleCommitLog[]> logs) {
        this.directory = directory;
        this.logs = logs;
    }

    /** A log opened after {@code settledThrough}: the first one sets where logging started. */
    void loggingStarts(long settledThrough) {
        synchronized (repairLock) {
            if (loggingFrom < 0) {
                loggingFrom = settledThrough;
            }
        }
    }

    /** See {@link Wal#checkpointPublished}. */
    int checkpointPublished(Path checkpoint, long replayFrom, long bulkLoadsBefore, Runnable removeOlder) {
        Objects.requireNonNull(checkpoint, "checkpoint");
        synchronized (repairLock) {
            if (baseCheckpoint != null && replayFrom < baseReplayFrom) {
                // Published after a newer one (two writers at once): removing "the others" would remove the
                // newer, and the newer one's truncation already went past this one's replay start.
                return 0;
            }
            // A checkpoint of changes from before logging started cannot be repaired from: those are in no log.
            if (loggingFrom >= 0 && replayFrom >= loggingFrom) {
                baseCheckpoint = checkpoint;
                baseReplayFrom = replayFrom;
                baseBulkLoads = bulkLoadsBefore;
            }
            if (repairsOpen > 0) {
                return 0;
            }
            removeOlder.run();
            return truncate(replayFrom);
        }
    }

    /** See {@link Wal#bulkLoads}. */
    long bulkLoads() {
        synchronized (repairLock) {
            return bulkLoads;
        }
    }

    /** See {@link Wal#bulkLoaded}. */
    void bulkLoaded() {
        synchronized (repairLock) {
            bulkLoads++;
        }
    }

    /** See {@link Wal#truncate}. */
    int truncate(long replayFrom) {
        synchronized (repairLock) {
            if (repairsOpen > 0) {
                return 0;
            }
            int removed = 0;
            for (ChronicleCommitLog log : logs.get()) {
                if (log != null) {
                    removed += log.truncate(replayFrom);
                }
            }
            if (removed > 0) {
                truncatedThrough = Math.max(truncatedThrough, replayFrom);
            }
            return removed;
        }
    }

    /** See {@link Wal#canReadBack}. */
    boolean canReadBack() {
        synchronized (repairLock) {
            return whyNotReadable() == null;
        }
    }

    /** See {@link Wal#openRepair}. */
    CommitLog.RepairSource openRepair() {
        synchronized (repairLock) {
            String why = whyNotReadable();
            if (why != null) {
                throw new IllegalStateException(why);
            }
            repairsOpen++;
            return new Source(baseCheckpoint, repairFrom());
        }
    }

    /** Why a repair cannot start now, or null; guarded by {@link #repairLock}. */
    private String whyNotReadable() {
        long from = repairFrom();
        if (truncatedThrough > from) {
            return "cannot read the logs back from " + from + ": log files through " + truncatedThrough
                + " were removed (directory=" + directory + ")";
        }
        if (baseCheckpoint != null && bulkLoads != baseBulkLoads) {
            return "rows were bulk-loaded after checkpoint " + baseCheckpoint.getFileName()
                + " began, and are in no log: take a checkpoint first";
        }
        if (baseCheckpoint != null && !Files.isRegularFile(baseCheckpoint)) {
            return "the repair's base checkpoint is gone: file=" + baseCheckpoint;
        }
        return null;
    }

    /** Guarded by {@link #repairLock}. */
    private long repairFrom() {
        return baseCheckpoint != null ? baseReplayFrom : loggingFrom;
    }

    /** See {@link #openRepair}. */
    private final class Source implements CommitLog.RepairSource {
        private final Path checkpoint;
        private final long from;
        private boolean closed;

        Source(Path checkpoint, long from) {
            this.checkpoint = checkpoint;
            this.from = from;
        }

        @Override
        public boolean baseIsCheckpoint() {
            return checkpoint != null;
        }

        @Override
        public void forEachBaseRow(CommitLog.BaseRowVisitor visitor) {
            if (checkpoint == null) {
                throw new IllegalStateException("the repair's base is memory, not a checkpoint");
            }
            try (Checkpoint.Reader reader = Checkpoint.open(checkpoint)) {
                reader.forEachRow(visitor::row);
            }
        }

        /**
         * Streams every node's log under the directory, one node after another, each in its log's order;
         * only records above the base, and of a node another process repaired ({@link RepairMarker}) only
         * those that repair took (a later one was appended by a fenced process after the repair read its
         * log: it never committed for anyone).
         *
         * @throws IllegalStateException if a log is damaged (a cut tail would silently lose committed work)
         */
        @Override
        public void forEachChange(CommitLog.ChangeVisitor visitor) {
            java.util.Map<Integer, RepairMarker> markers = RepairMarker.readAll(directory);
            for (Path nodeDirectory : SharedWatermark.nodeDirectories(directory)) {
                RepairMarker repaired = markers.get(RepairMarker.nodeOf(nodeDirectory));
                String warning = LogReader.forEach(nodeDirectory, record -> {
                    if (record.sequence() <= from) {
                        return; // in the base, or an earlier run's (its record ids name another run's memory)
                    }
                    if (repaired != null && repaired.late(record.sequence())) {
                        return;
                    }
                    for (LogRecord.Entry entry : record.entries()) {
                        visitor.change(record.sequence(), entry.kind(), entry.tableId(), entry.key(), entry.recordId(),
                            entry.image());
                    }
                });
                if (warning != null) {
                    throw new IllegalStateException("cannot read the logs back: " + warning);
                }
            }
        }

        @Override
        public String describeBase() {
            return checkpoint != null ? "checkpoint " + checkpoint.getFileName() + " (replay from " + from + ")"
                : "memory when logging started (sequence " + from + ")";
        }

        @Override
        public void close() {
            synchronized (repairLock) {
                if (!closed) {
                    closed = true;
                    repairsOpen--;
                }
            }
        }
    }
}
