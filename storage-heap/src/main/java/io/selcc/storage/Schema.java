package io.selcc.storage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of a table, in order. Tuples are {@link TupleLayout#HEADER_SIZE} bytes of header, a
 * null bitmap of one bit per column, then the columns at fixed offsets.
 */
public final class Schema {
    public static final int MAX_STRING_LENGTH = 4096;
    public static final int MAX_COLUMNS = 256;

    private final List<Column> columns;
    /** The same columns as an array: {@link #column(int)} is on every tuple access. */
    private final Column[] byIndex;
    private final Map<String, Column> byName;
    private final int[] nullableColumns;
    private final int nullBitmapBytes;
    private final int tupleSize;

    private Schema(List<Column> columns) {
        this.columns = Collections.unmodifiableList(columns);
        this.byIndex = columns.toArray(new Column[0]);
        this.nullableColumns = java.util.stream.IntStream.range(0, byIndex.length)
            .filter(c -> byIndex[c].nullable()).toArray();
        this.byName = new HashMap<>();
        for (Column column : columns) {
            byName.put(column.name(), column);
        }
        this.nullBitmapBytes = (columns.size() + 7) / 8;
        int width = 0;
        for (Column column : columns) {
            width += column.width();
        }
        this.tupleSize = align8(TupleLayout.HEADER_SIZE + nullBitmapBytes + width);
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<Column> columns() {
        return columns;
    }

    /** Indexes of the nullable columns, ascending; the schema's own array, for {@link TupleView}. */
    int[] nullableColumns() {
        return nullableColumns;
    }

    public int columnCount() {
        return columns.size();
    }

    public Column column(int index) {
        if (index < 0 || index >= byIndex.length) {
            throw new IllegalArgumentException("no such column: index=" + index + " columns=" + byIndex.length);
        }
        return byIndex[index];
    }

    public Column column(String name) {
        Column column = byName.get(name);
        if (column == null) {
            throw new IllegalArgumentException("no such column: column=" + name + " known=" + byName.keySet());
        }
        return column;
    }

    /** Bytes of one tuple, header included, rounded up to 8. */
    public int tupleSize() {
        return tupleSize;
    }

    int nullBitmapBytes() {
        return nullBitmapBytes;
    }

    /** Offset of the column area within a tuple. */
    int columnsOffset() {
        return TupleLayout.HEADER_SIZE + nullBitmapBytes;
    }

    private static int align8(int n) {
        return (n + 7) & ~7;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schema other && columns.equals(other.columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return "Schema" + columns.stream().map(c -> c.name() + ":" + c.type()
            + (c.type().isString() ? "(" + c.maxLength() + ")" : "") + (c.nullable() ? "?" : "")).toList();
    }

    /** Adds columns in order; {@link #build()} validates names and sizes once. */
    public static final class Builder {
        private final List<Column> columns = new ArrayList<>();
        private int offset;

        public Builder addInt(String name) { return add(name, ColumnType.INT, 0, false); }
        public Builder addLong(String name) { return add(name, ColumnType.LONG, 0, false); }
        public Builder addMoney(String name) { return add(name, ColumnType.MONEY, 0, false); }
        public Builder addTimestamp(String name) { return add(name, ColumnType.TIMESTAMP, 0, false); }
        public Builder addChar(String name, int length) { return add(name, ColumnType.CHAR, length, false); }
        public Builder addVarchar(String name, int maxLength) { return add(name, ColumnType.VARCHAR, maxLength, false); }

        /** Adds a column of any type; {@code nullable} columns may hold NULL. */
        public Builder add(String name, ColumnType type, int maxLength, boolean nullable) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("column name must not be blank: index=" + columns.size());
            }
            for (Column existing : columns) {
                if (existing.name().equals(name)) {
                    throw new IllegalArgumentException("duplicate column: column=" + name);
                }
            }
            if (type.isString() && (maxLength < 1 || maxLength > MAX_STRING_LENGTH)) {
                throw new IllegalArgumentException("string length must be in [1, " + MAX_STRING_LENGTH + "]: column="
                    + name + " maxLength=" + maxLength);
            }
            if (columns.size() == MAX_COLUMNS) {
                throw new IllegalArgumentException("too many columns: max=" + MAX_COLUMNS);
            }
            int length = type.isString() ? maxLength : 0;
            int width = type.width(length);
            columns.add(new Column(name, columns.size(), type, length, nullable, offset, width));
            offset += width;
            return this;
        }

        public Schema build() {
            if (columns.isEmpty()) {
                throw new IllegalArgumentException("a schema needs at least one column");
            }
            return new Schema(new ArrayList<>(columns));
        }
    }
}
