package io.selcc.storage;

/**
 * One column: its position, byte offset within the tuple's column area, and width.
 *
 * @param maxLength maximum string length for CHAR/VARCHAR, 0 otherwise
 */
public record Column(String name, int index, ColumnType type, int maxLength, boolean nullable, int offset, int width) {
}
