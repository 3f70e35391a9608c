package io.selcc.twopc;

import io.selcc.twopc.Messages.Outcome;
import io.selcc.wal.TwoPhaseLog;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One compute node's side of partitioned mode as a coordinator: global transaction ids, the
 * transactions it is deciding, its two-phase-commit log, and its answers to participants in doubt.
 * Presumed abort: a transaction it is not deciding and has no commit record for aborted.
 */
final class Coordinator {
    /** Global ids: the node in the top bits, so ids of different coordinators never meet. */
    private static final int NODE_SHIFT = 48;

    private final int nodeId;
    private final TwoPhaseLog log;
    private final AtomicLong sequence = new AtomicLong();
    private final Set<Long> deciding = new java.util.HashSet<>();
    /** Counts deaths and recoveries: a transaction must decide within the epoch it began phase one in. */
    private long epoch;
    private volatile boolean down;
    private Throwable downCause;

    Coordinator(int nodeId, Path logDirectory, boolean forcing) {
        this.nodeId = nodeId;
        this.log = logDirectory == null ? TwoPhaseLog.inMemory(nodeId) : TwoPhaseLog.open(logDirectory, nodeId, forcing);
    }

    long nextGlobalId() {
        return ((long) nodeId + 1) << NODE_SHIFT | sequence.incrementAndGet();
    }

    TwoPhaseLog log() {
        return log;
    }

    boolean isDown() {
        return down;
    }

    /**
     * Phase one is about to start: until {@link #decided}, an inquiry gets "unknown". Returns the
     * coordinator's epoch, which {@link #decideCommit} checks: a death or a recovery in between (of
     * another transaction's making) forgets this one, so it must not commit any more.
     */
    synchronized long deciding(long gtid) {
        deciding.add(gtid);
        return epoch;
    }

    /**
     * Forces the commit decision of {@code gtid}, unless the coordinator died or recovered since
     * {@code since} (then false: it aborts, as a recovered coordinator that never logged it says). Under
     * the coordinator's lock, so no inquiry, death or recovery falls between the check and the record.
     *
     * @throws RuntimeException if the record could not be forced; the coordinator is then down (its
     *                          log failed; whether the record reached the disk is known only on recovery)
     */
    synchronized boolean decideCommit(long gtid, long since, io.selcc.engine.Redo ownChanges, TwoPcFaults faults) {
        if (down || epoch != since) {
            return false;
        }
        try {
            log.forceCommit(gtid, ownChanges);
            if (faults.decisionForceFails(nodeId, gtid)) {
                throw new java.io.UncheckedIOException(new java.io.IOException(
                    "planted: the force of the commit decision failed after the write, gtid=" + gtid));
            }
        } catch (RuntimeException | Error e) {
            die(e);
            throw e;
        }
        return true;
    }

    /**
     * The outcome of {@code gtid} once this coordinator is up again: waits while it is down, then answers
     * from its log, as it would answer an inquiry. For its own branch after a decision whose force
     * failed: the record may be on disk or not, and only the recovered log says which.
     */
    synchronized Outcome awaitOutcomeWhenUp(long gtid) {
        boolean interrupted = false;
        try {
            while (down) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // in doubt, it does not give up: it waits for the log
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return log.hasCommit(gtid) ? Outcome.COMMIT : Outcome.ABORT;
    }

    /** The outcome is settled (logged if commit): inquiries are answered from the log from now on. */
    synchronized void decided(long gtid) {
        deciding.remove(gtid);
    }

    /** What a participant in doubt is told. A coordinator that is down answers nothing (the asker asks again). */
    synchronized Outcome onInquire(long gtid) {
        if (down || deciding.contains(gtid)) {
            return Outcome.UNKNOWN;
        }
        return log.hasCommit(gtid) ? Outcome.COMMIT : Outcome.ABORT;
    }

    /** The fault: this coordinator dies; what it was deciding is forgotten, its log stays on disk. */
    synchronized void die() {
        die(null);
    }

    /** {@link #die()} because of {@code cause} (its log failed), which {@link #downBecause} reports. */
    synchronized void die(Throwable cause) {
        down = true;
        downCause = cause;
        epoch++;
    }

    /** Why it is down: the failure that took it down, or null (up, or an injected death). */
    synchronized Throwable downBecause() {
        return down ? downCause : null;
    }

    /**
     * Comes back: forgets what it knew and reads its decisions back from its log on disk (an in-memory
     * log keeps what it held, which no real crash would), then answers inquiries again. The log stays
     * open: the node's participant side forces its prepare records into it meanwhile. Transactions it
     * was deciding before can no longer commit ({@link #decideCommit}).
     */
    synchronized void recover() {
        log.rereadDecisions();
        deciding.clear();
        epoch++;
        down = false;
        notifyAll(); // its own branches in doubt (awaitOutcomeWhenUp)
    }

    void close() {
        log.close();
    }
}
