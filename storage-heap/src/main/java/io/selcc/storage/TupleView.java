package io.selcc.storage;

import io.selcc.cache.GclHandle;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A reusable flyweight over one tuple: in a latched heap page, or in a private {@link TupleBuffer}
 * (write buffers, undo images). Typed column access by index, the CC header, whole-image copies.
 * Allocates nothing except the Strings it returns (and a search buffer grown once). Writes into a
 * page need its X handle and record their dirty bytes through it.
 */
public final class TupleView {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    /** {@link #stringContains}'s eight bytes at a time, the first byte lowest. */
    private static final java.lang.invoke.VarHandle WORD =
        java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private final Schema schema;
    private final int columnsOffset;
    private MemorySegment segment;
    private long base;
    /** The page handle whose dirty range writes extend; null for buffers. */
    private GclHandle page;
    /** Where the page's data region starts in {@link #segment} (0 for buffers): dirty ranges are relative to it. */
    private long dataStart;
    private boolean writable;
    /** Wrapped by a wrapReadOnly: a reader's row, which no write may go through, latch or not. */
    private boolean readOnly;
    /** Wrapped by {@link #wrapColumns}: an updater's row in place, whose CC header no write may change. */
    private boolean columnsOnly;
    /** Unwrapped by {@link #detach} (its transaction ended) rather than never wrapped: for the message. */
    private boolean detached;
    /** The slots per page of the last page size wrapped: a division per wrap otherwise. */
    private int slotsDataSize = -1;
    private int slotsPerPage;
    /** Scratch for {@link #stringContains}, grown to the longest string searched through this view. */
    private byte[] searchBytes = new byte[0];
    /** {@link #latin1}'s memo of the last needle (compared by identity) and its bytes. */
    private String lastNeedle;
    private byte[] lastNeedleBytes;
    private static final byte[] UNENCODABLE = new byte[0];

    private static final byte[] ZEROS = new byte[Schema.MAX_STRING_LENGTH];

    public TupleView(Schema schema) {
        this.schema = schema;
        this.columnsOffset = schema.columnsOffset();
    }

    /** Points this view at {@code slot} of a page latched by the caller. */
    public TupleView wrap(GclHandle latchedPage, int slot) {
        int dataSize = latchedPage.dataSize();
        if (dataSize != slotsDataSize) {
            slotsPerPage = HeapPageLayout.capacity(dataSize, schema.tupleSize());
            slotsDataSize = dataSize;
        }
        int slots = slotsPerPage;
        if (slot < 0 || slot >= slots) {
            throw new IllegalArgumentException("slot out of range: slot=" + slot + " slotsPerPage=" + slots);
        }
        this.segment = latchedPage.backingSegment(); // no view object per latch: reads stay allocation-free
        this.page = latchedPage;
        this.writable = latchedPage.isExclusive();
        this.readOnly = false;
        this.columnsOnly = false;
        this.detached = false;
        this.dataStart = latchedPage.dataStart();
        this.base = dataStart + HeapPageLayout.slotOffset(slot, schema.tupleSize());
        return this;
    }

    /**
     * {@link #wrap(GclHandle, int)} for a reader handed the row in place: every write through this view
     * fails, even when the caller holds the page exclusively (a write there would bypass undo and log).
     */
    public TupleView wrapReadOnly(GclHandle latchedPage, int slot) {
        wrap(latchedPage, slot);
        this.writable = false;
        this.readOnly = true;
        return this;
    }

    /**
     * {@link #wrap(GclHandle, int)} for an updater handed the row in place (2PL's update, under the page's
     * X latch): its columns may be written, its CC header (version, read timestamp, flags) may not, nor
     * the whole tuple copied over, so whatever the updater does, the header stays the algorithm's.
     */
    public TupleView wrapColumns(GclHandle exclusivePage, int slot) {
        if (!exclusivePage.isExclusive()) {
            throw new IllegalStateException("an updater's row needs the page's X latch: page "
                + io.selcc.fabric.GlobalAddress.toString(exclusivePage.address()));
        }
        wrap(exclusivePage, slot);
        this.columnsOnly = true;
        return this;
    }

    /** {@link #wrapColumns(GclHandle, int)} for an updater handed a private copy of the row. */
    public TupleView wrapColumns(TupleBuffer buffer) {
        wrap(buffer);
        this.columnsOnly = true;
        return this;
    }

