package io.selcc.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A commit log for tests: keeps a copy of every appended transaction in memory, forces nothing, and
 * can be told to refuse the next append ({@link #failNextAppend}).
 */
public final class RecordingCommitLog implements CommitLog.Factory {
    /** One change as appended. */
    public record Change(byte kind, int tableId, long key, long recordId, byte[] image) {
    }

    /** One appended transaction. */
    public record Appended(long sequence, int computeNode, List<Change> changes) {
    }

    private final List<Appended> appended = new ArrayList<>();
    /** Compute nodes whose log is sealed (crashed): their appends fail. Guarded by this. */
    private final java.util.Set<Integer> sealed = new java.util.HashSet<>();
    private volatile boolean failNext;
    private long awaited;
    private long awaitedReadOnly;

    @Override
    public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence) {
        return new CommitLog() {
            @Override
            public long append(Redo redo) {
                synchronized (RecordingCommitLog.this) {
                    if (failNext) {
                        failNext = false;
                        return FAILED;
                    }
                    if (sealed.contains(computeNode)) {
                        return FAILED;
                    }
                    long sequence = nextSequence.getAsLong();
                    List<Change> changes = new ArrayList<>();
                    for (int i = 0; i < redo.size(); i++) {
                        byte[] image = Arrays.copyOfRange(redo.images(), redo.imageOffset(i),
                            redo.imageOffset(i) + redo.imageLength(i));
                        changes.add(new Change(redo.kind(i), redo.tableId(i), redo.key(i), redo.recordId(i), image));
                    }
                    appended.add(new Appended(sequence, computeNode, changes));
                    return sequence;
                }
            }

            @Override
            public void awaitDurable(long sequence) {
                synchronized (RecordingCommitLog.this) {
                    awaited++;
                }
            }

            @Override
            public void awaitAppendedDurable() {
                synchronized (RecordingCommitLog.this) {
                    awaitedReadOnly++;
                }
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public boolean canReadBack() {
        return true;
    }

    @Override
    public synchronized void seal(int computeNode) {
        sealed.add(computeNode);
    }

    /** A repair from memory as it was when logging started, and every change appended since. */
    @Override
    public CommitLog.RepairSource openRepair() {
        return new CommitLog.RepairSource() {
            @Override
            public boolean baseIsCheckpoint() {
                return false;
            }

            @Override
            public void forEachBaseRow(CommitLog.BaseRowVisitor visitor) {
                throw new IllegalStateException("the base is memory");
            }

            @Override
            public void forEachChange(CommitLog.ChangeVisitor visitor) {
                for (Appended a : bySequence()) {
                    for (Change c : a.changes()) {
                        visitor.change(a.sequence(), c.kind(), c.tableId(), c.key(), c.recordId(), c.image());
                    }
                }
            }

            @Override
            public String describeBase() {
                return "memory when logging started";
            }

            @Override
            public void close() {
            }
        };
    }

    /** The next append returns {@link CommitLog#FAILED}. */
    public void failNextAppend() {
        failNext = true;
    }

    /** Every appended transaction, by commit sequence number. */
    public synchronized List<Appended> bySequence() {
        List<Appended> copy = new ArrayList<>(appended);
        copy.sort(Comparator.comparingLong(Appended::sequence));
        return copy;
    }

    /** Calls of {@link CommitLog#awaitDurable} (writing transactions acknowledged). */
    public synchronized long awaited() {
        return awaited;
    }

    /** Calls of {@link CommitLog#awaitAppendedDurable} (read-only transactions acknowledged). */
    public synchronized long awaitedReadOnly() {
        return awaitedReadOnly;
    }

    @Override
    public void close() {
    }
}
