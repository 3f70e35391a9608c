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
    public record Change(byte kind, int tableId, long key, byte[] image) {
    }

    /** One appended transaction. */
    public record Appended(long sequence, int computeNode, List<Change> changes) {
    }

    private final List<Appended> appended = new ArrayList<>();
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
                    long sequence = nextSequence.getAsLong();
                    List<Change> changes = new ArrayList<>();
                    for (int i = 0; i < redo.size(); i++) {
                        byte[] image = Arrays.copyOfRange(redo.images(), redo.imageOffset(i),
                            redo.imageOffset(i) + redo.imageLength(i));
                        changes.add(new Change(redo.kind(i), redo.tableId(i), redo.key(i), image));
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
