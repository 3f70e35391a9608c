package io.selcc.wal;

import io.selcc.engine.CommitLog;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;

/**
 * The redo logs of a database's compute nodes, one Chronicle Queue per node in
 * {@code DIR/node-<N>/}, and the group commit over them.
 *
 * <p>Commit sequence numbers are global and dense (a fetch-and-add), but each lands in one node's
 * log. A transaction is durable only when it and every transaction before it in that order are (it
 * may have read from any of them), so the group keeps a <b>durable watermark</b> W: the largest s
 * such that every sequence number 1..s has been forced in some log. Each log's flusher agent forces
 * its log once per duty cycle, covering every append made before the force began, and publishes the
 * sequence numbers it covered; W advances over them and wakes the waiters it passes
 * ({@link DurableWatermark} keeps W and what commits wait for).
 *
 * <p>A sequence number that was drawn but whose record was lost (its append threw, or the force that
 * covered it failed) is a gap W can never pass: from then on, waiting for it or any later sequence
 * number throws {@link CommitLog.NotDurableException} naming the failed log; earlier ones still become
 * durable as their logs force.
 *
 * <p>In {@link Mode#ASYNC} each append publishes its own number, W is the dense prefix of appended
 * numbers, and a commit is acknowledged once W reaches it: a kill of the process then loses nothing
 * acknowledged (recovery replays up to the first gap, and no acknowledged number lies beyond one).
 * The flushers force only on demand: {@link #forceThrough}, which a checkpoint calls before it publishes.
 *
 * <p>With compute nodes as processes each process has a group of one log over a shared directory
 * ({@link #shareWatermark}): W is then the minimum of every compute node's durability word in shared
 * memory ({@link SharedWatermark}), and a dead process's numbers are settled by its repairer
 * ({@link #settleCrashed}, {@link RepairMarker}).
 *
 * <p>Each log rolls to a new Chronicle cycle file every five minutes ({@link #rollCycle}), so that
 * {@link #truncate} can remove the files a checkpoint covers while the database runs.
 *
 * <p>Thread-safe. {@link #open(int, LongSupplier)} starts the node's flusher thread
 * ({@code wal-flusher-node-N}); {@link #close} forces what was appended and stops every one.
 */
public final class Wal implements CommitLog.Factory {
    /** Whether a commit waits for the disk ({@code OFF} is a database without a log). */
    public enum Mode {
        /** Acknowledge once appended: the OS writes the log back when it likes (a crash of the machine loses the tail). */
        ASYNC,
        /** Acknowledge once forced: {@code fdatasync} of the log's file, one force per group of commits. */
        SYNC
    }

    /** Exact counts since open: records appended, force calls ({@code fdatasync}/{@code fsync}), record bytes appended. */
    public record Counters(long appends, long forces, long bytes) {
        Counters plus(Counters o) {
            return new Counters(appends + o.appends, forces + o.forces, bytes + o.bytes);
        }
    }

    /**
     * The system property naming another Chronicle roll cycle for the logs (any of
     * {@link RollCycles#all()}, e.g. {@code TEST_SECONDLY}): tests and experiments that want cycle
     * files, and so truncation, within seconds.
     */
    public static final String ROLL_CYCLE_PROPERTY = "selcc.wal.rollCycle";
    /** Five-minute cycle files: see {@link #rollCycle} and docs/decisions.md. */
    static final RollCycle DEFAULT_ROLL_CYCLE = RollCycles.FIVE_MINUTELY;

    private final Path directory;
    private final Mode mode;
    private final UnaryOperator<SingleChronicleQueueBuilder> tuning;
    private final FileForcing fileForcing;

    /** Guards which logs are open, {@link #closing} and {@link #sharing}'s setting. */
    private final ReentrantLock lock = new ReentrantLock();
    /** W and what commits wait for. */
    private final DurableWatermark watermark;
    /** What a crashed node's repair reads from, and the truncation it holds off. */
    private final RepairBase repairBase;
    /** No log opens any more; guarded by {@link #lock}. */
    private boolean closing;
    /** Tests: logs opened from now on start their flusher only when the test says ({@link ChronicleCommitLog#startFlusher}). */
    private volatile boolean flushersHeld;
    /** See {@link #shareWatermark()}; set before the first log opens. */
    private volatile boolean sharing;
    /** The one log's shared watermark once it opened ({@link #sharing}); null before and otherwise. */
    private volatile SharedWatermark shared;
    /** Every log opened, indexed by compute node; replaced (copy on write) under {@link #lock}. */
    private volatile ChronicleCommitLog[] logs = new ChronicleCommitLog[0];