    /**
     * Points this view at nothing: reads and writes of its header and columns throw (an
     * {@code IllegalStateException} naming why) until it is wrapped again. For a row handed to code that may
     * outlive what the view points at (an updater whose transaction ended).
     */
    public void detach() {
        segment = null;
        page = null;
        writable = false;
        columnsOnly = false;
        detached = true;
    }

    /** Points this view at a private tuple buffer of the same schema. */
    public TupleView wrap(TupleBuffer buffer) {
        if (buffer.schema() != schema && !buffer.schema().equals(schema)) { // equals compares every column
            throw new IllegalArgumentException("buffer of another schema: " + buffer.schema() + " view " + schema);
        }
        this.segment = buffer.segment();
        this.page = null;
        this.dataStart = 0;
        this.writable = true;
        this.readOnly = false;
        this.columnsOnly = false;
        this.detached = false;
        this.base = 0;
        return this;
    }

    /** {@link #wrap(TupleBuffer)} for a reader: writes fail, as through {@link #wrapReadOnly(GclHandle, int)}. */
    public TupleView wrapReadOnly(TupleBuffer buffer) {
        wrap(buffer);
        this.writable = false;
        this.readOnly = true;
        return this;
    }

    public Schema schema() {
        return schema;
    }

    /** Whether this view reads a row in a latched page (the row itself) rather than a private buffer. */
    public boolean onPage() {
        return page != null;
    }

    // ------------------------------------------------------------ header

    public long version() {
        return getLongAt(TupleLayout.VERSION_OFFSET);
    }

    public void version(long version) {
        checkHeaderWritable();
        putLongAt(TupleLayout.VERSION_OFFSET, version);
    }

    public long readTimestamp() {
        return getLongAt(TupleLayout.READ_TIMESTAMP_OFFSET);
    }

    public void readTimestamp(long timestamp) {
        checkHeaderWritable();
        putLongAt(TupleLayout.READ_TIMESTAMP_OFFSET, timestamp);
    }

    public int flags() {
        return getIntAt(TupleLayout.FLAGS_OFFSET);
    }

    public void flags(int flags) {
        checkHeaderWritable();
        putIntAt(TupleLayout.FLAGS_OFFSET, flags);
    }

    public boolean isUsed() {
        return (flags() & TupleLayout.USED) != 0;
    }

    public boolean isVisible() {
        return (flags() & (TupleLayout.USED | TupleLayout.VISIBLE)) == (TupleLayout.USED | TupleLayout.VISIBLE);
    }

    /** TO's prewrite mark ({@link TupleLayout#WRITE_INTENT}). */
    public boolean hasWriteIntent() {
        return (flags() & TupleLayout.WRITE_INTENT) != 0;
    }

    public void writeIntent(boolean set) {
        int flags = flags();
        flags(set ? flags | TupleLayout.WRITE_INTENT : flags & ~TupleLayout.WRITE_INTENT);
    }

    /** Which tuple this slot holds: +1 each time the slot is filled (see {@link TupleLayout}). */
    public int incarnation() {
        return getIntAt(TupleLayout.INCARNATION_OFFSET);
    }

    void incarnation(int incarnation) {
        checkHeaderWritable();
        putIntAt(TupleLayout.INCARNATION_OFFSET, incarnation);
    }

    // ------------------------------------------------------------ columns

    public boolean isNull(int column) {
        int bit = checked(column).index();
        return (segment.get(ValueLayout.JAVA_BYTE, base + TupleLayout.HEADER_SIZE + bit / 8) & (1 << (bit % 8))) != 0;
    }

    /** Sets every nullable column to NULL, as an insert's starting point (SQL: a column left out is NULL). */
    public void setNullableColumnsNull() {
        for (int column : schema.nullableColumns()) {
            setNull(column);
        }
    }

    public void setNull(int column) {
        Column c = checked(column);
        if (!c.nullable()) {
            throw new IllegalArgumentException("column is not nullable: column=" + c.name());
        }
        setNullBit(c, true);
    }

    public int getInt(int column) {
        return segment.get(INT, position(column, ColumnType.INT));
    }

    public void setInt(int column, int value) {
        putIntAt(writePosition(column, ColumnType.INT) - base, value);
    }

    public long getLong(int column) {
        return segment.get(LONG, position(column, ColumnType.LONG));
    }

