package io.selcc.storage;

/** Column types. Every column has a fixed width in the tuple, so tuples are fixed-size. */
public enum ColumnType {
    INT(4),
    LONG(8),
    /** Money as a long number of cents. */
    MONEY(8),
    /** Microseconds since the epoch. */
    TIMESTAMP(8),
    /** Fixed-length characters (ISO-8859-1), padded with zero bytes; width = maximum length. */
    CHAR(-1),
    /** Variable-length characters up to a maximum: a 2-byte length, then the bytes. */
    VARCHAR(-1);

    private final int fixedWidth;

    ColumnType(int fixedWidth) {
        this.fixedWidth = fixedWidth;
    }

    /** Bytes a column of this type takes in the tuple; {@code maxLength} matters only for strings. */
    int width(int maxLength) {
        return switch (this) {
            case CHAR -> maxLength;
            case VARCHAR -> 2 + maxLength;
            default -> fixedWidth;
        };
    }

    boolean isString() {
        return this == CHAR || this == VARCHAR;
    }
}
