package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.Redo;
import io.selcc.fabric.NodeFailedException;
import io.selcc.threads.EngineThread;
import net.openhft.chronicle.bytes.SyncMode;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.StoreFileListener;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.zip.CRC32C;

/**
 * One compute node's redo log: a Chronicle Queue in its own directory, one document per committed
 * transaction ({@link LogRecordLayout}), appended under one lock so that sequence numbers enter the
 * log in the order they were drawn. An append only copies bytes into the mapped file; in SYNC the
 * node's {@link LogFlusher} forces them and reports them to the {@link Wal} group, in ASYNC the append
 * reports itself (the group's watermark is then the dense prefix of appended numbers).
 *
 * <p>After a write or a force fails the log is failed for good: a gap in the log cannot be mended,
 * so every later append returns {@link #FAILED} without drawing a sequence number. A full disk shows
 * as an {@link java.io.IOException} when Chronicle grows a file past a size limit, and as HotSpot's
 * {@link InternalError} for a fault in an unsafe memory access when a write to the mapped (sparse)
 * file needs a block the file system does not have; both fail the log and are logged in one line.
 *
 * <p><b>Forcing on demand.</b> {@link #requestForce} has the flusher force every cycle file appended
 * to since its last force, in either mode, and {@link #awaitForced} waits for that force: an ASYNC log
 * forces only then (a checkpoint must not hold a transaction the disk could lose), a SYNC log with
 * every batch anyway.
 *
 * <p><b>Truncation.</b> The log remembers, per Chronicle cycle file it appended to, the highest
 * sequence number in it. {@link #truncate} removes, oldest first, the files whose every record a
 * published checkpoint covers, but never the file the appender is on, nor one whose store Chronicle
 * has not reported released ({@link StoreFileListener#onReleased}): the appender releases a cycle's
 * store when it rolls to the next, so a released file is one Chronicle no longer writes. Files that
 * were in the directory before this log opened are not known here and are never removed by it.
 *
 * <p>Over 600 lines on purpose: appending, forcing, publishing and truncating all decide from the same
 * per-file sequence bounds, and a rule split from the others would be the first to be broken.
 */
final class ChronicleCommitLog implements CommitLog {
    private static final System.Logger LOG = System.getLogger(ChronicleCommitLog.class.getName());
    private static final int INITIAL_PENDING = 256;
    private static final int INITIAL_BUFFER = 4096;
    private static final int NO_CYCLE = Integer.MIN_VALUE;

    private final Wal group;
    private final int computeNode;
    private final Path directory;
    private final boolean forcing;
    private final LongSupplier nextSequence;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    /**
     * Longer records are refused before a sequence number is drawn: Chronicle bounds a document by the
     * queue's overlap size (a quarter of the block, 16 MiB by default), and a write past it throws.
     */
    private final int maxRecordLength;
    private final LogFlusher flusher;
    private volatile Thread flusherThread;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the first append after a batch was taken lands (SYNC), on a force request, and on close. */
    private final Condition appended = lock.newCondition();
    /** Signalled when the flusher finished a force that was requested, and when it stopped. */
    private final Condition forcedOnRequest = lock.newCondition();

    // Guarded by lock.
    private byte[] encodeBuffer = new byte[INITIAL_BUFFER];
    private final CRC32C crc = new CRC32C();
    /** SYNC: sequence numbers appended since the flusher last took a batch, in append (= ascending) order. */
    private long[] pending = new long[INITIAL_PENDING];
    private int pendingCount;
    /**
     * Cycle files appended to since the last forced batch, oldest first; the last is the appender's
     * (kept in ASYNC too, for a force on request).
     */
    private final List<File> pendingFiles = new ArrayList<>();
    /** Forces requested ({@link #requestForce}), handed to the flusher, and done; each counts up. */
    private long forceRequests;
    private long forceRequestsTaken;
    private long forceRequestsDone;
    /** The flusher ended (closed or failed): no requested force is done any more. */
    private boolean flusherStopped;
    /** Why the log failed (the first failure, one line), or null. */
    private String failure;
    private int cycle = NO_CYCLE;
    /** Every cycle file appended to and not removed, by cycle; the appender's is {@link #cycleFile}. */
    private final TreeMap<Integer, CycleFile> cycles = new TreeMap<>();
    private CycleFile cycleFile;
    private boolean closing;
    private boolean failed;
    /** Its compute node crashed: no append any more; what was appended is still forced and published. */
    private boolean sealed;
    /** Sharing: a waiter asked the flusher to exchange the durability words without its idle pause. */
    private boolean wakeRequested;
    /**
     * The last sequence number this log drew (from where logging started): the floor of a number whose
     * draw's outcome is unknown.
     */
    private long lastDrawn;

