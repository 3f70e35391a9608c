package io.selcc.wal;

import io.selcc.engine.CommitLog;
import io.selcc.engine.DurabilityWord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The durable watermark across processes ({@link Wal#shareWatermark}): this process's one log publishes,
 * in its compute node's {@link DurabilityWord}, a number through which every commit number the node drew
 * is durable in its log, and the group's watermark is the minimum over every node's word that counts.
 *
 * <p><b>What a node may publish</b> ({@link ChronicleCommitLog#vouchedThrough}), decided under the log's
 * append lock, under which the node draws its numbers and appends them, so no draw is half done then.
 * While appended numbers wait for the flusher's next force, the lowest of them minus one: every number the
 * node drew below it is forced, and it draws only higher ones. Otherwise every number it drew is durable,
 * and it publishes the higher of its last append and the counter as an exchange last read it (C): whatever
 * it draws from now on is above both. So a node that commits nothing still advances its word with each
 * exchange, which the flusher makes at least every {@link #POLL_IDLE_NANOS}, every
 * {@link #POLL_WAITING_NANOS} while a commit here waits, and after every batch it forced.
 *
 * <p><b>Cost.</b> One round trip per exchange (a batch: write this node's word, read every word, read the
 * counter), one exchange per flusher cycle: a commit pays none itself, the group it is forced with shares one.
 *
 * <p>Thread-safe: the flusher exchanges; committers wait; a repair thread settles a crashed node.
 */
final class SharedWatermark {
    private static final System.Logger LOG = System.getLogger(SharedWatermark.class.getName());

    /**
     * Between two exchanges while a commit of this process waits for the watermark: at first; doubled after
     * each exchange that did not move it, up to {@link #POLL_IDLE_NANOS}, so a wait for another process's
     * force (milliseconds) costs a few exchanges, not one per round trip.
     */
    static final long POLL_WAITING_NANOS = 20_000;
    /** Between two exchanges otherwise: how long an idle process may hold the other processes' commits back. */
    static final long POLL_IDLE_NANOS = 1_000_000;
    /** Between two reads of the words while a repair waits for the counting nodes to pass the fence's counter. */
    private static final long SETTLE_POLL_NANOS = 1_000_000;

    private final Wal group;
    private final CommitLog.SharedWords words;
    /** The words as the flusher's last exchange read them (flusher thread only). */
    private final long[] seen;
    /** The counter as the last exchange read it (flusher thread, after start). */
    private long counter;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when an exchange ends. */
    private final Condition exchanged = lock.newCondition();
    /** Exchanges begun and ended, and the counter the last one read; guarded by {@link #lock}. */
    private long begun;
    private long ended;
    private long counterEnded;
    /** The pause before the next exchange while a commit waits (see {@link #POLL_WAITING_NANOS}); flusher thread. */
    private long waitingPause = POLL_WAITING_NANOS;
    /** Why the words can no longer be exchanged (this node fenced, its memory node gone), or null. */
    private volatile String broken;

    SharedWatermark(Wal group, CommitLog.SharedWords words) {
        this.group = group;
        this.words = words;
        this.seen = new long[words.computeNodes()];
    }

    int computeNode() {
        return words.computeNode();
    }

    /**
     * The log opens: publishes this node's word (counting from now) before it draws anything, with
     * {@code settledThrough} as its number (it drew nothing: any number up to the counter is true).
     *
     * @throws IllegalStateException if the words cannot be reached
     */
    void start(long settledThrough) {
        exchange(DurabilityWord.of(settledThrough, false));
        if (broken != null) {
            throw new IllegalStateException("cannot publish compute node " + words.computeNode()
                + "'s durability word: " + broken);
        }
    }

    /**
     * The flusher's last batch is durable: publishes what {@code log} vouches for now (the number before
     * {@code lostFrom}, marked lost, once this log lost that at or below it) and moves the group's watermark
     * to the minimum of the words read. Flusher thread.
     */
    void afterBatch(ChronicleCommitLog log, long lostFrom) {
        if (broken != null) {
            return;
        }
        long through = log.vouchedThrough(counter);
        exchange(lostFrom <= through ? DurabilityWord.of(lostFrom - 1, true) : DurabilityWord.of(through, false));
    }

    /** Tests: exchanges made so far. */
    long exchangesForTest() {
        lock.lock();
        try {
            return ended;
        } finally {
            lock.unlock();
        }
    }

    /** One exchange: publish {@code mine}, read every word and the counter, move the group's watermark. */
    private void exchange(long mine) {
        lock.lock();
        try {
            begun++;
        } finally {
            lock.unlock();
        }
        long read;
        try {
            read = words.publishAndRead(mine, seen);
        } catch (RuntimeException e) {
            // This node fenced, or its memory gone: nothing more is published; what waits here cannot be confirmed.
            broken = "the durability words cannot be reached: " + e;
            LOG.log(System.Logger.Level.WARNING, "compute node " + words.computeNode() + ": " + broken);
            group.watermark().sharedBroken(broken);
            endExchange(-1);
            return;
        }
        counter = Math.max(counter, read);
        long minimum = Long.MAX_VALUE;
        long lostFrom = Long.MAX_VALUE;
        int lostBy = -1;
        for (int n = 0; n < seen.length; n++) {
            long word = seen[n];
            if (!DurabilityWord.counts(word)) {
                continue;
            }
            minimum = Math.min(minimum, DurabilityWord.through(word));
            if (DurabilityWord.lost(word) && DurabilityWord.through(word) + 1 < lostFrom) {
                lostFrom = DurabilityWord.through(word) + 1;
                lostBy = n;
            }
        }
        long before = group.durable();
        group.watermark().sharedAdvanced(minimum == Long.MAX_VALUE ? 0 : minimum, lostFrom,
            lostBy < 0 ? null : "compute node " + lostBy + " lost sequence " + lostFrom + " (its durability word: "
                + DurabilityWord.describe(seen[lostBy]) + ")");
        waitingPause = group.durable() > before ? POLL_WAITING_NANOS : Math.min(2 * waitingPause, POLL_IDLE_NANOS);
        endExchange(read);
    }

    /** How long the flusher may wait before its next exchange; {@code waiting}: a commit here waits. Flusher thread. */
    long pauseNanos(boolean waiting) {
        return waiting ? waitingPause : POLL_IDLE_NANOS;
    }

    private void endExchange(long read) {
        lock.lock();
        try {
            ended++;
            if (read >= 0) {
                counterEnded = Math.max(counterEnded, read);
            }
            exchanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for an exchange that begins after this call and returns the counter it read: every number
     * committed before the call (whose writes a read-only transaction may have seen) is at or below it.
     * {@code wake} nudges the flusher.
     *
     * @throws CommitLog.NotDurableException if the words can no longer be exchanged
     */
    long counterAfterNow(Runnable wake) {
        lock.lock();
        try {
            long after = begun; // one in flight now may have read the counter before this call
            while (ended <= after) {
                if (broken != null || stopped != null) {
                    throw new CommitLog.NotDurableException("compute node " + words.computeNode() + ": "
                        + (broken != null ? broken : stopped));
                }
                lock.unlock();
                try {
                    wake.run();
                } finally {
                    lock.lock();
                }
                if (ended <= after) {
                    exchanged.awaitUninterruptibly();
                }
            }
            if (broken != null) {
                // The exchange that ended the wait broke: its counter was never read, and counterEnded is an
                // older exchange's, which may be below what the caller read (found in review).
                throw new CommitLog.NotDurableException("compute node " + words.computeNode() + ": " + broken);
            }
            return counterEnded;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The log's flusher failed (a force or a write): publishes, once, that every number from
     * {@code lostFrom} on is lost (all below it were forced), so the other processes refuse to acknowledge
     * past it instead of waiting for a word that never moves again, and stops: a read-only commit here
     * that waits for an exchange is refused. Flusher thread.
     */
    void flusherFailed(long lostFrom, Throwable cause) {
        if (broken == null && lostFrom != Long.MAX_VALUE) {
            exchange(DurabilityWord.of(lostFrom - 1, true));
        }
        lock.lock();
        try {
            stopped = "the log's flusher failed (" + cause + "): no more exchanges";
            exchanged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Set once the flusher failed: nothing is exchanged any more ({@link #counterAfterNow} refuses). */
    private volatile String stopped;

    /**
     * The log closes, everything it appended forced: its node counts no more ({@link DurabilityWord#OUT}),
     * so the other processes' commits stop waiting for it. Not when it lost a number: the others must not
     * acknowledge past it. Flusher thread.
     */
    void closeOut(long lostFrom) {
        if (broken != null || lostFrom != Long.MAX_VALUE) {
            return;
        }
        try {
            words.publishAndRead(DurabilityWord.OUT | DurabilityWord.of(counter, false), seen);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "compute node " + words.computeNode()
                + "'s log closed, but its durability word could not be set out of the minimum: " + e);
        }
    }

    /**
     * Settles compute node {@code crashed}, fenced by this process, which repairs it: once every other
     * counting node has made its numbers up to the counter durable, the numbers up to there that no log
     * holds were drawn and never appended; a marker beside the logs ({@link RepairMarker}) records them and
     * the highest record of the crashed node's log, which is forced first; then the node's word is set
     * {@link DurabilityWord#OUT}, and the others' commits stop waiting for it.
     */
    void settle(int crashed, Path directory, FileForcing forcing) {
        long[] now = new long[words.computeNodes()];
        long drawnThrough = words.read(now); // no number the fenced node drew is above it
        long word = now[crashed];
        if (!DurabilityWord.counts(word)) {
            return; // never logged, or settled already
        }
        long forcedThrough = DurabilityWord.through(word);
        while (!othersPassed(crashed, now, drawnThrough)) {
            LockSupport.parkNanos(SETTLE_POLL_NANOS);
            words.read(now);
        }
        Map<Integer, RepairMarker> markers = RepairMarker.readAll(directory);
        BitSet present = new BitSet();
        long[] taken = {0};
        for (Path nodeDirectory : nodeDirectories(directory)) {
            int node = RepairMarker.nodeOf(nodeDirectory);
            RepairMarker earlier = markers.get(node);
            String warning = LogReader.forEach(nodeDirectory, record -> {
                long s = record.sequence();
                if (earlier != null && earlier.late(s)) {
                    return; // appended after its own repair read it: never committed
                }
                if (node == crashed) {
                    taken[0] = Math.max(taken[0], s);
                }
                if (s > forcedThrough && s <= drawnThrough) {
                    present.set(Math.toIntExact(s - forcedThrough));
                }
            });
            if (warning != null) {
                throw new IllegalStateException("cannot settle compute node " + crashed + ": " + warning);
            }
        }
        forceLog(Wal.nodeDirectory(directory, crashed), forcing); // what the repair takes must outlive the machine
        List<Long> voids = new ArrayList<>();
        for (long s = forcedThrough + 1; s <= drawnThrough; s++) {
            if (!present.get(Math.toIntExact(s - forcedThrough))) {
                voids.add(s);
            }
        }
        new RepairMarker(crashed, taken[0], forcedThrough, drawnThrough,
            voids.stream().mapToLong(Long::longValue).toArray()).write(directory, forcing);
        while (true) {
            long found = words.compareAndSet(crashed, word, word | DurabilityWord.OUT);
            if (found == word || DurabilityWord.out(found)) {
                break;
            }
            word = found; // its own last write landed before the fence returned: take it as it is
        }
        LOG.log(System.Logger.Level.INFO, "compute node " + crashed + " settled: its log taken through sequence "
            + taken[0] + ", " + voids.size() + " number(s) drawn and never appended up to " + drawnThrough
            + "; commits no longer wait for it");
    }

    /**
     * Whether every node but {@code crashed} whose word counts has made its numbers up to
     * {@code drawnThrough} durable, lost a number (it draws nothing after), or is fenced (its own repair
     * settles it).
     */
    private boolean othersPassed(int crashed, long[] now, long drawnThrough) {
        for (int n = 0; n < now.length; n++) {
            long word = now[n];
            if (n == crashed || !DurabilityWord.counts(word) || DurabilityWord.lost(word)
                || DurabilityWord.through(word) >= drawnThrough) {
                continue;
            }
            if (!words.fenced(n)) {
                return false;
            }
        }
        return true;
    }

    /** Forces every file of the log in {@code nodeDirectory} and the directory itself. */
    private static void forceLog(Path nodeDirectory, FileForcing forcing) {
        if (!Files.isDirectory(nodeDirectory)) {
            return;
        }
        try (Stream<Path> files = Files.list(nodeDirectory)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                forcing.force(file, false);
            }
            forcing.force(nodeDirectory, true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot force the log of a crashed node: directory=" + nodeDirectory, e);
        }
    }

    static List<Path> nodeDirectories(Path directory) {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(Files::isDirectory).filter(p -> RepairMarker.nodeOf(p) >= 0).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the logs in " + directory, e);
        }
    }
}