    Wal(Path directory, Mode mode, UnaryOperator<SingleChronicleQueueBuilder> tuning, FileForcing fileForcing) {
        this.directory = directory;
        this.mode = Objects.requireNonNull(mode, "mode");
        this.tuning = tuning;
        this.fileForcing = Objects.requireNonNull(fileForcing, "fileForcing");
        this.watermark = new DurableWatermark(directory);
        this.repairBase = new RepairBase(directory, () -> logs);
    }

    /**
     * Opens (creating it if needed) the log directory {@code directory}; each node's log is opened by
     * {@link #open(int, LongSupplier)} when the database opens the node.
     *
     * @throws UncheckedIOException if the directory cannot be created
     */
    public static Wal open(Path directory, Mode mode) {
        return open(directory, mode, UnaryOperator.identity());
    }

    /** {@link #open(Path, Mode)} with the Chronicle Queue builder adjusted (tests: small blocks, a test clock). */
    static Wal open(Path directory, Mode mode, UnaryOperator<SingleChronicleQueueBuilder> tuning) {
        return open(directory, mode, tuning, FileForcing.DISK);
    }

    /** {@link #open(Path, Mode, UnaryOperator)} forcing through {@code fileForcing} (tests record what is forced). */
    static Wal open(Path directory, Mode mode, UnaryOperator<SingleChronicleQueueBuilder> tuning, FileForcing fileForcing) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the log directory: directory=" + directory, e);
        }
        return new Wal(directory, mode, tuning, fileForcing);
    }

    /** How the logs force what they wrote. */
    FileForcing fileForcing() {
        return fileForcing;
    }

    /**
     * The roll cycle new logs get: {@link #DEFAULT_ROLL_CYCLE}, or the one {@link #ROLL_CYCLE_PROPERTY}
     * names. (A log that already has Chronicle's metadata keeps the cycle it was created with.)
     *
     * @throws IllegalArgumentException if the property names no Chronicle roll cycle
     */
    static RollCycle rollCycle() {
        String name = System.getProperty(ROLL_CYCLE_PROPERTY);
        if (name == null || name.isEmpty()) {
            return DEFAULT_ROLL_CYCLE;
        }
        for (RollCycle cycle : RollCycles.all()) {
            if (cycle.toString().equals(name)) {
                return cycle;
            }
        }
        throw new IllegalArgumentException(ROLL_CYCLE_PROPERTY + "=" + name + " names no Chronicle Queue roll cycle");
    }

    /**
     * Makes this group the log of one compute node of several processes, each with a group of its own over
     * one shared directory, whose commit numbers come from one counter: the durable watermark then spans the
     * processes. The node publishes in shared memory, in its durability word, a number through which every
     * commit number it drew is durable in its log, and the watermark is the minimum over every node's word
     * that counts ({@link SharedWatermark}): a commit is acknowledged only once every process has made every
     * number up to it durable, so one that read another process's commit waits for that one's force too.
     * A node whose process died is settled by the process that repairs it ({@link #settleCrashed}) and then
     * counts no more. Call before the first log opens; the group then holds one log, which needs the
     * node's {@link CommitLog.SharedWords} ({@link #open(int, long, LongSupplier, CommitLog.SharedWords)}).
     *
     * @throws IllegalStateException if a log is open already
     */
    public Wal shareWatermark() {
        lock.lock();
        try {
            if (Arrays.stream(logs).anyMatch(java.util.Objects::nonNull)) {
                throw new IllegalStateException("a log is open already: directory=" + directory);
            }
            sharing = true;
            return this;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the watermark spans processes ({@link #shareWatermark}). */
    boolean sharing() {
        return sharing;
    }

    /** The shared watermark of this group's log, or null (not sharing, or not open yet). */
    SharedWatermark shared() {
        return shared;
    }

    /** W and what commits wait for: the flushers and the shared watermark report to it. */
    DurableWatermark watermark() {
        return watermark;
    }

    /**
     * Sharing: compute node {@code computeNode}, of another process, is fenced and this process repairs it.
     * Settles what it drew ({@link SharedWatermark#settle}) before the repair reads the logs: every number
     * it drew and did not append is recorded void, the records its log holds now are what the repair (and
     * every later reader) takes of it, and its word counts no more. Nothing to do when not sharing (the
     * group holds every node's log, and {@link #seal} stops the crashed one).
     */
    @Override
    public void settleCrashed(int computeNode) {
        SharedWatermark sharedWatermark = shared;
        if (sharedWatermark == null) {
            return;
        }
        if (computeNode == sharedWatermark.computeNode()) {
            throw new IllegalArgumentException("compute node " + computeNode + " is this log's own");
        }
        sharedWatermark.settle(computeNode, directory, fileForcing);
    }

    /** Where compute node {@code computeNode}'s log lives under the log directory {@code directory}. */
    public static Path nodeDirectory(Path directory, int computeNode) {
        return directory.resolve("node-" + computeNode);
    }

    /**
     * Opens compute node {@code computeNode}'s log and starts its flusher. Called once per node.
     *
     * @throws IllegalStateException if the node's log is already open, the group is closed, or
     *                               Chronicle Queue cannot open the node's directory
     */
    @Override
    public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence) {
        return open(computeNode, settledThrough, nextSequence, null);
    }

    /**
     * {@link #open(int, long, LongSupplier)}; a sharing group ({@link #shareWatermark}) publishes the node's
     * durability word through {@code words} before the log takes its first append.
     *
     * @throws IllegalStateException also if the group shares its watermark and {@code words} is null or
     *                               cannot be reached
     */
    @Override
    public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence, CommitLog.SharedWords words) {
        if (computeNode < 0) {
            throw new IllegalArgumentException("computeNode=" + computeNode);
        }
        lock.lock();
        try {
            if (closing) {
                throw new IllegalStateException("wal closed: directory=" + directory);
            }
            watermark.startAfter(settledThrough);
            repairBase.loggingStarts(settledThrough);
            ChronicleCommitLog[] current = logs;
            if (sharing && Arrays.stream(current).anyMatch(java.util.Objects::nonNull)) {
                throw new IllegalStateException("a log group that shares its watermark across processes holds one log:"
                    + " computeNode=" + computeNode + " directory=" + directory);
            }
            if (sharing && (words == null || words.computeNode() != computeNode)) {
                throw new IllegalStateException("a log that shares its watermark needs its node's durability words:"
                    + " computeNode=" + computeNode + " directory=" + directory);
            }
            if (computeNode < current.length && current[computeNode] != null) {
                throw new IllegalStateException("log already open: computeNode=" + computeNode + " directory=" + directory);
            }
            SharedWatermark sharedWatermark = null;
            if (sharing) {
                sharedWatermark = new SharedWatermark(this, words);
                sharedWatermark.start(settledThrough); // before the log can draw a number: from here on the node counts
            }
            ChronicleCommitLog log;
            try {
                log = new ChronicleCommitLog(this, computeNode, nodeDirectory(directory, computeNode),
                    mode == Mode.SYNC, nextSequence, settledThrough, tuning);
            } catch (RuntimeException | Error e) {
                if (sharedWatermark != null) {
                    sharedWatermark.closeOut(Long.MAX_VALUE); // it will draw nothing: the others must not wait for it
                }
                throw e;
            }
            shared = sharedWatermark;
            ChronicleCommitLog[] next = Arrays.copyOf(current, Math.max(current.length, computeNode + 1));
            next[computeNode] = log;
            logs = next;
            if (!flushersHeld) {
                log.startFlusher();
            }
            return log;
        } finally {
            lock.unlock();
        }
    }

    /** The durable watermark W (every sequence number up to it is forced; in ASYNC mode, appended). */
    public long durable() {
        return watermark.durable();
    }

    /**
     * Returns once every record numbered up to {@code sequence} is on disk in its log, in either mode:
     * for a checkpoint, which must not hold a transaction the disk could still lose. SYNC: waits for
     * the watermark, as a commit does. ASYNC, whose commits force nothing: waits until every number up
     * to it was appended (the watermark), then has every log force what it appended and waits for
     * those forces.
     *
     * @throws CommitLog.NotDurableException if a number up to {@code sequence} was lost, a force
     *                                       failed, or the group closed first (the message names why)
     */
    public void forceThrough(long sequence) {
        awaitWatermark(sequence);
        if (mode == Mode.SYNC) {
            return;
        }
        if (sharing) {
            // Forcing the other processes' ASYNC logs is not built (checkpoints with compute nodes as processes are not).
            throw new CommitLog.NotDurableException("an ASYNC log that shares its watermark cannot force the other"
                + " processes' logs: directory=" + directory);
        }
        // Every number up to it is in a log now: a force of each log from here covers them.
        ChronicleCommitLog[] current = logs;
        long[] requests = new long[current.length];
        for (int i = 0; i < current.length; i++) {
            if (current[i] != null) {
                requests[i] = current[i].requestForce(); // all first: the logs force at once
            }
        }
        for (int i = 0; i < current.length; i++) {
            if (current[i] != null) {
                current[i].awaitForced(requests[i]);
            }
        }
    }

    public Mode mode() {
        return mode;
    }

    /**
     * Why the group can no longer make every commit durable (the failed log, the sequence number lost
     * and the cause, one line), or null while it can.
     */
    public String failure() {
        return watermark.failure();
    }

    /** The sums over every log opened. */
    public Counters counters() {
        Counters sum = new Counters(0, 0, 0);
        for (ChronicleCommitLog log : logs) {
            if (log != null) {
                sum = sum.plus(log.counters());
            }
        }
        return sum;
    }

    /** Compute node {@code computeNode}'s log's counts. */
    public Counters counters(int computeNode) {
        ChronicleCommitLog[] current = logs;
        if (computeNode < 0 || computeNode >= current.length || current[computeNode] == null) {
            throw new IllegalArgumentException("no log open: computeNode=" + computeNode);
        }
        return current[computeNode].counters();
    }

    /**
     * A checkpoint of this run was published ({@link Checkpoint#write}: written from the database that
     * logs here, durable, renamed into place): it becomes the base a crashed node's repair starts from
     * (its rows carry this run's record ids), and then {@code removeOlder} (the older checkpoint files)
     * runs and the logs are truncated through {@code replayFrom} ({@link #truncate}). While a repair
     * reads ({@link #openRepair}) both wait for the next checkpoint: the repair may be reading the
     * older checkpoint and those records.
     *
     * @return the log files removed
     */
    public int checkpointPublished(Path checkpoint, long replayFrom, long bulkLoadsBefore, Runnable removeOlder) {
        return repairBase.checkpointPublished(checkpoint, replayFrom, bulkLoadsBefore, removeOlder);
    }

    /** How many bulk loads went into the database so far: {@link Checkpoint#write} reads it before its scan. */
    public long bulkLoads() {
        return repairBase.bulkLoads();
    }

    /** See {@link CommitLog.Factory#bulkLoaded}. */
    @Override
    public void bulkLoaded() {
        repairBase.bulkLoaded();
    }

    /**
     * Removes from every log the cycle files whose records are all numbered at or below
     * {@code replayFrom}, except each log's current file (see {@link ChronicleCommitLog#truncate}).
     * Call it only once a checkpoint whose replay start is {@code replayFrom} is durable and published
     * ({@link #checkpointPublished} does): recovery never needs those records again. A file that cannot
     * be deleted is logged and left for the next call. Removes nothing while a repair reads.
     *
     * @return the files removed
     */
    public int truncate(long replayFrom) {
        return repairBase.truncate(replayFrom);
    }

    /**
     * True while the logs hold every record after the repair base: the newest checkpoint of this run
     * ({@link #checkpointPublished}), or where logging started before the first. False once files were
     * removed past it ({@link #truncate} called directly, not through a checkpoint).
     */
    @Override
    public boolean canReadBack() {
        return repairBase.canReadBack();
    }

    /**
     * The base (the newest checkpoint of this run, else memory when logging started) and every node's
     * log after it (what has been appended so far); until the source is closed no checkpoint or log
     * file is removed.
     *
     * @throws IllegalStateException if log files past the base were removed ({@link #canReadBack} false)
     */
    @Override
    public CommitLog.RepairSource openRepair() {
        return repairBase.openRepair();
    }

    /** Cycle files {@link #truncate} removed since the logs opened. */
    public long filesRemoved() {
        long sum = 0;
        for (ChronicleCommitLog log : logs) {
            if (log != null) {
                sum += log.filesRemoved();
            }
        }
        return sum;
    }

    /**
     * Forces what every log appended, stops the flushers and closes the queues. Afterwards waiting for
     * a sequence number above W throws. Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            closing = true;
        } finally {
            lock.unlock();
        }
        for (ChronicleCommitLog log : logs) {
            if (log != null) {
                log.close();
            }
        }
        watermark.close();
    }

    @Override
    public void seal(int computeNode) {
        ChronicleCommitLog[] current = logs;
        if (computeNode < 0 || computeNode >= current.length || current[computeNode] == null) {
            return; // it never logged: nothing to seal
        }
        current[computeNode].seal();
    }

    // ------------------------------------------------------------------ the logs' side

    /**
     * How long commits waited in {@link #awaitDurable} (SYNC), in microseconds, over the group's life: the
     * cost group commit puts on a transaction (a measurement, read by reports; not protocol time).
     */
    private final org.HdrHistogram.Recorder durabilityWaits = new org.HdrHistogram.Recorder(3);
    private final org.HdrHistogram.Histogram durabilityWaitsSoFar = new org.HdrHistogram.Histogram(3);

    /** The durability waits of every commit so far (SYNC; empty for ASYNC), in microseconds. */
    public org.HdrHistogram.Histogram durabilityWaitMicros() {
        synchronized (durabilityWaitsSoFar) {
            durabilityWaitsSoFar.add(durabilityWaits.getIntervalHistogram());
            return durabilityWaitsSoFar.copy();
        }
    }

    /** {@link CommitLog#awaitDurable} of every log in the group. */
    void awaitDurable(long sequence) {
        if (mode == Mode.ASYNC) {
            // Nothing is forced, but recovery replays the numbers up to the first gap: a commit is
            // acknowledged once every number up to its own is appended (in some log), or a number
            // drawn by another node and not yet appended would leave it beyond a gap after a kill.
            // Each append publishes itself, so this waits only while such a number is being appended.
            awaitWatermark(sequence);
            return;
        }
        long began = System.nanoTime();
        awaitWatermark(sequence);
        durabilityWaits.recordValue(Math.max(0, (System.nanoTime() - began) / 1_000));
    }

    /** Waits until W reaches {@code sequence} (SYNC: forced; ASYNC: appended). */
    private void awaitWatermark(long sequence) {
        if (watermark.reached(sequence)) {
            return;
        }
        if (shared != null) {
            wakeFlusher(); // it exchanges the words more often while a commit waits
        }
        watermark.await(sequence);
    }

    /** Sharing: has the one log's flusher exchange the words now rather than after its idle pause. */
    private void wakeFlusher() {
        for (ChronicleCommitLog log : logs) {
            if (log != null) {
                log.wakeFlusher();
            }
        }
    }

    /** Sharing: how long the flusher may wait for an append before it exchanges the words again; -1 when not sharing. */
    long pollNanos() {
        SharedWatermark shared = this.shared;
        if (shared == null) {
            return -1;
        }
        return shared.pauseNanos(watermark.waiters() > 0);
    }

    /** {@link CommitLog#awaitAppendedDurable} of every log in the group. */
    void awaitAppendedDurable() {
        awaitDurable(appendedMark());
    }

    /**
     * {@link CommitLog#appendedMark}: the highest number appended so far in any log of the group; with a
     * watermark shared across processes, the commit counter as an exchange that begins after this call
     * reads it (what was committed before may be another process's commit). That waits for the exchange
     * (a round trip of the flusher's); partitioned mode, whose coordinators take marks, does not run
     * across processes.
     */
    long appendedMark() {
        SharedWatermark sharedWatermark = shared;
        if (sharedWatermark != null) {
            return sharedWatermark.counterAfterNow(this::wakeFlusher);
        }
        long highest = 0;
        for (ChronicleCommitLog log : logs) {
            if (log != null) {
                highest = Math.max(highest, log.lastAppended());
            }
        }
        return highest;
    }

    /** ASYNC: {@code sequence} was appended (its log's append lock held). */
    void appended(long sequence) {
        if (sharing) {
            return; // the watermark is the words' minimum (SharedWatermark)
        }
        watermark.published(sequence);
    }

    /** A flusher's report: {@code sequences[0, count)} are forced (SYNC). */
    void published(long[] sequences, int count) {
        if (sharing) {
            return; // the watermark is the words' minimum (SharedWatermark)
        }
        watermark.published(sequences, count);
    }

    /** Whether {@code sequence} has been forced (published), whether or not W has reached it yet. */
    boolean forced(long sequence) {
        return watermark.forced(sequence);
    }

    /** Tests: see {@link #flushersHeld}. */
    void holdFlushersForTest() {
        flushersHeld = true;
    }

    /** Tests: compute node {@code computeNode}'s log. */
    ChronicleCommitLog logForTest(int computeNode) {
        return logs[computeNode];
    }

    /** Threads blocked in {@link #awaitDurable} (tests: a waiter has parked). */
    int waiters() {
        return watermark.waiters();
    }
}