    // Written by one thread at a time (appends under lock, forces by the flusher), read by anyone.
    private volatile long appends;
    private volatile long bytes;
    private volatile long forces;
    private volatile long lastAppended;
    /** The highest sequence number a finished force covered: the last one appended when it began. */
    private volatile long forcedThrough;
    private volatile long filesRemoved;

    /**
     * Cycles whose store Chronicle reported released and not acquired again since: told on
     * Chronicle's background releaser thread, read under {@link #lock} by {@link #truncate}.
     */
    private final Set<Integer> released = ConcurrentHashMap.newKeySet();
    /**
     * Files {@link #truncate} removed: the flusher may still hold one in a batch (see {@link #removed}).
     * Never pruned: one name per file removed (a few hundred a day per node).
     */
    private final Set<File> removedFiles = ConcurrentHashMap.newKeySet();

    /** A cycle file appended to: the highest sequence number in it, guarded by {@link #lock}. */
    private static final class CycleFile {
        final int cycle;
        final File file;
        long highest;

        CycleFile(int cycle, File file) {
            this.cycle = cycle;
            this.file = file;
        }
    }

    ChronicleCommitLog(Wal group, int computeNode, Path directory, boolean forcing, LongSupplier nextSequence,
                       long settledThrough, UnaryOperator<SingleChronicleQueueBuilder> tuning) {
        this.group = group;
        this.lastDrawn = settledThrough;
        this.computeNode = computeNode;
        this.directory = directory;
        this.forcing = forcing;
        this.nextSequence = nextSequence;
        try {
            // SYNC also makes Chronicle msync (MS_SYNC) a chunk before it unmaps it; commits are forced by the flusher.
            this.queue = MonotonicCycleTime.build(tuning.apply(SingleChronicleQueueBuilder.binary(directory)
                .syncMode(forcing ? SyncMode.SYNC : SyncMode.NONE)
                .rollCycle(Wal.rollCycle())
                .storeFileListener(new Releases())), "computeNode=" + computeNode + " directory=" + directory);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot open the log: computeNode=" + computeNode + " directory=" + directory, e);
        }
        this.appender = queue.createAppender();
        // Every committing thread appends through this appender, one at a time under our lock.
        appender.singleThreadedCheckDisabled(true);
        this.maxRecordLength = (int) Math.min(Integer.MAX_VALUE, queue.overlapSize());
        this.flusher = new LogFlusher(this, group, directory);
    }

    void startFlusher() {
        flusherThread = EngineThread.start("wal-flusher-node-" + computeNode, true, flusher);
    }

