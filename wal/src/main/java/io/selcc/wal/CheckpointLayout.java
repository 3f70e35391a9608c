package io.selcc.wal;

import io.selcc.storage.Column;
import io.selcc.storage.Schema;
import io.selcc.wal.CheckpointException.Damage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.CRC32C;

/**
 * The byte layout of a checkpoint file; nothing else in the module writes or parses one of its
 * fields. Little-endian; offsets in bytes. The file is written front to back in one pass while the
 * tables are scanned, so whatever is known only at the end (row counts, the commit sequence counter
 * after the scan) comes after the rows it counts, and the CRC is computed as the bytes go out.
 *
 * <pre>
 * file name: checkpoint-NNNNNNNNNNNNNNNNNNNN.ckpt  (replayFrom, 20 digits; .tmp while being written)
 *
 * header
 * offset  size  field
 *  0       8    magic, {@link #MAGIC}: the ASCII bytes "SELCCKPT"
 *  8       4    format version, {@link #VERSION}
 * 12       4    reserved, 0
 * 16       8    replayFrom: recovery replays the log records numbered above it
 * 24       4    property count P
 * 28       4    table count T
 * 32            P properties, sorted by key, each:
 *   +0       4    key length k
 *   +4       k    key, UTF-8
 *   +4+k     4    value length v
 *   +8+k     v    value, UTF-8
 *               T table descriptors, in table id order, each:
 *   +0       4    table id (1..T)
 *   +4       4    row bytes r: the row after the tuple header (null bitmap and columns)
 *   +8       4    name length n
 *   +12      n    name, UTF-8
 *   +12+n    4    schema length s
 *   +16+n    s    the columns, {@link #schemaText}, UTF-8
 *               T table sections, in the descriptors' order, each:
 *   +0       4    table id
 *   +4            chunks (the rows one scan transaction read), each:
 *     +0       4    row count c, at least 1
 *     +4       c*(8+r)  the rows back to back, ascending primary key, each:
 *       +0       8    its record id in the shared memory of the run that wrote the file
 *       +8       r    the row
 *                 then the section's end:
 *     +0       4    0 (a chunk of no rows)
 *     +4       8    the section's row count, the sum of its chunks' counts
 *
 * trailer: the last {@link #TRAILER_LENGTH} bytes
 * offset  size  field
 *  0       8    coveredThrough: the commit sequence counter read after the scan
 *  8       8    total row count, the sum of the sections' counts
 * 16       8    end magic, {@link #END_MAGIC}: the ASCII bytes "SELCCEND"
 * 24       4    CRC32C of every byte of the file before this field
 * </pre>
 *
 * <p>The CRC covers the header's magic and version too, but a reader checks those first, so a file
 * that is not a checkpoint, or one of a newer format, is named as such rather than as damaged.
 */
final class CheckpointLayout {
    /** "SELCCKPT" as the first eight bytes of the file. */
    static final long MAGIC = ascii("SELCCKPT");
    /** "SELCCEND" as the trailer's third field. */
    static final long END_MAGIC = ascii("SELCCEND");
    /**
     * The layout above. Version 2 added each row's record id (version 1 files are refused: a data
     * directory of an older build is rebuilt by loading it again).
     */
    static final int VERSION = 2;
    /** A row's record id before its bytes, in a chunk. */
    static final int ROW_RECORD_ID_BYTES = Long.BYTES;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 8;
    static final int RESERVED_OFFSET = 12;
    static final int REPLAY_FROM_OFFSET = 16;
    static final int PROPERTY_COUNT_OFFSET = 24;
    static final int TABLE_COUNT_OFFSET = 28;
    /** The fixed part of the header; properties follow. */
    static final int HEADER_LENGTH = 32;

    static final int TRAILER_COVERED_OFFSET = 0;
    static final int TRAILER_ROWS_OFFSET = 8;
    static final int TRAILER_MAGIC_OFFSET = 16;
    static final int TRAILER_CRC_OFFSET = 24;
    static final int TRAILER_LENGTH = 28;

    /** The shortest file that can be a checkpoint: a header without properties or tables, and a trailer. */
    static final int MIN_LENGTH = HEADER_LENGTH + TRAILER_LENGTH;
    /** A chunk row count that ends a section. */
    static final int END_OF_SECTION = 0;
    /** The longest text (property, table name, schema) in UTF-8 bytes. */
    static final int MAX_TEXT_BYTES = 1 << 20;

