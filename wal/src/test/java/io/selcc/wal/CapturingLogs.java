package io.selcc.wal;

import io.selcc.engine.CommitLog;

import java.util.function.LongSupplier;

/** A database's log factory for tests: a {@link Wal} whose logs the test can reach, to break one. */
final class CapturingLogs implements CommitLog.Factory {
    final Wal wal;
    /** The log of each compute node opened so far, by node. */
    final ChronicleCommitLog[] opened = new ChronicleCommitLog[8];

    CapturingLogs(Wal wal) {
        this.wal = wal;
    }

    @Override
    public CommitLog open(int computeNode, long settledThrough, LongSupplier nextSequence) {
        ChronicleCommitLog log = (ChronicleCommitLog) wal.open(computeNode, settledThrough, nextSequence);
        opened[computeNode] = log;
        return log;
    }

    @Override
    public void close() {
        wal.close();
    }

    /** Where {@code needle} first starts in {@code haystack}, or -1 (tests find a record's bytes in a log file). */
    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
