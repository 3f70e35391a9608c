package io.selcc.fabric;

import java.nio.charset.StandardCharsets;

/**
 * Reads what a {@link WireWriter} wrote, checking every length against what is left: a truncated or
 * corrupt message throws {@link MalformedMessageException} naming what was being read.
 */
public final class WireReader {
    private final byte[] bytes;
    private final int end;
    private int position;

    public WireReader(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    public WireReader(byte[] bytes, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > bytes.length) {
            throw new IllegalArgumentException("slice out of range: offset=" + offset + " length=" + length
                + " array=" + bytes.length);
        }
        this.bytes = bytes;
        this.position = offset;
        this.end = offset + length;
    }

    public int remaining() {
        return end - position;
    }

    /** Throws unless every byte was read (trailing bytes mean a layout mismatch). */
    public void expectEnd(String what) {
        if (position != end) {
            throw new MalformedMessageException(what + ": " + (end - position) + " unread bytes at its end");
        }
    }

    public int getByte() {
        need(1, "byte");
        return bytes[position++];
    }

    public boolean getBoolean() {
        int b = getByte();
        if (b != 0 && b != 1) {
            throw new MalformedMessageException("boolean byte is " + b + ", not 0 or 1");
        }
        return b == 1;
    }

    public int getInt() {
        need(4, "int");
        int value = 0;
        for (int i = 0; i < 4; i++) {
            value = (value << 8) | (bytes[position++] & 0xFF);
        }
        return value;
    }

    public long getLong() {
        need(8, "long");
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[position++] & 0xFF);
        }
        return value;
    }

    /** Bytes written by {@link WireWriter#putBytes}; null if null was written. */
    public byte[] getBytes() {
        int length = getInt();
        if (length == -1) {
            return null;
        }
        if (length < 0) {
            throw new MalformedMessageException("negative byte-array length " + length);
        }
        need(length, "byte array of " + length);
        byte[] value = new byte[length];
        System.arraycopy(bytes, position, value, 0, length);
        position += length;
        return value;
    }

    public String getString() {
        byte[] utf8 = getBytes();
        return utf8 == null ? null : new String(utf8, StandardCharsets.UTF_8);
    }

    /** An enum constant written as its ordinal byte. */
    public <E extends Enum<E>> E getEnum(E[] values, String what) {
        int ordinal = getByte();
        if (ordinal < 0 || ordinal >= values.length) {
            throw new MalformedMessageException("unknown " + what + " " + ordinal);
        }
        return values[ordinal];
    }

    private void need(int count, String what) {
        if (end - position < count) {
            throw new MalformedMessageException("truncated: " + what + " needs " + count + " bytes, "
                + (end - position) + " left");
        }
    }
}
