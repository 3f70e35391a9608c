package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.wal.CheckpointException.Damage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A checkpoint file that is not what the writer published is refused by {@link Checkpoint#open}
 * before any row is handed out, with a {@link CheckpointException} naming the file and the check that
 * failed: any single byte changed, the file cut anywhere or grown, not a checkpoint at all, a newer
 * format, a writer's bug behind a good CRC, a file changed between the reader's passes.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CheckpointDamageTest {
    private static final long SEED = Long.getLong("selcc.checkpoint.seed", System.nanoTime());
    /** Random positions flipped, besides the fixed ones. */
    private static final int RANDOM_FLIPS = 60;
    /** A row of the crafted files: one LONG column. */
    private static final List<Checkpoint.TableDescriptor> ONE_TABLE = List.of(new Checkpoint.TableDescriptor(1, "t", 8, "id LONG"));

    /**
     * Every field of the header, the trailer and the CRC, the first and last row bytes, and 60 random
     * positions (seeded, printed): each flipped alone (XOR with a random non-zero byte) makes open fail
     * with the damage the position calls for: the magic BAD_MAGIC, the version UNKNOWN_VERSION, the
     * trailer's end magic TRUNCATED, anything else BAD_CRC.
     *
     * <p>Shown to fail: with the reader not comparing the CRC, the flip of replayFrom's low byte was
     * reported as BAD_STRUCTURE (only because replayFrom then exceeded coveredThrough); with a
     * structural failure reported before the CRC is looked at, the flipped reserved field was
     * BAD_STRUCTURE; with the version not checked first, the flipped version was BAD_CRC; with the
     * trailer's end magic not checked, the flipped end magic was BAD_CRC.
     */
    @Test
    void everyFlippedByteIsCaught(@TempDir Path dir) throws IOException {
        System.out.println("CheckpointDamageTest seed=" + SEED + " (-Dselcc.checkpoint.seed to replay)");
        Path good = checkpoint(dir);
        byte[] bytes = Files.readAllBytes(good);
        int size = bytes.length;
        TreeSet<Integer> positions = new TreeSet<>(List.of(0, 7, 8, 11, 12, 16, 24, 28, 32, 36, 40,
            size - 1, size - 4, size - 5, size - 12, size - 13, size - 20, size - 28, size - 29, size - 33));
        SplittableRandom random = new SplittableRandom(SEED);
        while (positions.size() < 20 + RANDOM_FLIPS) {
            positions.add(random.nextInt(size));
        }
        Map<Damage, Integer> seen = new EnumMap<>(Damage.class);
        for (int position : positions) {
            byte[] damaged = bytes.clone();
            damaged[position] ^= (byte) random.nextInt(1, 256);
            Path file = dir.resolve("flipped-at-" + position + ".ckpt");
            Files.write(file, damaged);
            Damage expected = position < 8 ? Damage.BAD_MAGIC
                : position < 12 ? Damage.UNKNOWN_VERSION
                : position >= size - 12 && position < size - 4 ? Damage.TRUNCATED
                : Damage.BAD_CRC;
            assertDamaged(file, expected, "flipped at " + position + " of " + size + " (seed=" + SEED + ")");
            seen.merge(expected, 1, Integer::sum);
        }
        System.out.println("CheckpointDamageTest flips: size=" + size + " " + seen);
        try (Checkpoint.Reader reader = Checkpoint.open(good)) {
            assertTrue(reader.rows() > Checkpoint.CHUNK_ROWS, "the undamaged file opens, several chunks");
        }
    }

    /**
     * Cut to any length (nothing, inside the magic, inside the fixed header, the shortest possible
     * checkpoint, inside the rows, just before the trailer, one byte short), or one byte longer:
     * TRUNCATED, except an empty or 7-byte file whose magic cannot even be read (TRUNCATED as well).
     *
     * <p>Shown to fail: with the trailer's end magic not checked, the file cut to 60 bytes was reported
     * as BAD_CRC (still refused, under the wrong name).
     */
    @Test
    void aCutOrGrownFileIsCaught(@TempDir Path dir) throws IOException {
        Path good = checkpoint(dir);
        byte[] bytes = Files.readAllBytes(good);
        int size = bytes.length;
        for (int length : new int[] {0, 1, 7, 8, 31, 32, CheckpointLayout.MIN_LENGTH - 1, CheckpointLayout.MIN_LENGTH,
            size / 2, size - CheckpointLayout.TRAILER_LENGTH, size - 1}) {
            Path file = dir.resolve("cut-to-" + length + ".ckpt");
            Files.write(file, Arrays.copyOf(bytes, length));
            assertDamaged(file, Damage.TRUNCATED, "cut to " + length + " of " + size);
        }
        Path grown = dir.resolve("grown.ckpt");
        Files.write(grown, Arrays.copyOf(bytes, size + 1));
        assertDamaged(grown, Damage.TRUNCATED, "one byte longer");
    }

    /**
     * A file that is not a checkpoint is named so (BAD_MAGIC) whatever its length beyond eight bytes;
     * a newer format or an older one (version 1, before rows carried record ids; the CRC made to match)
     * is UNKNOWN_VERSION; a missing file is an UncheckedIOException naming it.
     *
     * <p>Shown to fail: with the version not checked before the pass, version 2 with a matching CRC
     * was reported as CHANGED (the parser's own consistency check) instead of UNKNOWN_VERSION.
     */
    @Test
    void notACheckpointOrANewerOne(@TempDir Path dir) throws IOException {
        Path text = dir.resolve("text.ckpt");
        Files.writeString(text, "hello, this is not a checkpoint file; it only has the right name and a few more bytes");
        assertDamaged(text, Damage.BAD_MAGIC, "text");
        Path eight = dir.resolve("eight.ckpt");
        Files.writeString(eight, "SELCCKPx");
        assertDamaged(eight, Damage.BAD_MAGIC, "eight bytes");

        byte[] bytes = Files.readAllBytes(checkpoint(dir));
        for (int version : new int[] {CheckpointLayout.VERSION + 1, 1}) {
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(CheckpointLayout.VERSION_OFFSET, version);
            fixCrc(bytes);
            Path other = dir.resolve("version-" + version + ".ckpt");
            Files.write(other, bytes);
            assertDamaged(other, Damage.UNKNOWN_VERSION, "version " + version);
        }

        Path missing = dir.resolve("missing.ckpt");
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> Checkpoint.open(missing));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    }

    /**
     * Files a buggy writer could produce, each with a matching CRC (so only the structure checks can
     * catch them): a section count that disagrees with its chunks, a trailer count that disagrees with
     * the sections (BAD_COUNTS); a chunk longer than the file, a section of the wrong table, a property
     * twice, bytes between the last section and the trailer, a negative chunk count, coveredThrough
     * below replayFrom (BAD_STRUCTURE). The same writer with the right numbers gives a good file.
     *
     * <p>Shown to fail: with the section count not compared with its chunks, the section-count file
     * opened; with the trailer's count not compared with the sections, the trailer-count file opened;
     * with the check that the sections end at the trailer removed, the padded file opened.
     */
    @Test
    void aWritersBugBehindAGoodCrcIsCaught(@TempDir Path dir) {
        Path good = craft(dir, "good", Map.of(), out -> {
            section(out, 1, 2, 2);
        }, 5, 2);
        try (Checkpoint.Reader reader = Checkpoint.open(good)) {
            List<Long> ids = new ArrayList<>();
            assertEquals(2, reader.forEachRow((tableId, recordId, buffer, offset) ->
                ids.add(ByteBuffer.wrap(buffer, offset, 8).order(ByteOrder.LITTLE_ENDIAN).getLong())));
            assertEquals(List.of(1L, 2L), ids);
        }
        assertDamaged(craft(dir, "section-count", Map.of(), out -> section(out, 1, 2, 3), 5, 2), Damage.BAD_COUNTS,
            "section count 3 for 2 rows (the trailer right)");
        assertDamaged(craft(dir, "trailer-count", Map.of(), out -> section(out, 1, 2, 2), 5, 3), Damage.BAD_COUNTS,
            "trailer count 3 for 2 rows (the section right)");
        assertDamaged(craft(dir, "long-chunk", Map.of(), out -> {
            out.putInt(1);
            out.putInt(1_000);
            out.putLong(1);
        }, 5, 1_000), Damage.BAD_STRUCTURE, "a chunk past the end");
        assertDamaged(craft(dir, "wrong-table", Map.of(), out -> section(out, 2, 1, 1), 5, 1), Damage.BAD_STRUCTURE,
            "section of table 2 first");
        Map<String, String> twice = new LinkedHashMap<>();
        twice.put("a", "1");
        twice.put("b", "2");
        assertDamaged(craft(dir, "property-twice", twice, out -> section(out, 1, 1, 1), 5, 1, true), Damage.BAD_STRUCTURE,
            "property twice");
        assertDamaged(craft(dir, "padded", Map.of(), out -> {
            section(out, 1, 1, 1);
            out.putInt(0);
        }, 5, 1), Damage.BAD_STRUCTURE, "bytes before the trailer");
        assertDamaged(craft(dir, "negative-chunk", Map.of(), out -> {
            out.putInt(1);
            out.putInt(-1);
        }, 5, 0), Damage.BAD_STRUCTURE, "negative chunk count");
        assertDamaged(craft(dir, "covered-below", Map.of(), out -> section(out, 1, 1, 1), 3, 1), Damage.BAD_STRUCTURE,
            "coveredThrough 3 below replayFrom 4");
    }

    /**
     * The file is checked when opened; if its bytes change afterwards (here one row byte rewritten in
     * place), the second pass, forEachRow, fails with CHANGED once it has read the file.
     *
     * <p>Shown to fail: with forEachRow not comparing its CRC, the change went unnoticed.
     */
    @Test
    void aFileChangedAfterOpenIsCaught(@TempDir Path dir) throws IOException {
        Path file = checkpoint(dir);
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            long size = Files.size(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {0x55, 0x55, 0x55, 0x55}), size / 2);
            }
            CheckpointException e = assertThrows(CheckpointException.class, () -> reader.forEachRow((t, r, b, o) -> { }));
            assertEquals(Damage.CHANGED, e.damage(), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        }
    }

    /** Open fails with {@code expected}, the message naming the file and the damage. */
    private static void assertDamaged(Path file, Damage expected, String what) {
        CheckpointException e;
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            fail(what + ": opened without complaint, rows=" + reader.rows());
            return;
        } catch (CheckpointException thrown) {
            e = thrown;
        }
        assertEquals(expected, e.damage(), what + ": " + e.getMessage());
        assertEquals(file, e.file());
        assertTrue(e.getMessage().contains("file=" + file) && e.getMessage().contains("damage=" + expected),
            what + ": " + e.getMessage());
    }

    /** A checkpoint of 2,500 customers less the deleted (two scan chunks) and 50 items, with properties. */
    private static Path checkpoint(Path dir) {
        Path data = dir.resolve("data");
        try (Database db = CheckpointFixtures.open()) {
            CheckpointFixtures.fill(db.node(0), new SplittableRandom(SEED), 2_500, 50);
            return Checkpoint.write(db, data, null, Map.of("warehouses", "1", "cc", "2pl")).path();
        }
    }

    /** A file from {@link CheckpointLayout}'s writer: replayFrom 4, one table of 8-byte rows, {@code body} as the sections. */
    private static Path craft(Path dir, String name, Map<String, String> properties, Consumer<CheckpointLayout.Output> body,
                              long coveredThrough, long rows) {
        return craft(dir, name, properties, body, coveredThrough, rows, false);
    }

    /** {@code repeatFirstProperty}: the first property is written twice (the header says one more). */
    private static Path craft(Path dir, String name, Map<String, String> properties, Consumer<CheckpointLayout.Output> body,
                              long coveredThrough, long rows, boolean repeatFirstProperty) {
        Path file = dir.resolve(name + ".ckpt");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            CheckpointLayout.Output out = new CheckpointLayout.Output(file, channel);
            if (repeatFirstProperty) {
                Map.Entry<String, String> first = properties.entrySet().iterator().next();
                out.putLong(CheckpointLayout.MAGIC);
                out.putInt(CheckpointLayout.VERSION);
                out.putInt(0);
                out.putLong(4);
                out.putInt(properties.size() + 1);
                out.putInt(ONE_TABLE.size());
                out.putText(first.getKey());
                out.putText(first.getValue());
                for (Map.Entry<String, String> p : properties.entrySet()) {
                    out.putText(p.getKey());
                    out.putText(p.getValue());
                }
                Checkpoint.TableDescriptor t = ONE_TABLE.getFirst();
                out.putInt(t.id());
                out.putInt(t.rowBytes());
                out.putText(t.name());
                out.putText(t.schema());
            } else {
                CheckpointLayout.writeHeader(out, 4, properties, ONE_TABLE);
            }
            body.accept(out);
            CheckpointLayout.writeTrailer(out, coveredThrough, rows);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Table {@code tableId}'s section: one chunk of {@code rows} rows (ids 1..rows), then {@code counted} as its count. */
    private static void section(CheckpointLayout.Output out, int tableId, int rows, long counted) {
        CheckpointLayout.writeSectionStart(out, tableId);
        byte[] images = new byte[rows * 8];
        ByteBuffer view = ByteBuffer.wrap(images).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < rows; i++) {
            view.putLong(i + 1);
        }
        long[] recordIds = new long[rows];
        java.util.Arrays.setAll(recordIds, i -> 0x1000L + i);
        CheckpointLayout.writeChunk(out, images, recordIds, rows, 8);
        CheckpointLayout.writeSectionEnd(out, counted);
    }

    /** Recomputes the CRC field of a whole checkpoint in {@code bytes}. */
    private static void fixCrc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        int at = bytes.length - CheckpointLayout.TRAILER_LENGTH + CheckpointLayout.TRAILER_CRC_OFFSET;
        crc.update(bytes, 0, at);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, (int) crc.getValue());
    }
}
