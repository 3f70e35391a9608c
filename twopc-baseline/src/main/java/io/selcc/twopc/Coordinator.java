package io.selcc.twopc;

import io.selcc.twopc.Messages.Outcome;
import io.selcc.wal.TwoPhaseLog;

import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Set<Long> deciding = ConcurrentHashMap.newKeySet();
    private volatile boolean down;

    Coordinator(int nodeId, Path logDirectory) {
        this.nodeId = nodeId;
        this.log = logDirectory == null ? TwoPhaseLog.inMemory(nodeId) : TwoPhaseLog.open(logDirectory, nodeId);
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

    /** Phase one is about to start: until {@link #decided}, an inquiry gets "unknown". */
    void deciding(long gtid) {
        deciding.add(gtid);
    }

    /** The outcome is settled (logged if commit): inquiries are answered from the log from now on. */
    void decided(long gtid) {
        deciding.remove(gtid);
    }

    /** What a participant in doubt is told. A coordinator that is down answers nothing (the asker asks again). */
    Outcome onInquire(long gtid) {
        if (down || deciding.contains(gtid)) {
            return Outcome.UNKNOWN;
        }
        return log.hasCommit(gtid) ? Outcome.COMMIT : Outcome.ABORT;
    }

    /** The fault: this coordinator dies; what it was deciding is forgotten, its log stays on disk. */
    void die() {
        down = true;
    }

    /**
     * Comes back: forgets what it knew and reads its decisions back from its log on disk (an in-memory
     * log keeps what it held, which no real crash would), then answers inquiries again. The log stays
     * open: the node's participant side forces its prepare records into it meanwhile.
     */
    void recover() {
        log.rereadDecisions();
        deciding.clear();
        down = false;
    }

    void close() {
        log.close();
    }
}