    /**
     * Draws the next sequence number and appends {@code redo} under it; {@link #FAILED} if the log has
     * failed, the record is longer than a document may be, or the write throws (then the log fails:
     * the sequence number drawn is a gap); {@link #OUTCOME_UNKNOWN} if anything fails once the record
     * may be complete in the log (Chronicle's close of the document, or what follows the write), which
     * fails the log as well.
     *
     * @throws IllegalStateException if the log is closed
     */
    @Override
    public long append(Redo redo) {
        int length = LogRecordLayout.encodedLength(redo);
        lock.lock();
        try {
            if (closing) {
                throw new IllegalStateException("log closed: computeNode=" + computeNode + " directory=" + directory);
            }
            if (failed || sealed) {
                return FAILED;
            }
            if (length < 0 || length > maxRecordLength) {
                LOG.log(System.Logger.Level.WARNING, "wal record too long, transaction refused: computeNode=" + computeNode
                    + " changes=" + redo.size() + " imageBytes=" + redo.imageBytes() + " maxRecordLength=" + maxRecordLength);
                return FAILED;
            }
            if (encodeBuffer.length < length) {
                encodeBuffer = new byte[Math.max(length, 2 * encodeBuffer.length)];
            }
            // From the draw on, every path ends with the number published or lost (the group told):
            // a number that is neither would hold every later commit's durability wait for ever.
            long sequence;
            try {
                sequence = nextSequence.getAsLong();
            } catch (NodeFailedException e) {
                throw e; // fenced: the fetch-and-add took no effect (the fabric's contract), nothing was drawn
            } catch (RuntimeException | Error e) {
                // It may have taken effect with its reply lost: some number above every one this log drew,
                // and above the watermark (nobody publishes it), is drawn and will never be appended.
                fail("draw (outcome unknown)", Math.max(lastDrawn, group.durable()) + 1, e);
                return OUTCOME_UNKNOWN;
            }
            lastDrawn = sequence;
            boolean written = false;
            try {
                plantedFault(FaultPoint.DRAWN);
                LogRecordLayout.encode(redo, sequence, computeNode, encodeBuffer, crc);
                write(encodeBuffer, length);
                written = true;
                plantedFault(FaultPoint.WRITTEN);
                noteAppend(sequence);
                plantedFault(FaultPoint.PUBLISHING);
                publish(sequence);
            } catch (OutcomeUnknown e) {
                fail("append (outcome unknown)", sequence, e.getCause());
                return OUTCOME_UNKNOWN; // the node stops; its repair, or the next recovery, reads what is there
            } catch (RuntimeException | Error e) {
                if (written) {
                    // The record is complete in the log: undoing the transaction would let others commit
                    // on writes a later replay redoes under them. Whatever failed, the node stops.
                    fail("append (after the record was written)", sequence, e);
                    return OUTCOME_UNKNOWN;
                }
                fail("append", sequence, e);
                if (e instanceof Error error && !IoFailures.isMappedFileFault(error)) {
                    throw error;
                }
                return FAILED; // a mapped write the file system could not back (full) fails the log, not the JVM
            }
            appends = appends + 1;
            bytes = bytes + length;
            lastAppended = sequence;
            return sequence;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Hands the appended {@code sequence} on: SYNC to the flusher's next batch (which publishes it once
     * forced), ASYNC to the group at once (appended is what a commit waits for, see Wal#awaitDurable).
     * Under lock.
     */
    private void publish(long sequence) {
        if (forcing) {
            if (pendingCount == pending.length) {
                pending = Arrays.copyOf(pending, 2 * pending.length);
            }
            pending[pendingCount++] = sequence;
            if (pendingCount == 1) {
                appended.signal();
            }
        } else {
            group.appended(sequence);
        }
    }

    @Override
    public void awaitDurable(long sequence) {
        group.awaitDurable(sequence);
    }

    @Override
    public void awaitAppendedDurable() {
        group.awaitAppendedDurable();
    }

    @Override
    public long appendedMark() {
        return group.appendedMark();
    }

    @Override
    public void awaitMarkDurable(long mark) {
        group.awaitDurable(mark); // a mark is a sequence number: every number up to it
    }

    /**
     * Its compute node crashed: every later append fails without drawing a number. Returns once no
     * append is in progress (numbers are drawn under the lock, so every number this log drew is in it).
     * The flusher goes on forcing and publishing what was appended: the log outlives its node.
     */
    void seal() {
        lock.lock();
        try {
            sealed = true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sharing, on the flusher thread after its last batch was made durable: a number through which every
     * number this log drew is durable now (see {@link SharedWatermark}). With appends waiting for the next
     * force, the lowest of them minus one (this log draws only higher ones); otherwise the higher of its
     * last append and {@code counterRead}, a value of the commit counter read before this call: every
     * number drawn from now on is above both. A number counted lost is the caller's to cap.
     */
    long vouchedThrough(long counterRead) {
        lock.lock();
        try {
            return pendingCount > 0 ? pending[0] - 1 : Math.max(counterRead, lastAppended);
        } finally {
            lock.unlock();
        }
    }

    /** Tests: the flusher, to run its duty cycle by hand once flushers are held ({@link Wal#holdFlushersForTest}). */
    LogFlusher flusherForTest() {
        return flusher;
    }

    /** Sharing: the flusher's next cycle starts now, not after its pause ({@link Wal#pollNanos}). */
    void wakeFlusher() {
        lock.lock();
        try {
            wakeRequested = true;
            appended.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks the flusher to force every record appended so far, whatever the mode; returns the request
     * to pass to {@link #awaitForced}.
     */
    long requestForce() {
        lock.lock();
        try {
            long request = ++forceRequests;
            appended.signal();
            return request;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns once the force {@code request} asked for is done: every record this log appended before
     * {@link #requestForce} returned it is on disk.
     *
     * @throws CommitLog.NotDurableException if the flusher stopped first (the log failed or closed)
     */
    void awaitForced(long request) {
        lock.lock();
        try {
            while (forceRequestsDone < request) {
                if (flusherStopped) {
                    throw new CommitLog.NotDurableException("log not forced: computeNode=" + computeNode + " directory="
                        + directory + (failure != null ? " because: " + failure : " (closed)"));
                }
                forcedOnRequest.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes, oldest first, every cycle file of this log whose records all have sequence numbers at
     * or below {@code coveredThrough}, that is not the file the appender is on, and whose store
     * Chronicle has released; stops at the first file that does not qualify (files are removed in
     * order, as Chronicle expects). The caller guarantees that a published, durable checkpoint makes
     * every record numbered at or below {@code coveredThrough} unnecessary. A file that cannot be
     * deleted is a warning and ends the pass. Returns the files removed; 0 once the log is closing.
     */
    int truncate(long coveredThrough) {
        List<CycleFile> doomed = new ArrayList<>();
        lock.lock();
        try {
            if (closing) {
                return 0;
            }
            int appending = appender.cycle();
            for (Iterator<CycleFile> it = cycles.values().iterator(); it.hasNext(); ) {
                CycleFile c = it.next();
                if (c.highest > coveredThrough || c.cycle == appending || c == cycleFile || !released.contains(c.cycle)) {
                    break;
                }
                it.remove();
                removedFiles.add(c.file); // before the unlink: the flusher may open it any moment
                pendingFiles.remove(c.file);
                doomed.add(c);
            }
        } finally {
            lock.unlock();
        }
        int removed = 0;
        // Outside the lock: unlinking a large file can take milliseconds, and no append needs these files.
        for (CycleFile c : doomed) {
            try {
                Files.deleteIfExists(c.file.toPath());
                removed++;
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "wal cycle file not removed, left for the next checkpoint:"
                    + " computeNode=" + computeNode + " file=" + c.file + " highestSequence=" + c.highest, e);
                break;
            }
        }
        if (doomed.isEmpty()) {
            return 0;
        }
        lock.lock();
        try {
            for (CycleFile c : doomed.subList(removed, doomed.size())) {
                cycles.put(c.cycle, c); // not removed: known again, in order (files go oldest first)
                removedFiles.remove(c.file);
            }
            for (CycleFile c : doomed.subList(0, removed)) {
                released.remove(c.cycle);
            }
            if (removed > 0 && !closing) {
                // Chronicle caches the lowest cycle in metadata.cq4t; a reader trusting a removed one
                // reads nothing (LogReader does not trust it, see there).
                queue.refreshDirectoryListing();
            }
            filesRemoved = filesRemoved + removed;
        } finally {
            lock.unlock();
        }
        return removed;
    }

    /** Forces what was appended, stops the flusher and closes the queue. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            closing = true;
            appended.signalAll();
            if (flusherThread == null) {
                startFlusher(); // held by a test: the final force still happens
            }
        } finally {
            lock.unlock();
        }
        EngineThread.joinUninterruptibly(flusherThread);
        appender.close();
        queue.close();
    }

    Wal.Counters counters() {
        return new Wal.Counters(appends, forces, bytes);
    }

    /** Cycle files {@link #truncate} removed since open. */
    long filesRemoved() {
        return filesRemoved;
    }

    /** Whether {@link #truncate} removed {@code file} (the flusher skips it: a checkpoint covers its records). */
    boolean removed(File file) {
        return removedFiles.contains(file);
    }

    /** Tests: the cycle files this log appended to and has not removed, oldest first. */
    List<File> cycleFilesForTest() {
        lock.lock();
        try {
            return cycles.values().stream().map(c -> c.file).toList();
        } finally {
            lock.unlock();
        }
    }

    /** Tests: the highest sequence number a finished force covered (0 before the first). */
    long forcedThroughForTest() {
        return forcedThrough;
    }

    /** The highest sequence number an append of this log has returned (0 before the first). */
    long lastAppended() {
        return lastAppended;
    }

    Path directory() {
        return directory;
    }

    int maxRecordLength() {
        return maxRecordLength;
    }

    // ------------------------------------------------------------------ the flusher's side

    /**
     * Waits until something was appended or a force requested, then hands the flusher every sequence
     * number appended so far (swapping its spare array in) and, when the batch is to be forced (SYNC,
     * or a force was requested), the files they are in; false once the log is closing and nothing is
     * left.
     */
    boolean takeBatch(LogFlusher.Batch batch) {
        long pause = group.pollNanos(); // sharing: the words are exchanged after every batch, at least this often
        long deadline = System.nanoTime() + pause;
        lock.lock();
        try {
            while (pendingCount == 0 && !closing && forceRequests == forceRequestsTaken) {
                // SYNC: an append wakes it; ASYNC: only a force request or the close (appends publish themselves)
                if (pause < 0) {
                    appended.awaitUninterruptibly();
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || wakeRequested) {
                    break; // an empty batch: nothing to force, the words to exchange
                }
                awaitNanosUninterruptibly(appended, left);
            }
            wakeRequested = false;
            if (pendingCount == 0 && forceRequests == forceRequestsTaken && (closing || pause < 0)) {
                return false;
            }
            long[] taken = pending;
            pending = batch.sequences;
            batch.sequences = taken;
            batch.count = pendingCount;
            pendingCount = 0;
            batch.forceRequest = forceRequests > forceRequestsTaken ? forceRequests : 0;
            forceRequestsTaken = forceRequests;
            batch.forced = forcing && batch.count > 0 || batch.forceRequest > 0;
            batch.lastAppended = lastAppended;
            batch.files.clear();
            if (!batch.forced) {
                return true; // ASYNC: the files wait for a force that is asked for
            }
            for (File file : pendingFiles) {
                batch.files.add(file);
            }
            if (pendingFiles.size() > 1) {
                File current = pendingFiles.getLast();
                pendingFiles.clear();
                pendingFiles.add(current);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** {@link Condition#awaitNanos} that ignores an interrupt (a spurious early return is a shorter pause). */
    private static void awaitNanosUninterruptibly(Condition condition, long nanos) {
        try {
            condition.awaitNanos(nanos);
        } catch (InterruptedException e) {
            // the flusher is stopped by its log's close, never by an interrupt: go on
        }
    }

    /** One force call made (by the flusher thread only). */
    void countForce() {
        forces = forces + 1;
    }

    /** The flusher forced {@code batch}'s files: what was appended when it was taken is on disk. */
    void batchForced(LogFlusher.Batch batch) {
        forcedThrough = Math.max(forcedThrough, batch.lastAppended);
        if (batch.forceRequest == 0) {
            return;
        }
        lock.lock();
        try {
            forceRequestsDone = Math.max(forceRequestsDone, batch.forceRequest);
            forcedOnRequest.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The flusher ended: a force requested from now on, or not done yet, never will be. */
    void flusherStopped() {
        lock.lock();
        try {
            flusherStopped = true;
            forcedOnRequest.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The flusher stopped: {@code sequence} and every later one appended here will never be forced. */
    void flusherFailed(long sequence, Throwable cause) {
        lock.lock();
        try {
            fail("force", sequence, cause);
        } finally {
            lock.unlock();
        }
    }

    /** Tests: where in an append {@link #plantFaultForTest} throws. */
    enum FaultPoint {
        /** The number is drawn; nothing is written yet. */
        DRAWN,
        /** The record is complete in the log; nothing of the append after the write has run. */
        WRITTEN,
        /** The record is complete and noted; its number is handed on next ({@link #publish}). */
        PUBLISHING
    }

    /** Tests: the planted fault's point, or null; one volatile read per point an append passes. */
    private volatile FaultPoint plantedAt;
    private volatile RuntimeException plantedFault;

    /** Tests: the next append that passes {@code at} throws {@code fault} there (once). */
    void plantFaultForTest(FaultPoint at, RuntimeException fault) {
        plantedFault = fault;
        plantedAt = at;
    }

    /** Tests: whether a planted fault has not been thrown yet. */
    boolean faultPlantedForTest() {
        return plantedAt != null;
    }

    private void plantedFault(FaultPoint at) {
        if (plantedAt == at) {
            plantedAt = null;
            throw plantedFault;
        }
    }

    /** Tests: closes the queue underneath the log, so the next append's write throws. */
    void breakAppendsForTest() {
        queue.close();
    }

    /** Tests: closes the flusher's file channel, so its next force throws. */
    void breakForcesForTest() {
        flusher.closeChannel();
    }

    // ------------------------------------------------------------------ internals

    private void write(byte[] record, int length) {
        DocumentContext document = appender.writingDocument();
        try {
            document.wire().bytes().write(record, 0, length);
        } catch (RuntimeException | Error e) {
            document.rollbackOnClose();
            try {
                document.close(); // the header stays incomplete: a reader ends before it
            } catch (RuntimeException | Error closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        try {
            document.close();
        } catch (RuntimeException | Error e) {
            // Chronicle marks the header complete first, then writes the index entry and calls the
            // appender listener: a failure here may leave the record complete, to be replayed later.
            throw new OutcomeUnknown(e);
        }
    }

    /** A write that failed after its record may have become complete ({@link CommitLog#OUTCOME_UNKNOWN}). */
    private static final class OutcomeUnknown extends RuntimeException {
        OutcomeUnknown(Throwable cause) {
            super("append failed after the record may have become complete", cause);
        }
    }

    /**
     * Notes {@code sequence} in the cycle file just appended to; a cycle the appender moved to is
     * remembered for truncation and for the flusher's next force. Under lock.
     */
    private void noteAppend(long sequence) {
        int current = appender.cycle();
        if (current != cycle) {
            cycle = current;
            File file = appender.currentFile();
            // A map, not a list: a log's cycles only go up (MonotonicCycleTime), but a map costs nothing here.
            cycleFile = cycles.computeIfAbsent(current, c -> new CycleFile(c, file));
            pendingFiles.add(file);
        }
        cycleFile.highest = Math.max(cycleFile.highest, sequence);
    }

    /** Chronicle's reports of the stores it maps: a cycle file released is one it no longer writes. */
    private final class Releases implements StoreFileListener {
        @Override
        public void onAcquired(int cycle, File file) {
            released.remove(cycle);
        }

        @Override
        public void onReleased(int cycle, File file) {
            released.add(cycle);
        }
    }

    /** Marks the log failed (logging the first failure) and tells the group {@code sequence} is lost; under lock. */
    private void fail(String what, long sequence, Throwable cause) {
        String because = what + " failed: computeNode=" + computeNode + " directory=" + directory + " sequence=" + sequence
            + " cause=" + IoFailures.describe(cause);
        if (!failed) {
            failed = true;
            failure = because;
            String message = "wal log failed, no commit from now on is durable: " + because;
            if (IoFailures.isIoFailure(cause)) {
                LOG.log(System.Logger.Level.ERROR, message); // the disk's (full, a size limit): one line
            } else {
                LOG.log(System.Logger.Level.ERROR, message, cause); // a bug: keep the trace
            }
        }
        group.watermark().lost(sequence, because);
    }
}
