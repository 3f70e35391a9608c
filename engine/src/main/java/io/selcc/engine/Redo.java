package io.selcc.engine;

import java.util.Arrays;

/**
 * One committing transaction's changes as its commit log receives them: per changed row, the kind of
 * change, the table, the row's primary key, its record id and (for inserts and updates) the row's column
 * bytes after the change, in the order the transaction made them (a later change of a row replaces an earlier one on
 * replay). The engine fills one per transaction, reused by its thread; a log reads it during
 * {@link CommitLog#append} only.
 *
 * <p>Images are the row's bytes after the tuple header (its null bitmap and columns,
 * {@code TupleBuffer.rowBytes()} of them), without the header the concurrency control owns (version,
 * timestamps, flags): recovery rebuilds rows, not an algorithm's bookkeeping.
 */
public final class Redo {
    /** A row the transaction inserted. */
    public static final byte INSERT = 1;
    /** A row the transaction updated. */
    public static final byte UPDATE = 2;
    /** A row the transaction deleted (no image). */
    public static final byte DELETE = 3;

    private byte[] kinds = new byte[16];
    private int[] tableIds = new int[16];
    private long[] keys = new long[16];
    private long[] recordIds = new long[16];
    private int[] imageOffsets = new int[16];
    private int[] imageLengths = new int[16];
    private byte[] images = new byte[1024];
    private int size;
    private int imageBytes;
    private long globalId;

    /** Changes recorded. */
    public int size() {
        return size;
    }

    public byte kind(int i) {
        return kinds[check(i)];
    }

    /** The table's id: its position among the database's table definitions, from 1. */
    public int tableId(int i) {
        return tableIds[check(i)];
    }

    /** The row's primary key: recovery finds rows by key, as record ids differ in a rebuilt database. */
    public long key(int i) {
        return keys[check(i)];
    }

    /**
     * Where the row lives in this run's shared memory: a crashed compute node's lines are restored slot
     * by slot (a rebuilt database, after a restart, finds rows by key instead).
     */
    public long recordId(int i) {
        return recordIds[check(i)];
    }

    /** Where change {@code i}'s image starts in {@link #images()} (0 length for a delete). */
    public int imageOffset(int i) {
        return imageOffsets[check(i)];
    }

    public int imageLength(int i) {
        return imageLengths[check(i)];
    }

    /** The backing array of every image; read only, valid until the transaction's thread starts another. */
    public byte[] images() {
        return images;
    }

    /** Total image bytes recorded. */
    public int imageBytes() {
        return imageBytes;
    }

    /**
     * The global transaction id when these are one branch's changes of a distributed transaction
     * (partitioned mode), else 0: recovery tells by it which branches of a decided transaction its log
     * already holds.
     */
    public long globalId() {
        return globalId;
    }

    void globalId(long id) {
        this.globalId = id;
    }

    void clear() {
        size = 0;
        imageBytes = 0;
        globalId = 0;
    }

    /**
     * Adds a change; returns the array and offset its image of {@code imageLength} bytes must be copied
     * to ({@link #images()} at {@link #imageOffset}).
     */
    int add(byte kind, int tableId, long key, long recordId, int imageLength) {
        if (size == kinds.length) {
            int n = 2 * size;
            kinds = Arrays.copyOf(kinds, n);
            tableIds = Arrays.copyOf(tableIds, n);
            keys = Arrays.copyOf(keys, n);
            recordIds = Arrays.copyOf(recordIds, n);
            imageOffsets = Arrays.copyOf(imageOffsets, n);
            imageLengths = Arrays.copyOf(imageLengths, n);
        }
        if (images.length - imageBytes < imageLength) {
            images = Arrays.copyOf(images, Math.max(2 * images.length, imageBytes + imageLength));
        }
        kinds[size] = kind;
        tableIds[size] = tableId;
        keys[size] = key;
        recordIds[size] = recordId;
        imageOffsets[size] = imageBytes;
        imageLengths[size] = imageLength;
        size++;
        int at = imageBytes;
        imageBytes += imageLength;
        return at;
    }

    private int check(int i) {
        return java.util.Objects.checkIndex(i, size);
    }
}