    public void setLong(int column, long value) {
        putLongAt(writePosition(column, ColumnType.LONG) - base, value);
    }

    /** Money in cents. */
    public long getMoney(int column) {
        return segment.get(LONG, position(column, ColumnType.MONEY));
    }

    public void setMoney(int column, long cents) {
        putLongAt(writePosition(column, ColumnType.MONEY) - base, cents);
    }

    /** Microseconds since the epoch. */
    public long getTimestamp(int column) {
        return segment.get(LONG, position(column, ColumnType.TIMESTAMP));
    }

    public void setTimestamp(int column, long micros) {
        putLongAt(writePosition(column, ColumnType.TIMESTAMP) - base, micros);
    }

    /** A CHAR or VARCHAR column; null if the column is NULL. */
    public String getString(int column) {
        Column c = checked(column);
        if (isNull(column)) {
            return null;
        }
        byte[] bytes = new byte[stringLength(c)];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, stringStart(c), bytes, 0, bytes.length);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /**
     * Copies a CHAR or VARCHAR column's bytes (ISO-8859-1, as stored) into {@code into} and returns their
     * length; -1 when the column is NULL. For moving a value between rows without a String.
     *
     * @throws IllegalArgumentException if {@code into} is shorter than the value
     */
    public int getStringBytes(int column, byte[] into) {
        Column c = checked(column);
        if (!c.type().isString()) {
            throw typeMismatch(c, "string");
        }
        if (isNull(column)) {
            return -1;
        }
        int length = stringLength(c);
        if (length > into.length) {
            throw new IllegalArgumentException("buffer shorter than the value: column=" + c.name() + " length=" + length
                + " buffer=" + into.length);
        }
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, stringStart(c), into, 0, length);
        return length;
    }

    /** The length in bytes of a CHAR or VARCHAR column's value; -1 when it is NULL. */
    public int stringLength(int column) {
        Column c = checked(column);
        if (!c.type().isString()) {
            throw typeMismatch(c, "string");
        }
        return isNull(column) ? -1 : stringLength(c);
    }

    /**
     * Byte {@code index} of a string column's value (0 &lt;= index &lt; {@link #stringLength(int)}), for
     * key functions that decode a short value without a String.
     */
    public int stringByte(int column, int index) {
        Column c = checked(column);
        if (!c.type().isString()) {
            throw typeMismatch(c, "string");
        }
        java.util.Objects.checkIndex(index, c.maxLength());
        return byteAt(stringStart(c) + index) & 0xFF;
    }

    /**
     * True when the string column holds {@code needle} (ISO-8859-1, as stored) anywhere; false when
     * null. Searches the stored bytes, so a check like TPC-C's "ORIGINAL" decodes no String.
     */
    public boolean stringContains(int column, String needle) {
        Column c = checked(column);
        if (isNull(column)) {
            return false;
        }
        int length = stringLength(c);
        if (searchBytes.length < length + Long.BYTES) { // whole words are read past the value's end
            searchBytes = new byte[Math.max(length + Long.BYTES, 2 * searchBytes.length)];
        }
        byte[] bytes = searchBytes; // one bulk copy: a segment read per byte cost more than decoding
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, stringStart(c), bytes, 0, length);
        byte[] pattern = latin1(needle);
        int n = pattern.length;
        if (pattern == UNENCODABLE) {
            return false; // a character outside ISO-8859-1 is never stored
        }
        if (n == 0) {
            return true; // as String.contains
        }
        int last = length - n; // the last position a match can start at
        // Eight positions per step: the bytes equal to the needle's first one, found with word arithmetic
        // (a zero byte of word ^ first), then checked in full. Bytes past the value are old scratch:
        // positions after last are never checked.
        long first = (pattern[0] & 0xFFL) * ONES;
        for (int i = 0; i <= last; i += Long.BYTES) {
            long x = (long) WORD.get(bytes, i) ^ first;
            long candidates = (x - ONES) & ~x & HIGHS; // exact at the lowest hit; a later false one is checked away
            while (candidates != 0) {
                int at = i + (Long.numberOfTrailingZeros(candidates) >>> 3);
                if (at > last) {
                    return false;
                }
                int j = 0; // from the first byte: a candidate may be false; a plain loop, as most fail at once
                while (j < n && bytes[at + j] == pattern[j]) {
                    j++;
                }
                if (j == n) {
                    return true;
                }
                candidates &= candidates - 1;
            }
        }
        return false;
    }

    /**
     * {@code needle}'s ISO-8859-1 bytes, or {@link #UNENCODABLE}; the last needle's are kept, as callers
     * search for one constant ("ORIGINAL" in every New-Order line) through a view they reuse.
     */
    private byte[] latin1(String needle) {
        if (needle != lastNeedle) {
            byte[] bytes = new byte[needle.length()];
            for (int i = 0; i < bytes.length; i++) {
                char ch = needle.charAt(i);
                if (ch > 0xFF) {
                    bytes = UNENCODABLE;
                    break;
                }
                bytes[i] = (byte) ch;
            }
            lastNeedleBytes = bytes;
            lastNeedle = needle;
        }
        return lastNeedleBytes;
    }

    public void setString(int column, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
        setString(column, bytes, 0, bytes.length);
    }

    /**
     * Sets a CHAR or VARCHAR column to {@code length} ISO-8859-1 bytes of {@code latin1} from
     * {@code offset}: for writers that build a value in a reused buffer (a loader's random text) rather
     * than a String per value.
     */
    public void setString(int column, byte[] latin1, int offset, int length) {
        Column c = checked(column);
        if (!c.type().isString()) {
            throw typeMismatch(c, "string");
        }
        java.util.Objects.checkFromIndexSize(offset, length, latin1.length);
        if (length > c.maxLength()) {
            throw new IllegalArgumentException("value longer than the column: column=" + c.name() + " length="
                + length + " max=" + c.maxLength());
        }
        checkWritable();
        long start = base + columnsOffset + c.offset();
        if (c.type() == ColumnType.VARCHAR) {
            segment.set(ValueLayout.JAVA_BYTE, start, (byte) (length >>> 8));
            segment.set(ValueLayout.JAVA_BYTE, start + 1, (byte) length);
            MemorySegment.copy(latin1, offset, segment, ValueLayout.JAVA_BYTE, start + 2, length);
        } else {
            MemorySegment.copy(latin1, offset, segment, ValueLayout.JAVA_BYTE, start, length);
            // Padded from a shared array of zeros: a slice to fill was an object per CHAR write.
            MemorySegment.copy(ZEROS, 0, segment, ValueLayout.JAVA_BYTE, start + length, c.maxLength() - length);
        }
        dirty(start, c.width());
        setNullBit(c, false);
    }

    // ------------------------------------------------------------ whole images

    /** Copies the whole tuple (header included) into {@code image} (length = tuple size). */
    public void copyTo(byte[] image) {
        copyTo(image, 0);
    }

    /** Copies the whole tuple (header included) into {@code image} from {@code offset} on. */
    public void copyTo(byte[] image, int offset) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base, image, offset, schema.tupleSize());
    }

    /** Copies the whole tuple (header included) into {@code into}, a buffer of the same schema. */
    public void copyTo(TupleBuffer into) {
        MemorySegment.copy(segment, base, into.segment(), 0, schema.tupleSize());
    }

    /** Overwrites the whole tuple (header included) from {@code image}. */
    public void copyFrom(byte[] image) {
        copyFrom(image, 0);
    }

    /** Overwrites the whole tuple (header included) from {@code image}, starting at {@code offset}. */
    public void copyFrom(byte[] image, int offset) {
        checkHeaderWritable();
        checkWritable();
        MemorySegment.copy(image, offset, segment, ValueLayout.JAVA_BYTE, base, schema.tupleSize());
        dirty(base, schema.tupleSize());
    }

    /** Copies the whole tuple (header included) from another view of the same schema. */
    public void copyFrom(TupleView other) {
        checkHeaderWritable();
        checkWritable();
        MemorySegment.copy(other.segment, other.base, segment, base, schema.tupleSize());
        dirty(base, schema.tupleSize());
    }

    /** Bytes of the row after the tuple header (null bitmap and columns): a redo image or checkpoint row. */
    public int rowBytes() {
        return schema.tupleSize() - TupleLayout.HEADER_SIZE;
    }

    /** Copies the row after the tuple header ({@link #rowBytes()} bytes) to {@code to} at {@code offset}. */
    public void copyRowTo(byte[] to, int offset) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base + TupleLayout.HEADER_SIZE, to, offset, rowBytes());
    }

    /** Sets the row after the tuple header from {@code from} at {@code offset} (a redo image); the header stays. */
    public void setRowFrom(byte[] from, int offset) {
        checkWritable();
        MemorySegment.copy(from, offset, segment, ValueLayout.JAVA_BYTE, base + TupleLayout.HEADER_SIZE, rowBytes());
        dirty(base + TupleLayout.HEADER_SIZE, rowBytes());
    }

    /** Copies the null bitmap and columns from another view, keeping this tuple's CC header. */
    public void copyColumnsFrom(TupleView other) {
        checkWritable();
        int from = TupleLayout.HEADER_SIZE;
        MemorySegment.copy(other.segment, other.base + from, segment, base + from, schema.tupleSize() - from);
        dirty(base + from, schema.tupleSize() - from);
    }

    // ------------------------------------------------------------ internals

    private byte byteAt(long position) {
        return segment.get(ValueLayout.JAVA_BYTE, position);
    }

    private int stringLength(Column c) {
        long start = base + columnsOffset + c.offset();
        if (c.type() == ColumnType.VARCHAR) {
            return ((byteAt(start) & 0xFF) << 8) | (byteAt(start + 1) & 0xFF);
        }
        int length = c.maxLength();
        while (length > 0 && byteAt(start + length - 1) == 0) {
            length--;
        }
        return length;
    }

    private long stringStart(Column c) {
        long start = base + columnsOffset + c.offset();
        return c.type() == ColumnType.VARCHAR ? start + 2 : start;
    }

    private Column checked(int column) {
        checkWrapped();
        return schema.column(column);
    }

    private void checkWrapped() {
        if (segment == null) {
            throw new IllegalStateException(detached
                ? "a row used after its transaction ended (the code it was handed to carried on after a nested call"
                    + " aborted the transaction)"
                : "tuple view not wrapped around a page or buffer");
        }
    }

    private long position(int column, ColumnType expected) {
        Column c = checked(column);
        if (c.type() != expected) {
            throw typeMismatch(c, expected.name());
        }
        return base + columnsOffset + c.offset();
    }

    private long writePosition(int column, ColumnType expected) {
        long position = position(column, expected);
        checkWritable();
        Column c = schema.column(column);
        if (c.nullable()) {
            setNullBit(c, false);
        }
        return position;
    }

    private void setNullBit(Column c, boolean isNull) {
        checkWritable();
        long at = base + TupleLayout.HEADER_SIZE + c.index() / 8;
        int mask = 1 << (c.index() % 8);
        byte b = byteAt(at);
        segment.set(ValueLayout.JAVA_BYTE, at, (byte) (isNull ? b | mask : b & ~mask));
        dirty(at, 1);
    }

    private long getLongAt(long offset) {
        checkWrapped();
        return segment.get(LONG, base + offset);
    }

    private int getIntAt(long offset) {
        checkWrapped();
        return segment.get(INT, base + offset);
    }

    private void putLongAt(long offset, long value) {
        checkWritable();
        segment.set(LONG, base + offset, value);
        dirty(base + offset, 8);
    }

    private void putIntAt(long offset, int value) {
        checkWritable();
        segment.set(INT, base + offset, value);
        dirty(base + offset, 4);
    }

    private void checkWritable() {
        checkWrapped();
        if (!writable) {
            if (readOnly) {
                throw new IllegalStateException("write through a reader's read-only view of a row"
                    + (page == null ? "" : " on page " + io.selcc.fabric.GlobalAddress.toString(page.address())));
            }
            throw new IllegalStateException("write under a shared latch: tuple view of page "
                + io.selcc.fabric.GlobalAddress.toString(page.address()));
        }
    }

    private void checkHeaderWritable() {
        if (columnsOnly) {
            String where = page == null ? "" : " on page " + io.selcc.fabric.GlobalAddress.toString(page.address());
            throw new IllegalStateException("an updater wrote the CC header or the whole tuple of its row (columns"
                + " only)" + where);
        }
    }

    /** Extends the page's dirty range (positions are relative to the data region). */
    private void dirty(long position, int length) {
        if (page != null) {
            page.markDirty((int) (position - dataStart), length);
        }
    }

    private static IllegalArgumentException typeMismatch(Column c, String wanted) {
        return new IllegalArgumentException("column type mismatch: column=" + c.name() + " type=" + c.type()
            + " accessedAs=" + wanted);
    }
}
