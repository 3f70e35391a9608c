package io.selcc.storage;

import io.selcc.cache.GclHandle;

import java.nio.charset.StandardCharsets;

/**
 * A reusable flyweight over one tuple in a latched heap page: typed column access by index, the
 * CC header, and whole-image copies (for undo images and write buffers). Allocates nothing except
 * the Strings it returns. Writes need the page's X handle; they record dirty bytes through it.
 */
public final class TupleView {
    private final Schema schema;
    private final int columnsOffset;
    private GclHandle page;
    private int base;

    public TupleView(Schema schema) {
        this.schema = schema;
        this.columnsOffset = schema.columnsOffset();
    }

    /** Points this view at {@code slot} of a page latched by the caller. */
    public TupleView wrap(GclHandle latchedPage, int slot) {
        int slots = HeapPageLayout.capacity(latchedPage.dataSize(), schema.tupleSize());
        if (slot < 0 || slot >= slots) {
            throw new IllegalArgumentException("slot out of range: slot=" + slot + " slotsPerPage=" + slots);
        }
        this.page = latchedPage;
        this.base = HeapPageLayout.slotOffset(slot, schema.tupleSize());
        return this;
    }

    public Schema schema() {
        return schema;
    }

    // ------------------------------------------------------------ header

    public long version() {
        return page.getLong(base + TupleLayout.VERSION_OFFSET);
    }

    public void version(long version) {
        page.putLong(base + TupleLayout.VERSION_OFFSET, version);
    }

    public long readTimestamp() {
        return page.getLong(base + TupleLayout.READ_TIMESTAMP_OFFSET);
    }

    public void readTimestamp(long timestamp) {
        page.putLong(base + TupleLayout.READ_TIMESTAMP_OFFSET, timestamp);
    }

    public int flags() {
        return page.getInt(base + TupleLayout.FLAGS_OFFSET);
    }

    public void flags(int flags) {
        page.putInt(base + TupleLayout.FLAGS_OFFSET, flags);
    }

    public boolean isUsed() {
        return (flags() & TupleLayout.USED) != 0;
    }

    public boolean isVisible() {
        return (flags() & (TupleLayout.USED | TupleLayout.VISIBLE)) == (TupleLayout.USED | TupleLayout.VISIBLE);
    }

    public int ccWord() {
        return page.getInt(base + TupleLayout.CC_WORD_OFFSET);
    }

    public void ccWord(int word) {
        page.putInt(base + TupleLayout.CC_WORD_OFFSET, word);
    }

    // ------------------------------------------------------------ columns

    public boolean isNull(int column) {
        int bit = checked(column).index();
        return (page.getByte(base + TupleLayout.HEADER_SIZE + bit / 8) & (1 << (bit % 8))) != 0;
    }

    public void setNull(int column) {
        Column c = checked(column);
        if (!c.nullable()) {
            throw new IllegalArgumentException("column is not nullable: column=" + c.name());
        }
        setNullBit(c, true);
    }

    public int getInt(int column) {
        return page.getInt(position(column, ColumnType.INT));
    }

    public void setInt(int column, int value) {
        page.putInt(writePosition(column, ColumnType.INT), value);
    }

    public long getLong(int column) {
        return page.getLong(position(column, ColumnType.LONG));
    }

    public void setLong(int column, long value) {
        page.putLong(writePosition(column, ColumnType.LONG), value);
    }

    /** Money in cents. */
    public long getMoney(int column) {
        return page.getLong(position(column, ColumnType.MONEY));
    }

    public void setMoney(int column, long cents) {
        page.putLong(writePosition(column, ColumnType.MONEY), cents);
    }

    /** Microseconds since the epoch. */
    public long getTimestamp(int column) {
        return page.getLong(position(column, ColumnType.TIMESTAMP));
    }

    public void setTimestamp(int column, long micros) {
        page.putLong(writePosition(column, ColumnType.TIMESTAMP), micros);
    }

    /** A CHAR or VARCHAR column; null if the column is NULL. */
    public String getString(int column) {
        Column c = checked(column);
        if (isNull(column)) {
            return null;
        }
        byte[] bytes = new byte[stringLength(c)];
        page.getBytes(stringStart(c), bytes, 0, bytes.length);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    public void setString(int column, String value) {
        Column c = checked(column);
        if (!c.type().isString()) {
            throw typeMismatch(c, "string");
        }
        byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
        if (bytes.length > c.maxLength()) {
            throw new IllegalArgumentException("value longer than the column: column=" + c.name() + " length="
                + bytes.length + " max=" + c.maxLength());
        }
        int start = base + columnsOffset + c.offset();
        if (c.type() == ColumnType.VARCHAR) {
            page.putByte(start, (byte) (bytes.length >>> 8));
            page.putByte(start + 1, (byte) bytes.length);
            page.putBytes(start + 2, bytes, 0, bytes.length);
        } else {
            page.putBytes(start, bytes, 0, bytes.length);
            for (int i = bytes.length; i < c.maxLength(); i++) {
                page.putByte(start + i, (byte) 0);
            }
        }
        setNullBit(c, false);
    }

    // ------------------------------------------------------------ whole images

    /** Copies the whole tuple (header included) into {@code image} (length = tuple size). */
    public void copyTo(byte[] image) {
        page.getBytes(base, image, 0, schema.tupleSize());
    }

    /** Overwrites the whole tuple (header included) from {@code image}. */
    public void copyFrom(byte[] image) {
        page.putBytes(base, image, 0, schema.tupleSize());
    }

    /** Overwrites the column area and null bitmap only, keeping the CC header. */
    public void copyColumnsFrom(byte[] image) {
        int from = TupleLayout.HEADER_SIZE;
        page.putBytes(base + from, image, from, schema.tupleSize() - from);
    }

    // ------------------------------------------------------------ internals

    private int stringLength(Column c) {
        int start = base + columnsOffset + c.offset();
        if (c.type() == ColumnType.VARCHAR) {
            return ((page.getByte(start) & 0xFF) << 8) | (page.getByte(start + 1) & 0xFF);
        }
        int length = c.maxLength();
        while (length > 0 && page.getByte(start + length - 1) == 0) {
            length--;
        }
        return length;
    }

    private int stringStart(Column c) {
        int start = base + columnsOffset + c.offset();
        return c.type() == ColumnType.VARCHAR ? start + 2 : start;
    }

    private Column checked(int column) {
        if (page == null) {
            throw new IllegalStateException("tuple view not wrapped around a page");
        }
        return schema.column(column);
    }

    private int position(int column, ColumnType expected) {
        Column c = checked(column);
        if (c.type() != expected) {
            throw typeMismatch(c, expected.name());
        }
        return base + columnsOffset + c.offset();
    }

    private int writePosition(int column, ColumnType expected) {
        int position = position(column, expected);
        Column c = schema.column(column);
        if (c.nullable()) {
            setNullBit(c, false);
        }
        return position;
    }

    private void setNullBit(Column c, boolean isNull) {
        int at = base + TupleLayout.HEADER_SIZE + c.index() / 8;
        int mask = 1 << (c.index() % 8);
        byte b = page.getByte(at);
        page.putByte(at, (byte) (isNull ? b | mask : b & ~mask));
    }

    private static IllegalArgumentException typeMismatch(Column c, String wanted) {
        return new IllegalArgumentException("column type mismatch: column=" + c.name() + " type=" + c.type()
            + " accessedAs=" + wanted);
    }
}
