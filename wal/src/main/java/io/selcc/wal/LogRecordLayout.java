package io.selcc.wal;

import io.selcc.engine.Redo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The byte layout of one commit-log record, the payload of one Chronicle Queue document; nothing else
 * in the module writes a raw offset. Little-endian; offsets in bytes.
 *
 * <pre>
 * offset  size  field
 *  0       2    format version, {@link #VERSION}
 *  2       1    record kind: {@link #KIND_COMMIT} or {@link #KIND_BRANCH_COMMIT} in a commit log;
 *               {@link #KIND_PREPARE} or {@link #KIND_DECISION} in a two-phase-commit log ({@link TwoPhaseLog})
 *  3       1    reserved, 0
 *  4       4    total length: header, entries and images
 *  8       4    CRC32C of every byte after this field, [12, total length)
 * 12       8    commit sequence number (also the transaction id); the global transaction id in a
 *               two-phase-commit log
 * 20       4    compute node
 * 24       4    entry count (a prepare: the branch's changes; a decision: the coordinator's own)
 * 28       8    only in a {@link #KIND_BRANCH_COMMIT}: the global id of the distributed transaction
 *               this branch belongs to (the other kinds have no such field: their entries start at 28)
 * 28|36         the entries, back to back, each:
 *   +0     1      kind: Redo.INSERT, Redo.UPDATE or Redo.DELETE
 *   +1     3      reserved, 0
 *   +4     4      table id
 *   +8     8      primary key of the row (recovery finds rows by key)
 *   +16    8      record id of the row in the run that logged it (a crashed node's lines are restored by slot)
 *   +24    4      image length n
 *   +28    n      image bytes (the row after the tuple header; none for a delete)
 * </pre>
 *
 * <p>The first eight bytes are outside the CRC (the version says how the rest is laid out), so
 * {@link #check} compares each of them with the only value it may have: damage to any single byte
 * of a record is caught.
 */
final class LogRecordLayout {
    /** The layout above (1 had no record id). */
    static final short VERSION = 2;
    /** A committed transaction's changes. */
    static final byte KIND_COMMIT = 1;
    /**
     * A committed branch of a distributed transaction (partitioned mode): a commit record that also
     * carries the global transaction id, so a recovery can tell which branches of a decided transaction
     * its commit logs hold.
     */
    static final byte KIND_BRANCH_COMMIT = 4;
    /** Two-phase commit: a participant's branch is prepared, with its changes (in doubt until decided). */
    static final byte KIND_PREPARE = 2;
    /** Two-phase commit: the coordinator decided to commit, with its own branch's changes. */
    static final byte KIND_DECISION = 3;

    static final int VERSION_OFFSET = 0;
    static final int KIND_OFFSET = 2;
    static final int RESERVED_OFFSET = 3;
    static final int LENGTH_OFFSET = 4;
    static final int CRC_OFFSET = 8;
    /** The first byte the CRC covers. */
    static final int CRC_START = 12;
    static final int SEQUENCE_OFFSET = 12;
    static final int NODE_OFFSET = 20;
    static final int COUNT_OFFSET = 24;
    static final int HEADER_LENGTH = 28;
    /** {@link #KIND_BRANCH_COMMIT} only: the global transaction id, after which its entries start. */
    static final int GLOBAL_ID_OFFSET = 28;
    static final int BRANCH_HEADER_LENGTH = 36;

    static final int ENTRY_KIND_OFFSET = 0;
    static final int ENTRY_RESERVED_OFFSET = 1;
    static final int ENTRY_RESERVED_LENGTH = 3;
    static final int ENTRY_TABLE_OFFSET = 4;
    static final int ENTRY_KEY_OFFSET = 8;
    static final int ENTRY_RECORD_ID_OFFSET = 16;
    static final int ENTRY_IMAGE_LENGTH_OFFSET = 24;
    static final int ENTRY_HEADER_LENGTH = 28;

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** What {@link #check} found; anything but {@code NONE} means the record must not be replayed. */
    enum Damage {
        NONE,
        /** Shorter than the fixed header. */
        TOO_SHORT,
        /** A format version this code does not know. */
        UNKNOWN_VERSION,
        /** A record kind this code does not know. */
        UNKNOWN_KIND,
        /** The header's reserved byte is not 0. */
        BAD_HEADER,
        /** The length field disagrees with the bytes the document holds (torn or truncated). */
        BAD_LENGTH,
        /** The bytes do not match their CRC32C. */
        BAD_CRC,
        /** The CRC matched but the entries do not fill the record exactly (a writer's bug). */
        BAD_ENTRIES
    }

    private LogRecordLayout() {
    }

    /**
     * The record length {@code redo} encodes to, or -1 if it exceeds {@code Integer.MAX_VALUE}.
     */
    static int encodedLength(Redo redo) {
        long length = redo.globalId() != 0 ? BRANCH_HEADER_LENGTH : HEADER_LENGTH;
        for (int i = 0; i < redo.size(); i++) {
            length += ENTRY_HEADER_LENGTH + redo.imageLength(i);
        }
        return length > Integer.MAX_VALUE ? -1 : (int) length;
    }

    /** The encoded length of a record read back (what it took in the log). */
    static int encodedLengthOrHeader(Redo redo) {
        return redo == null ? HEADER_LENGTH : encodedLength(redo);
    }

    static long encodedLength(LogRecord record) {
        long length = record.globalId() != 0 ? BRANCH_HEADER_LENGTH : HEADER_LENGTH;
        for (LogRecord.Entry entry : record.entries()) {
            length += ENTRY_HEADER_LENGTH + entry.image().length;
        }
        return length;
    }

    /**
     * Encodes {@code redo} as the record of transaction {@code sequence} of {@code computeNode} at the
     * start of {@code target}, which holds at least {@link #encodedLength} bytes; returns the length.
     * {@code crc} is scratch (reset here), so a caller can keep one. A redo with a global id is a
     * {@link #KIND_BRANCH_COMMIT}.
     */
    static int encode(Redo redo, long sequence, int computeNode, byte[] target, CRC32C crc) {
        return encode(redo.globalId() != 0 ? KIND_BRANCH_COMMIT : KIND_COMMIT, redo, sequence, computeNode, target, crc);
    }

    /**
     * {@link #encode(Redo, long, int, byte[], CRC32C)} for a record of {@code kind}; a null redo has no
     * entries. The redo's global id is written only into a {@link #KIND_BRANCH_COMMIT}.
     */
    static int encode(byte kind, Redo redo, long sequence, int computeNode, byte[] target, CRC32C crc) {
        int count = redo == null ? 0 : redo.size();
        byte[] images = redo == null ? null : redo.images();
        int at = headerLength(kind);
        for (int i = 0; i < count; i++) {
            int imageLength = redo.imageLength(i);
            target[at + ENTRY_KIND_OFFSET] = redo.kind(i);
            for (int r = 0; r < ENTRY_RESERVED_LENGTH; r++) {
                target[at + ENTRY_RESERVED_OFFSET + r] = 0;
            }
            INT.set(target, at + ENTRY_TABLE_OFFSET, redo.tableId(i));
            LONG.set(target, at + ENTRY_KEY_OFFSET, redo.key(i));
            LONG.set(target, at + ENTRY_RECORD_ID_OFFSET, redo.recordId(i));
            INT.set(target, at + ENTRY_IMAGE_LENGTH_OFFSET, imageLength);
            System.arraycopy(images, redo.imageOffset(i), target, at + ENTRY_HEADER_LENGTH, imageLength);
            at += ENTRY_HEADER_LENGTH + imageLength;
        }
        SHORT.set(target, VERSION_OFFSET, VERSION);
        target[KIND_OFFSET] = kind;
        target[RESERVED_OFFSET] = 0;
        INT.set(target, LENGTH_OFFSET, at);
        LONG.set(target, SEQUENCE_OFFSET, sequence);
        INT.set(target, NODE_OFFSET, computeNode);
        INT.set(target, COUNT_OFFSET, count);
        if (kind == KIND_BRANCH_COMMIT) {
            LONG.set(target, GLOBAL_ID_OFFSET, redo.globalId());
        }
        INT.set(target, CRC_OFFSET, crc(target, at, crc));
        return at;
    }

    /**
     * Verifies the record in {@code record[0, length)}: header values, length, CRC, then that the
     * entries fill it exactly. {@code crc} is scratch.
     */
    static Damage check(byte[] record, int length, CRC32C crc) {
        return check(record, length, crc, KIND_COMMIT, KIND_BRANCH_COMMIT);
    }

    /** Where the entries of a record of {@code kind} start. */
    private static int headerLength(byte kind) {
        return kind == KIND_BRANCH_COMMIT ? BRANCH_HEADER_LENGTH : HEADER_LENGTH;
    }

    /** {@link #check(byte[], int, CRC32C)} for a log whose records are of kind {@code kindA} or {@code kindB}. */
    static Damage check(byte[] record, int length, CRC32C crc, byte kindA, byte kindB) {
        if (length < HEADER_LENGTH) {
            return Damage.TOO_SHORT;
        }
        if ((short) SHORT.get(record, VERSION_OFFSET) != VERSION) {
            return Damage.UNKNOWN_VERSION;
        }
        if (record[KIND_OFFSET] != kindA && record[KIND_OFFSET] != kindB) {
            return Damage.UNKNOWN_KIND;
        }
        if (record[RESERVED_OFFSET] != 0) {
            return Damage.BAD_HEADER;
        }
        if ((int) INT.get(record, LENGTH_OFFSET) != length || length < headerLength(record[KIND_OFFSET])) {
            return Damage.BAD_LENGTH;
        }
        if ((int) INT.get(record, CRC_OFFSET) != crc(record, length, crc)) {
            return Damage.BAD_CRC;
        }
        int count = (int) INT.get(record, COUNT_OFFSET);
        if (count < 0) {
            return Damage.BAD_ENTRIES;
        }
        long at = headerLength(record[KIND_OFFSET]);
        for (int i = 0; i < count; i++) {
            if (at > length - ENTRY_HEADER_LENGTH) {
                return Damage.BAD_ENTRIES;
            }
            byte kind = record[(int) at + ENTRY_KIND_OFFSET];
            int imageLength = (int) INT.get(record, (int) at + ENTRY_IMAGE_LENGTH_OFFSET);
            if (kind != Redo.INSERT && kind != Redo.UPDATE && kind != Redo.DELETE || imageLength < 0) {
                return Damage.BAD_ENTRIES;
            }
            at += ENTRY_HEADER_LENGTH + (long) imageLength;
        }
        return at == length ? Damage.NONE : Damage.BAD_ENTRIES;
    }

    /** The record in {@code record[0, length)}, which {@link #check} found undamaged. */
    static LogRecord decode(byte[] record, int length) {
        int count = (int) INT.get(record, COUNT_OFFSET);
        List<LogRecord.Entry> entries = new ArrayList<>(count);
        byte kind = record[KIND_OFFSET];
        int at = headerLength(kind);
        for (int i = 0; i < count; i++) {
            int imageLength = (int) INT.get(record, at + ENTRY_IMAGE_LENGTH_OFFSET);
            byte[] image = new byte[imageLength];
            System.arraycopy(record, at + ENTRY_HEADER_LENGTH, image, 0, imageLength);
            entries.add(new LogRecord.Entry(record[at + ENTRY_KIND_OFFSET], (int) INT.get(record, at + ENTRY_TABLE_OFFSET),
                (long) LONG.get(record, at + ENTRY_KEY_OFFSET), (long) LONG.get(record, at + ENTRY_RECORD_ID_OFFSET), image));
            at += ENTRY_HEADER_LENGTH + imageLength;
        }
        if (at != length) {
            throw new IllegalArgumentException("record not checked: length=" + length + " entriesEndAt=" + at);
        }
        long globalId = kind == KIND_BRANCH_COMMIT ? (long) LONG.get(record, GLOBAL_ID_OFFSET) : 0;
        return new LogRecord((long) LONG.get(record, SEQUENCE_OFFSET), (int) INT.get(record, NODE_OFFSET), globalId, entries);
    }

    private static int crc(byte[] record, int length, CRC32C crc) {
        crc.reset();
        crc.update(record, CRC_START, length - CRC_START);
        return (int) crc.getValue();
    }
}
