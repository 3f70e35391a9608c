package io.selcc.fabric;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable big-endian byte buffer messages are written into. Primitives take their Java width;
 * {@link #putBytes} and {@link #putString} write an int length (-1 for null) and then the bytes (a
 * string in UTF-8). {@link WireReader} reads the same layout back.
 */
public final class WireWriter {
    private byte[] bytes;
    private int size;

    public WireWriter() {
        this(64);
    }

    public WireWriter(int initialCapacity) {
        this.bytes = new byte[Math.max(16, initialCapacity)];
    }

    public WireWriter clear() {
        size = 0;
        return this;
    }

    public int size() {
        return size;
    }

    /** The written bytes, a copy. */
    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    /** The buffer itself (valid up to {@link #size}); no copy. */
    public byte[] array() {
        return bytes;
    }

    public WireWriter putByte(int value) {
        ensure(1);
        bytes[size++] = (byte) value;
        return this;
    }

    public WireWriter putBoolean(boolean value) {
        return putByte(value ? 1 : 0);
    }

    public WireWriter putInt(int value) {
        ensure(4);
        for (int shift = 24; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
        return this;
    }

    public WireWriter putLong(long value) {
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
        return this;
    }

    /** An int length (-1 for null), then the bytes. */
    public WireWriter putBytes(byte[] value) {
        if (value == null) {
            return putInt(-1);
        }
        return putBytes(value, 0, value.length);
    }

    public WireWriter putBytes(byte[] value, int offset, int length) {
        putInt(length);
        ensure(length);
        System.arraycopy(value, offset, bytes, size, length);
        size += length;
        return this;
    }

    /** As {@link #putBytes}, the string's UTF-8 bytes. */
    public WireWriter putString(String value) {
        return putBytes(value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private void ensure(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }
}