    static final String PREFIX = "checkpoint-";
    /** A published checkpoint. */
    static final String COMPLETE = ".ckpt";
    /** A checkpoint being written, or left by one that was interrupted: never read. */
    static final String PARTIAL = ".tmp";
    private static final int DIGITS = 20;

    /** The I/O buffer of a writer and a reader (grown by a reader for a longer row). */
    private static final int BUFFER = 1 << 20;

    /** The fixed header and the texts after it, as read. */
    record Header(long replayFrom, Map<String, String> properties, List<Checkpoint.TableDescriptor> tables) {
    }

    /** The trailer, as read. */
    record Trailer(long coveredThrough, long rows, int crc) {
    }

    private CheckpointLayout() {
    }

    // ------------------------------------------------------------------ names

    /** The file name of the checkpoint with replay start {@code replayFrom} ({@code suffix}: COMPLETE or PARTIAL). */
    static String fileName(long replayFrom, String suffix) {
        if (replayFrom < 0) {
            throw new IllegalArgumentException("replayFrom=" + replayFrom);
        }
        return PREFIX + String.format(Locale.ROOT, "%0" + DIGITS + "d", replayFrom) + suffix;
    }

    /** The replay start a file named {@code name} stands for, or -1 if the name is not {@code PREFIX + 20 digits + suffix}. */
    static long replayFromOf(String name, String suffix) {
        if (name.length() != PREFIX.length() + DIGITS + suffix.length() || !name.startsWith(PREFIX)
            || !name.endsWith(suffix)) {
            return -1;
        }
        long value = 0;
        for (int i = PREFIX.length(); i < PREFIX.length() + DIGITS; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
            if (value < 0) {
                return -1; // beyond Long.MAX_VALUE: not one this code wrote
            }
        }
        return value;
    }

    /**
     * The columns of {@code schema} as a descriptor stores them: {@code name TYPE[(maxLength)][ NULL]},
     * comma separated. Two schemas whose rows have the same length but other columns differ here.
     */
    static String schemaText(Schema schema) {
        return schema.columns().stream().map(CheckpointLayout::columnText).collect(Collectors.joining(", "));
    }

    private static String columnText(Column c) {
        return c.name() + " " + c.type() + (c.maxLength() > 0 ? "(" + c.maxLength() + ")" : "") + (c.nullable() ? " NULL" : "");
    }

    // ------------------------------------------------------------------ writing

    static void writeHeader(Output out, long replayFrom, Map<String, String> properties,
                            List<Checkpoint.TableDescriptor> tables) {
        out.putLong(MAGIC);
        out.putInt(VERSION);
        out.putInt(0);
        out.putLong(replayFrom);
        out.putInt(properties.size());
        out.putInt(tables.size());
        for (Map.Entry<String, String> property : properties.entrySet()) {
            out.putText(property.getKey());
            out.putText(property.getValue());
        }
        for (Checkpoint.TableDescriptor table : tables) {
            out.putInt(table.id());
            out.putInt(table.rowBytes());
            out.putText(table.name());
            out.putText(table.schema());
        }
    }

    static void writeSectionStart(Output out, int tableId) {
        out.putInt(tableId);
    }

    /**
     * One chunk: {@code count} (at least 1) rows of {@code rowBytes} each at the start of {@code rows},
     * whose record ids are {@code recordIds[0, count)}.
     */
    static void writeChunk(Output out, byte[] rows, long[] recordIds, int count, int rowBytes) {
        if (count < 1) {
            throw new IllegalArgumentException("a chunk holds at least one row: count=" + count);
        }
        out.putInt(count);
        for (int r = 0; r < count; r++) {
            out.putLong(recordIds[r]);
            out.putBytes(rows, r * rowBytes, rowBytes);
        }
    }

    static void writeSectionEnd(Output out, long rows) {
        out.putInt(END_OF_SECTION);
        out.putLong(rows);
    }

    /** The trailer; the file is complete (and flushed to the channel) afterwards. */
    static void writeTrailer(Output out, long coveredThrough, long rows) {
        out.putLong(coveredThrough);
        out.putLong(rows);
        out.putLong(END_MAGIC);
        out.putInt(out.crc());
        out.flush();
    }

    // ------------------------------------------------------------------ reading

