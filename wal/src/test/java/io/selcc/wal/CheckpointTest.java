package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.TableDefinition;
import io.selcc.storage.ColumnType;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.selcc.wal.CheckpointFixtures.CUSTOMER;
import static io.selcc.wal.CheckpointFixtures.CUSTOMERS;
import static io.selcc.wal.CheckpointFixtures.ITEM;
import static io.selcc.wal.CheckpointFixtures.ITEMS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Checkpoint}: rows, properties and table descriptors survive a write and a load into a fresh
 * database; a database of another schema is refused; the data directory keeps the newest published
 * checkpoint only, and an unfinished one never counts. Damage is {@link CheckpointDamageTest}'s, a
 * checkpoint under load {@link CheckpointConcurrencyTest}'s.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CheckpointTest {
    private static final long SEED = Long.getLong("selcc.checkpoint.seed", System.nanoTime());

    /**
     * Two tables (every column type, NULLs, strings of every length, item keys over the whole long
     * range including both extremes, more rows than one scan chunk, deleted and updated rows), written
     * and loaded into a fresh database by bulk load: every row equal by primary key, column by column
     * and byte by byte; the secondary index of the fresh database finds the same rows.
     *
     * <p>Shown to fail: with the scan continuing from the last key of a chunk instead of after it, the
     * file held 5,074 rows for 5,072 (each later chunk's first row twice); with forEachRow handing out
     * {@code offset + 1}, the bulk load found key 0 twice (every row read one byte off).
     */
    @Test
    void rowsSurviveAWriteAndALoad(@TempDir Path dir) {
        System.out.println("CheckpointTest seed=" + SEED + " (-Dselcc.checkpoint.seed to replay)");
        Map<Long, String> customers;
        Map<Long, String> items;
        Checkpoint.Summary summary;
        List<Long> district3;
        try (Database db = CheckpointFixtures.open()) {
            DatabaseNode node = db.node(0);
            CheckpointFixtures.fill(node, new SplittableRandom(SEED), 3_000, 2_500);
            customers = CheckpointFixtures.rows(node, node.table("customer"));
            items = CheckpointFixtures.rows(node, node.table("item"));
            district3 = CheckpointFixtures.customersInDistrict(node, 3);
            summary = Checkpoint.write(db, dir, null, Map.of());
        }
        System.out.println("CheckpointTest round trip: " + summary);
        assertTrue(customers.size() > Checkpoint.CHUNK_ROWS && items.size() > Checkpoint.CHUNK_ROWS,
            "each table spans several scan chunks");
        assertTrue(items.containsKey(Long.MIN_VALUE) && items.containsKey(Long.MAX_VALUE));
        assertTrue(customers.values().stream().anyMatch(r -> r.contains("name=NULL")), "some NULLs");
        assertEquals(customers.size() + items.size(), summary.rows());
        assertEquals(dir.resolve("checkpoint-00000000000000000000.ckpt"), summary.path());
        assertEquals(summary.bytes(), size(summary.path()));
        assertEquals(0, summary.replayFrom());
        assertEquals(0, summary.coveredThrough(), "no log, no sequence numbers");

        try (Database fresh = CheckpointFixtures.open(); Checkpoint.Reader reader = Checkpoint.open(summary.path())) {
            assertEquals(summary.rows(), reader.rows());
            assertEquals(summary.rows(), CheckpointFixtures.load(reader, fresh));
            DatabaseNode node = fresh.node(0);
            CheckpointFixtures.assertSameRows(customers, CheckpointFixtures.rows(node, node.table("customer")), "customers");
            CheckpointFixtures.assertSameRows(items, CheckpointFixtures.rows(node, node.table("item")), "items");
            assertEquals(district3, CheckpointFixtures.customersInDistrict(node, 3));
            assertFalse(district3.isEmpty());
            assertEquals(summary.rows(), reader.forEachRow((tableId, recordId, buffer, offset) -> { }), "a second pass");
        }
    }

    /**
     * Each row carries the record id where it lives in the writing database's memory (what a crashed
     * compute node's repair restores heap pages from): the primary index of the database that wrote the
     * file finds every row's key at that record id.
     *
     * <p>Shown to fail: with the scan recording the record id of the chunk's first row for every row,
     * 5,068 of 5,072 rows named another record id.
     */
    @Test
    void rowsCarryTheirRecordIds(@TempDir Path dir) {
        try (Database db = CheckpointFixtures.open()) {
            DatabaseNode node = db.node(0);
            CheckpointFixtures.fill(node, new SplittableRandom(SEED), 3_000, 2_500);
            Checkpoint.Summary summary = Checkpoint.write(db, dir, null, Map.of());
            Map<String, Map<Long, Long>> indexed = new java.util.HashMap<>();
            for (io.selcc.engine.Table table : node.tables()) {
                Map<Long, Long> rids = new java.util.HashMap<>();
                table.primaryIndex().forEachEntry((key, rid) -> {
                    rids.put(key, rid);
                    return true;
                });
                indexed.put(table.name(), rids);
            }
            long[] checked = {0};
            List<String> wrong = new java.util.ArrayList<>();
            try (Checkpoint.Reader reader = Checkpoint.open(summary.path())) {
                reader.forEachRow((tableId, recordId, buffer, offset) -> {
                    io.selcc.engine.Table table = node.tables().get(tableId - 1);
                    io.selcc.storage.TupleBuffer row = new io.selcc.storage.TupleBuffer(table.schema());
                    row.view().setRowFrom(buffer, offset);
                    long key = table.primaryKey(row.view());
                    Long rid = indexed.get(table.name()).get(key);
                    if (rid == null || rid != recordId) {
                        wrong.add(table.name() + " key=" + key + " file=" + recordId + " index=" + rid);
                    }
                    checked[0]++;
                });
            }
            assertEquals(summary.rows(), checked[0]);
            assertTrue(checked[0] > 2 * Checkpoint.CHUNK_ROWS, "several chunks: " + checked[0]);
            assertEquals(List.of(), wrong.size() > 5 ? wrong.subList(0, 5) : wrong,
                wrong.size() + " of " + checked[0] + " rows name another record id");
        }
    }

    /**
     * Properties (empty values, non-ASCII text, sorted by key) and the table descriptors come back as
     * written; {@code replayFrom} and {@code coveredThrough} too.
     *
     * <p>Shown to fail: with the writer putting the table's name where its schema goes, the
     * descriptors differed; with each property written value first, the keys came back as values.
     */
    @Test
    void propertiesAndDescriptorsComeBack(@TempDir Path dir) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("warehouses", "2");
        properties.put("cc", "2pl");
        properties.put("empty", "");
        properties.put("schlüssel ✓", "wert\nmit zeilenumbruch");
        Path file;
        try (Database db = CheckpointFixtures.open()) {
            CheckpointFixtures.fill(db.node(0), new SplittableRandom(1), 20, 10);
            file = Checkpoint.write(db, dir, null, properties).path();
        }
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            assertEquals(properties, reader.properties());
            assertEquals(List.of("cc", "empty", "schlüssel ✓", "warehouses"), List.copyOf(reader.properties().keySet()));
            assertThrows(UnsupportedOperationException.class, () -> reader.properties().put("x", "y"));
            assertEquals(List.of(
                new Checkpoint.TableDescriptor(1, "customer", new TupleView(CUSTOMER).rowBytes(),
                    "id LONG, district INT, name VARCHAR(24) NULL, code CHAR(4), balance MONEY, since TIMESTAMP NULL,"
                        + " note VARCHAR(200) NULL"),
                new Checkpoint.TableDescriptor(2, "item", new TupleView(ITEM).rowBytes(),
                    "id LONG, price MONEY, data VARCHAR(50) NULL")), reader.tables());
            assertEquals(0, reader.replayFrom());
            assertEquals(0, reader.coveredThrough());
            assertEquals(file, reader.file());
        }
    }

    /**
     * {@code verify} accepts the database the checkpoint came from and refuses, naming the table and
     * the field: another row length, the same length with another column type, another table name at
     * an id, a missing table, an extra table.
     *
     * <p>Shown to fail: with verify skipping the schema text, the MONEY-to-LONG change was accepted.
     */
    @Test
    void verifyRefusesAnotherSchema(@TempDir Path dir) {
        Path file;
        try (Database db = CheckpointFixtures.open()) {
            file = Checkpoint.write(db, dir, null, Map.of()).path();
        }
        Schema longerItem = Schema.builder().addLong("id").addMoney("price").add("data", ColumnType.VARCHAR, 60, true).build();
        Schema retypedItem = Schema.builder().addLong("id").addLong("price").add("data", ColumnType.VARCHAR, 50, true).build();
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            try (Database same = CheckpointFixtures.open()) {
                reader.verify(same);
            }
            assertRefused(reader, List.of(CUSTOMERS, TableDefinition.of("item", longerItem, row -> row.getLong(0))),
                "table=item id=2 field=rowBytes");
            assertRefused(reader, List.of(CUSTOMERS, TableDefinition.of("item", retypedItem, row -> row.getLong(0))),
                "table=item id=2 field=schema");
            assertRefused(reader, List.of(ITEMS, CUSTOMERS), "table=item id=1 field=name checkpoint=customer database=item");
            assertRefused(reader, List.of(CUSTOMERS), "table=item id=2 field=table checkpoint=present database=absent");
            assertRefused(reader, List.of(CUSTOMERS, ITEMS, TableDefinition.of("extra", ITEM, row -> row.getLong(0))),
                "table=extra id=3 field=table checkpoint=absent database=present");
        }
    }

    private static void assertRefused(Checkpoint.Reader reader, List<TableDefinition> tables, String expected) {
        Database.Builder builder = Database.builder().cc("2pl").computeNodes(1);
        tables.forEach(builder::table);
        try (Database other = builder.build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reader.verify(other));
            assertTrue(e.getMessage().contains(expected), e.getMessage());
            assertTrue(e.getMessage().contains("file=" + reader.file()), e.getMessage());
        }
    }

    /**
     * {@code newest}: nothing in a missing or empty directory; a {@code .tmp} file (an interrupted
     * checkpoint, even with a higher number and a complete body) never counts, nor do other names;
     * among published ones the highest replay start wins. Writing a checkpoint then leaves only
     * itself: the older {@code .ckpt} files and every {@code .tmp} are gone, other files stay.
     *
     * <p>Shown to fail: with {@code newest} accepting {@code .tmp} names, the leftover won; with the
     * removal of the others skipped, the older checkpoints remained.
     */
    @Test
    void onlyTheNewestPublishedCheckpointCounts(@TempDir Path dir) throws IOException {
        assertEquals(Optional.empty(), Checkpoint.newest(dir.resolve("missing")));
        assertEquals(Optional.empty(), Checkpoint.newest(dir));
        Path first;
        try (Database db = CheckpointFixtures.open()) {
            CheckpointFixtures.fill(db.node(0), new SplittableRandom(2), 30, 30);
            first = Checkpoint.write(db, dir, null, Map.of("n", "1")).path();
        }
        assertEquals(Optional.of(first), Checkpoint.newest(dir));
        Path older = dir.resolve("checkpoint-00000000000000000000.ckpt");
        assertEquals(older, first);
        Path leftover = dir.resolve("checkpoint-00000000000000000009.tmp");
        Files.copy(first, leftover); // a complete body, but never renamed: it does not count
        Files.writeString(dir.resolve("checkpoint-7.ckpt"), "not twenty digits");
        Files.writeString(dir.resolve("notes.txt"), "kept");
        Files.createDirectory(dir.resolve("wal"));
        assertEquals(Optional.of(first), Checkpoint.newest(dir));

        Path published = dir.resolve("checkpoint-00000000000000000004.ckpt");
        Files.move(first, published);
        assertEquals(Optional.of(published), Checkpoint.newest(dir));
        Files.copy(published, dir.resolve("checkpoint-00000000000000000003.ckpt"));
        assertEquals(Optional.of(published), Checkpoint.newest(dir));

        // A database whose counter is past 4 writes the newest: it alone remains.
        try (Database db = CheckpointFixtures.open()) {
            db.raiseCommitSequence(6);
            Checkpoint.Summary second = Checkpoint.write(db, dir, null, Map.of("n", "2"));
            assertEquals(6, second.replayFrom());
            assertEquals(dir.resolve("checkpoint-00000000000000000006.ckpt"), second.path());
            assertEquals(Optional.of(second.path()), Checkpoint.newest(dir));
            assertEquals(List.of("checkpoint-00000000000000000006.ckpt", "checkpoint-7.ckpt", "notes.txt", "wal"), list(dir));
            try (Checkpoint.Reader reader = Checkpoint.open(second.path())) {
                assertEquals(Map.of("n", "2"), reader.properties());
            }
            // Again with the same replay start: replaced in place.
            Checkpoint.Summary third = Checkpoint.write(db, dir, null, Map.of("n", "3"));
            assertEquals(second.path(), third.path());
            assertEquals(List.of("checkpoint-00000000000000000006.ckpt", "checkpoint-7.ckpt", "notes.txt", "wal"), list(dir));
            try (Checkpoint.Reader reader = Checkpoint.open(third.path())) {
                assertEquals(Map.of("n", "3"), reader.properties());
            }
        }
    }

    /**
     * A database whose replay start is below the newest checkpoint's (another database, or a fresh one
     * loaded into a used directory) is refused before it scans, and the directory is left as it was.
     *
     * <p>Shown to fail: without the check, the fresh database's checkpoint 0 was published and the
     * newer 6 removed with the other old files.
     */
    @Test
    void aDirectoryWithANewerCheckpointIsRefused(@TempDir Path dir) throws IOException {
        try (Database db = CheckpointFixtures.open()) {
            db.raiseCommitSequence(6);
            Checkpoint.write(db, dir, null, Map.of());
        }
        try (Database fresh = CheckpointFixtures.open()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Checkpoint.write(fresh, dir, null, Map.of()));
            assertTrue(e.getMessage().contains("checkpoint-00000000000000000006.ckpt") && e.getMessage().contains("replayFrom=0"),
                e.getMessage());
        }
        assertEquals(List.of("checkpoint-00000000000000000006.ckpt"), list(dir));
    }

    /**
     * Rows longer than the reader's and writer's 1 MiB buffers (no table of the engine has them today,
     * the format allows them): three rows of 1.5 MiB, each of its own byte pattern, written through
     * {@link CheckpointLayout}'s writer, come back byte for byte.
     *
     * <p>Shown to fail: with the reader's buffer grown without copying the bytes fetched but not yet
     * read, the rows came back different.
     */
    @Test
    void rowsLongerThanTheBuffersComeBack(@TempDir Path dir) throws IOException {
        int rowBytes = 3 << 19;
        Path file = dir.resolve("long-rows.ckpt");
        byte[] rows = new byte[3 * rowBytes];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = (byte) (i * 31 + i / rowBytes);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            CheckpointLayout.Output out = new CheckpointLayout.Output(file, channel);
            CheckpointLayout.writeHeader(out, 1, Map.of("k", "v"), List.of(new Checkpoint.TableDescriptor(1, "wide", rowBytes, "w")));
            CheckpointLayout.writeSectionStart(out, 1);
            CheckpointLayout.writeChunk(out, rows, new long[] {7}, 1, rowBytes);
            CheckpointLayout.writeChunk(out, Arrays.copyOfRange(rows, rowBytes, rows.length), new long[] {8, 9}, 2, rowBytes);
            CheckpointLayout.writeSectionEnd(out, 3);
            CheckpointLayout.writeTrailer(out, 2, 3);
        }
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            ByteArrayOutputStream back = new ByteArrayOutputStream();
            List<Long> recordIds = new java.util.ArrayList<>();
            assertEquals(3, reader.forEachRow((tableId, recordId, buffer, offset) -> {
                recordIds.add(recordId);
                back.write(buffer, offset, rowBytes);
            }));
            assertTrue(Arrays.equals(rows, back.toByteArray()), "rows differ");
            assertEquals(List.of(7L, 8L, 9L), recordIds, "each row's record id, in order");
        }
    }

    static List<String> list(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
