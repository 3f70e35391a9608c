package io.selcc.wal;

import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent that makes one log's appends durable: a duty cycle ({@link #doWork}) of waiting until
 * something was appended, forcing the log once and publishing every sequence number that force
 * covered to the {@link Wal} group. Appends made while it forces wait for the next cycle, so one force
 * covers everything appended before it began (group commit). Runs on the log's own thread.
 *
 * <p>How it forces (SYNC): {@code fdatasync} ({@link FileChannel#force force(false)}) of each cycle
 * file appended to since the last force, on a channel of its own. On Linux that writes back the pages
 * the appender dirtied through its memory mapping, whichever 64 MiB chunk they are in, and reports an
 * I/O error as an exception. Chronicle's {@code appender.sync()} would do an msync of the
 * appender's current chunk only, must run on the appending side of the lock (it reads the
 * appender's position), and only logs a failed msync. When a new cycle file appears, Chronicle's
 * {@code metadata.cq4t} and the directory are forced too, so the file can be found after a crash.
 * In ASYNC the appends publish themselves ({@link Wal#awaitDurable}); the flusher forces only when asked
 * ({@link ChronicleCommitLog#requestForce}: a checkpoint), the same way.
 */
final class LogFlusher implements Runnable {
    /** What one force covers, swapped with the log's pending array. */
    static final class Batch {
        long[] sequences = new long[256];
        int count;
        /** Whether {@link #files} are to be forced (always in SYNC; in ASYNC when a force was requested). */
        boolean forced;
        /** The force request this batch serves, 0 if none. */
        long forceRequest;
        /** The log's last appended sequence number when the batch was taken: a force covers it. */
        long lastAppended;
        final List<File> files = new ArrayList<>();
    }

    private final ChronicleCommitLog log;
    private final Wal group;
    private final Path directory;
    private final Batch batch = new Batch();
    /** The cycle file last forced, and a channel on it (volatile: a test closes it from outside). */
    private File channelFile;
    private volatile FileChannel channel;
    /** Whether the directories above the log's were forced (with its first cycle file). */
    private boolean parentsForced;

    LogFlusher(ChronicleCommitLog log, Wal group, Path directory) {
        this.log = log;
        this.group = group;
        this.directory = directory;
    }

    @Override
    public void run() {
        try {
            while (doWork() >= 0) {
                // the idle part of the duty cycle is the wait inside takeBatch
            }
            SharedWatermark shared = group.shared();
            if (shared != null) {
                shared.closeOut(group.watermark().lostFrom()); // everything appended is forced: the others stop counting this node
            }
        } catch (IOException | RuntimeException | Error e) {
            // Nothing this batch covered, nor anything appended after it, can be trusted to the disk.
            log.flusherFailed(batch.count > 0 ? batch.sequences[0] : log.lastAppended() + 1, e);
            SharedWatermark shared = group.shared();
            if (shared != null) {
                // The other processes would otherwise wait for ever for this node's word (found in review).
                shared.flusherFailed(group.watermark().lostFrom(), e);
            }
        } finally {
            closeChannel();
            log.flusherStopped();
        }
    }

    /**
     * One duty cycle: waits until something was appended or a force requested, forces it (SYNC, or
     * requested), publishes it; returns the number of sequence numbers published, or -1 once the log
     * closed and nothing is left.
     */
    int doWork() throws IOException {
        if (!log.takeBatch(batch)) {
            return -1;
        }
        if (batch.forced) {
            force(batch.files);
            log.batchForced(batch);
        }
        group.published(batch.sequences, batch.count);
        SharedWatermark shared = group.shared();
        if (shared != null) {
            shared.afterBatch(log, group.watermark().lostFrom());
        }
        return batch.count;
    }

    void closeChannel() {
        FileChannel current = channel;
        if (current != null) {
            try {
                current.close();
            } catch (IOException e) {
                // closing a read channel loses nothing
            }
        }
    }

    private void force(List<File> files) throws IOException {
        for (File file : files) {
            boolean newFile = !file.equals(channelFile);
            if (newFile) {
                closeChannel();
                channelFile = null;
                try {
                    channel = FileChannel.open(file.toPath(), StandardOpenOption.READ);
                } catch (NoSuchFileException e) {
                    if (log.removed(file)) {
                        continue; // truncated: a durable checkpoint covers every record in it, nothing to force
                    }
                    throw e;
                }
                channelFile = file;
            }
            FileForcing forcing = group.fileForcing();
            forcing.forceData(channel, file.toPath());
            log.countForce();
            if (newFile) {
                int forces = forceFindable(forcing, directory, !parentsForced);
                parentsForced = true;
                for (int i = 0; i < forces; i++) {
                    log.countForce();
                }
            }
        }
    }

    /**
     * Forces what makes a new cycle file of the queue in {@code directory} findable after a crash:
     * Chronicle's metadata file and the directory's entries; with {@code parents} (a log's first file)
     * also the two directories above it, whose entries name the log's directory and the log directory
     * itself (created with it: a power failure could otherwise lose the whole log). Returns the forces made.
     */
    static int forceFindable(FileForcing forcing, Path directory, boolean parents) throws IOException {
        forcing.force(directory.resolve(SingleChronicleQueue.QUEUE_METADATA_FILE), false);
        forcing.force(directory, true);
        int forces = 2;
        Path parent = directory.toAbsolutePath().getParent();
        for (int level = 0; parents && parent != null && level < 2; level++, parent = parent.getParent()) {
            forcing.force(parent, true);
            forces++;
        }
        return forces;
    }
}