    /** Checks the magic, the length and the version, in that order: what is not a checkpoint is named as such first. */
    static void checkStart(Path file, FileChannel channel, long size) {
        ByteBuffer start = readAt(file, channel, 0, (int) Math.min(size, HEADER_LENGTH));
        if (size >= Long.BYTES && start.getLong(MAGIC_OFFSET) != MAGIC) {
            throw new CheckpointException(file, Damage.BAD_MAGIC, "magic=0x" + Long.toHexString(start.getLong(MAGIC_OFFSET))
                + " expected=0x" + Long.toHexString(MAGIC) + " (not a checkpoint file)");
        }
        if (size < MIN_LENGTH) {
            throw new CheckpointException(file, Damage.TRUNCATED, "length=" + size + " minimum=" + MIN_LENGTH);
        }
        int version = start.getInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw new CheckpointException(file, Damage.UNKNOWN_VERSION, "version=" + version + " supported=" + VERSION);
        }
    }

    /** The trailer at the end of a file of {@code size} bytes (at least {@link #MIN_LENGTH}); not yet checked against the CRC. */
    static Trailer readTrailer(Path file, FileChannel channel, long size) {
        ByteBuffer trailer = readAt(file, channel, size - TRAILER_LENGTH, TRAILER_LENGTH);
        long magic = trailer.getLong(TRAILER_MAGIC_OFFSET);
        if (magic != END_MAGIC) {
            throw new CheckpointException(file, Damage.TRUNCATED, "length=" + size + " endMagic=0x" + Long.toHexString(magic)
                + " expected=0x" + Long.toHexString(END_MAGIC) + " (no trailer: cut short or never finished)");
        }
        return new Trailer(trailer.getLong(TRAILER_COVERED_OFFSET), trailer.getLong(TRAILER_ROWS_OFFSET),
            trailer.getInt(TRAILER_CRC_OFFSET));
    }

    /** The header from the start of the file ({@link #checkStart} passed). */
    static Header readHeader(Input in) {
        long magic = in.getLong("magic");
        int version = in.getInt("version");
        if (magic != MAGIC || version != VERSION) {
            throw new CheckpointException(in.file(), Damage.CHANGED, "magic=0x" + Long.toHexString(magic) + " version=" + version
                + " (checked before this pass)");
        }
        int reserved = in.getInt("reserved");
        long replayFrom = in.getLong("replayFrom");
        int propertyCount = in.getInt("property count");
        int tableCount = in.getInt("table count");
        if (reserved != 0 || replayFrom < 0 || propertyCount < 0 || tableCount < 0) {
            throw new CheckpointException(in.file(), Damage.BAD_STRUCTURE, "reserved=" + reserved + " replayFrom=" + replayFrom
                + " propertyCount=" + propertyCount + " tableCount=" + tableCount);
        }
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < propertyCount; i++) {
            String key = in.getText("property key");
            String value = in.getText("property value");
            if (properties.put(key, value) != null) {
                throw new CheckpointException(in.file(), Damage.BAD_STRUCTURE, "property twice: key=" + key);
            }
        }
        List<Checkpoint.TableDescriptor> tables = new ArrayList<>();
        for (int i = 1; i <= tableCount; i++) {
            int id = in.getInt("table id");
            int rowBytes = in.getInt("row bytes");
            String name = in.getText("table name");
            String schema = in.getText("table schema");
            if (id != i || rowBytes < 1) {
                throw new CheckpointException(in.file(), Damage.BAD_STRUCTURE, "descriptor=" + i + " tableId=" + id
                    + " rowBytes=" + rowBytes + " table=" + name);
            }
            tables.add(new Checkpoint.TableDescriptor(id, name, rowBytes, schema));
        }
        return new Header(replayFrom, Collections.unmodifiableMap(properties), List.copyOf(tables));
    }

    /**
     * Reads every table section after the header, handing each row to {@code consumer} (null: only
     * read them), and checks that the sections end where the trailer starts.
     *
     * @return the rows read
     */
    static long readSections(Input in, List<Checkpoint.TableDescriptor> tables, Checkpoint.RowConsumer consumer) {
        long total = 0;
        for (Checkpoint.TableDescriptor table : tables) {
            int id = in.getInt("section table id");
            if (id != table.id()) {
                throw new CheckpointException(in.file(), Damage.BAD_STRUCTURE, "sectionTableId=" + id + " expected="
                    + table.id() + " position=" + (in.position() - Integer.BYTES));
            }
            int rowBytes = table.rowBytes();
            long rows = 0;
            while (true) {
                int count = in.getInt("chunk row count");
                if (count == END_OF_SECTION) {
                    break;
                }
                if (count < 0) {
                    throw new CheckpointException(in.file(), Damage.BAD_STRUCTURE, "chunkRowCount=" + count + " table="
                        + table.name() + " position=" + (in.position() - Integer.BYTES));
                }
                if (consumer == null) {
                    in.skip((long) count * (ROW_RECORD_ID_BYTES + rowBytes), "chunk rows");
                } else {
                    for (int r = 0; r < count; r++) {
                        long recordId = in.getLong("row record id");
                        int offset = in.take(rowBytes, "row");
                        consumer.row(id, recordId, in.array(), offset);
                    }
                }
                rows += count;
            }
            long counted = in.getLong("section row count");
            if (counted != rows) {
                throw new CheckpointException(in.file(), Damage.BAD_COUNTS, "table=" + table.name() + " sectionRowCount="
                    + counted + " rowsInChunks=" + rows);
            }
            total += rows;
        }
        if (in.position() != in.bodyEnd()) {
            throw new CheckpointException(in.file(), Damage.BAD_STRUCTURE, "sectionsEndAt=" + in.position() + " trailerAt="
                + in.bodyEnd());
        }
        return total;
    }

    private static ByteBuffer readAt(Path file, FileChannel channel, long position, int length) {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, position + buffer.position()) < 0) {
                    throw new CheckpointException(file, Damage.TRUNCATED, "endOfFileAt=" + (position + buffer.position())
                        + " (shorter than when opened)");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the checkpoint: file=" + file + " position=" + position, e);
        }
        return buffer.flip();
    }

    private static long ascii(String eight) {
        byte[] bytes = eight.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    // ------------------------------------------------------------------ streams

    /**
     * Writes a checkpoint front to back through a buffer, keeping the CRC32C of every byte written.
     * One thread. I/O failures are {@link UncheckedIOException}s naming the file.
     */
    static final class Output {
        private final Path file;
        private final FileChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        private final CRC32C crc = new CRC32C();
        /** Bytes handed to the channel so far. */
        private long flushed;

        Output(Path file, FileChannel channel) {
            this.file = file;
            this.channel = channel;
        }

        void putInt(int value) {
            room(Integer.BYTES);
            buffer.putInt(value);
        }

        void putLong(long value) {
            room(Long.BYTES);
            buffer.putLong(value);
        }

        /** A length (int) and the UTF-8 bytes. */
        void putText(String text) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            if (bytes.length > MAX_TEXT_BYTES) {
                throw new IllegalArgumentException("text too long for a checkpoint: bytes=" + bytes.length + " max="
                    + MAX_TEXT_BYTES + " text=" + text.substring(0, 40) + "...");
            }
            putInt(bytes.length);
            putBytes(bytes, 0, bytes.length);
        }

        void putBytes(byte[] bytes, int offset, int length) {
            if (length > buffer.remaining()) {
                flush();
                if (length >= buffer.capacity()) {
                    crc.update(bytes, offset, length);
                    write(ByteBuffer.wrap(bytes, offset, length));
                    return;
                }
            }
            buffer.put(bytes, offset, length);
        }

        /** Bytes written so far. */
        long length() {
            return flushed + buffer.position();
        }

        /** The CRC32C of every byte written so far. */
        int crc() {
            flush();
            return (int) crc.getValue();
        }

        /** Hands the buffered bytes to the channel (not forced). */
        void flush() {
            buffer.flip();
            crc.update(buffer.array(), buffer.arrayOffset(), buffer.limit());
            write(buffer);
            buffer.clear();
        }

        private void room(int bytes) {
            if (buffer.remaining() < bytes) {
                flush();
            }
        }

        private void write(ByteBuffer bytes) {
            try {
                while (bytes.hasRemaining()) {
                    flushed += channel.write(bytes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the checkpoint: file=" + file + " position=" + flushed, e);
            }
        }
    }

    /**
     * Reads a checkpoint front to back through a buffer: the fields before the trailer, with the CRC32C
     * of every byte fetched from the file up to the trailer's CRC field. A read that would run into the
     * trailer is {@link Damage#BAD_STRUCTURE}. One thread; positional reads, so several passes over one
     * channel do not disturb each other. I/O failures are {@link UncheckedIOException}s naming the file.
     */
    static final class Input {
        private final Path file;
        private final FileChannel channel;
        /** Where the trailer starts: no field before it extends past this. */
        private final long bodyEnd;
        /** Where the CRC field starts: bytes before it are fetched and summed. */
        private final long crcEnd;
        private final CRC32C crc = new CRC32C();
        /** In read mode: [position, limit) are fetched bytes not yet consumed. */
        private ByteBuffer buffer = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN).limit(0);
        /** Bytes fetched from the file (and summed) so far. */
        private long fetched;

        Input(Path file, FileChannel channel, long size) {
            this.file = file;
            this.channel = channel;
            this.bodyEnd = size - TRAILER_LENGTH;
            this.crcEnd = size - TRAILER_LENGTH + TRAILER_CRC_OFFSET;
        }

        Path file() {
            return file;
        }

        /** The file offset of the next byte to consume. */
        long position() {
            return fetched - buffer.remaining();
        }

        long bodyEnd() {
            return bodyEnd;
        }

        int getInt(String what) {
            need(Integer.BYTES, what);
            return buffer.getInt();
        }

        long getLong(String what) {
            need(Long.BYTES, what);
            return buffer.getLong();
        }

        String getText(String what) {
            int length = getInt(what + " length");
            if (length < 0 || length > MAX_TEXT_BYTES) {
                throw new CheckpointException(file, Damage.BAD_STRUCTURE, "field=" + what + " length=" + length
                    + " position=" + (position() - Integer.BYTES));
            }
            int offset = take(length, what);
            return new String(buffer.array(), offset, length, StandardCharsets.UTF_8);
        }

        /**
         * Consumes {@code length} bytes and returns where they start in {@link #array()}, valid until
         * the next call.
         */
        int take(int length, String what) {
            need(length, what);
            int offset = buffer.arrayOffset() + buffer.position();
            buffer.position(buffer.position() + length);
            return offset;
        }

        /** The array {@link #take} answers offsets into. */
        byte[] array() {
            return buffer.array();
        }

        /** Consumes {@code length} bytes without looking at them (they are summed all the same). */
        void skip(long length, String what) {
            if (length > bodyEnd - position()) {
                throw pastBody(length, what);
            }
            while (length > 0) {
                int step = (int) Math.min(length, buffer.capacity());
                need(step, what);
                buffer.position(buffer.position() + step);
                length -= step;
            }
        }

        /** Fetches whatever is left before the CRC field and returns the CRC32C of all of it. */
        int finishCrc() {
            buffer.position(buffer.limit());
            while (fetched < crcEnd) {
                buffer.clear();
                fetch();
                buffer.flip();
                buffer.position(buffer.limit());
            }
            return (int) crc.getValue();
        }

        /** Makes {@code length} bytes, all before the trailer, readable at the buffer's position. */
        private void need(long length, String what) {
            if (length > bodyEnd - position()) {
                throw pastBody(length, what);
            }
            if (buffer.remaining() >= length) {
                return;
            }
            int wanted = (int) length;
            if (buffer.capacity() < wanted) {
                ByteBuffer larger = ByteBuffer.allocate(Math.max(wanted, 2 * buffer.capacity())).order(ByteOrder.LITTLE_ENDIAN);
                larger.put(buffer);
                buffer = larger;
            } else {
                buffer.compact();
            }
            while (buffer.position() < wanted) {
                fetch();
            }
            buffer.flip();
        }

        /** Reads into the buffer (in write mode) from {@link #fetched}, at most up to the CRC field, and sums what came. */
        private void fetch() {
            int start = buffer.position();
            buffer.limit((int) Math.min(buffer.capacity(), start + (crcEnd - fetched)));
            int read;
            try {
                read = channel.read(buffer, fetched);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the checkpoint: file=" + file + " position=" + fetched, e);
            }
            if (read < 0) {
                throw new CheckpointException(file, Damage.TRUNCATED, "endOfFileAt=" + fetched + " expectedLength="
                    + (crcEnd + Integer.BYTES) + " (shorter than when opened)");
            }
            crc.update(buffer.array(), buffer.arrayOffset() + start, read);
            fetched += read;
        }

        private CheckpointException pastBody(long length, String what) {
            return new CheckpointException(file, Damage.BAD_STRUCTURE, "field=" + what + " length=" + length + " position="
                + position() + " trailerAt=" + bodyEnd + " (runs into the trailer)");
        }
    }
}
