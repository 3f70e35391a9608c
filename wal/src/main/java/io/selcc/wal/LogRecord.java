package io.selcc.wal;

import java.util.Arrays;
import java.util.List;

/**
 * One committed transaction as {@link LogReader} read it back: its commit sequence number (the global
 * replay order, also its transaction id), the compute node that logged it, the global id of the
 * distributed transaction it is a branch of (0 for a local one), and its changes in the order the
 * transaction made them. In a two-phase-commit log the sequence is the global transaction id.
 */
public record LogRecord(long sequence, int computeNode, long globalId, List<Entry> entries) {
    public LogRecord {
        entries = List.copyOf(entries);
    }

    /** A local transaction's record. */
    public LogRecord(long sequence, int computeNode, List<Entry> entries) {
        this(sequence, computeNode, 0, entries);
    }

    /**
     * One changed row: {@code kind} is {@code Redo.INSERT}, {@code UPDATE} or {@code DELETE}; the record
     * id is where the row lived in the run that logged it; the image is the row after the tuple header
     * (empty for a delete). Equality compares the image's bytes.
     */
    public record Entry(byte kind, int tableId, long key, long recordId, byte[] image) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && kind == e.kind && tableId == e.tableId && key == e.key
                && recordId == e.recordId && Arrays.equals(image, e.image);
        }

        @Override
        public int hashCode() {
            return ((kind * 31 + tableId) * 31 + Long.hashCode(key)) * 31 + Arrays.hashCode(image);
        }

        @Override
        public String toString() {
            return "Entry[kind=" + kind + " tableId=" + tableId + " key=" + key + " recordId=0x"
                + Long.toHexString(recordId) + " imageLength=" + image.length + "]";
        }
    }
}
