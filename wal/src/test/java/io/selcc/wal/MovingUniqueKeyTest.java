package io.selcc.wal;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Index;
import io.selcc.engine.IndexDefinition;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import io.selcc.wal.Wal.Mode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * A fuzzy checkpoint of a table whose unique secondary key moves between rows during the scan holds
 * the key twice; recovery must still rebuild the database. The move is put between the scan's first
 * and second chunk (the checkpoint's {@code afterChunk} hook), so it happens every run: row 1 gave
 * code 10 up and row {@code ROWS} (in the second chunk) took it, so the file holds row 1 from before
 * the move and row {@code ROWS} from after it, both with code 10. The test checks that the file really
 * does, then that recovery gives each row its last committed code and the unique index exactly one
 * entry per row.
 *
 * <p>Shown to fail with the secondary indexes built while the checkpoint loads (Recovery without
 * {@code deferSecondaryIndexes}, as before): recovery threw "bulk load: key already present:
 * index=account.by_code key=10".
 */
class MovingUniqueKeyTest {
    private static final int ID = 0;
    private static final int CODE = 1;
    private static final Schema ACCOUNT = Schema.builder().addLong("id").addLong("code").build();
    private static final TableDefinition ACCOUNTS = TableDefinition.of("account", ACCOUNT, row -> row.getLong(ID));
    private static final IndexDefinition BY_CODE = new IndexDefinition("account.by_code", "account", true,
        row -> row.getLong(CODE));
    /** Row ROWS is past the scan's first chunk. */
    private static final int ROWS = Checkpoint.CHUNK_ROWS + 1;
    private static final long MOVED = 10;
    private static final long FREED = -1;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"2pl", "occ", "to"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = SEPARATE_THREAD)
    void recoveryBuildsTheUniqueIndexAfterTheReplay(String cc, @TempDir Path dir) {
        Path data = dir.resolve("data");
        Wal wal = Wal.open(Recovery.logDirectory(data), Mode.SYNC);
        Checkpoint.Summary fuzzy;
        try (Database a = Database.builder().cc(cc).computeNodes(1).table(ACCOUNTS).index(BY_CODE).commitLog(wal).build()) {
            DatabaseNode node = a.node(0);
            Table account = node.table("account");
            for (int from = 1; from <= ROWS; from += 500) {
                int first = from;
                CheckpointFixtures.commit(node, tx -> {
                    for (long id = first; id < first + 500 && id <= ROWS; id++) {
                        long key = id;
                        assertTrue(tx.insert(account, row -> {
                            row.setLong(ID, key);
                            row.setLong(CODE, key * MOVED);
                        }));
                    }
                });
            }
            Checkpoint.write(a, data, wal, Map.of());
            int[] chunks = {0};
            fuzzy = Checkpoint.write(a, data, wal, Map.of(), () -> {
                if (++chunks[0] == 1) { // after the first chunk: row 1 is in the file, row ROWS is not yet
                    CheckpointFixtures.commit(node, tx -> {
                        assertTrue(tx.update(account, 1, row -> row.setLong(CODE, FREED)));
                        assertTrue(tx.update(account, ROWS, row -> row.setLong(CODE, MOVED)));
                    });
                }
            });
            assertEquals(2, chunks[0], "the scan took two chunks");
        }
        assertEquals(List.of(1L, (long) ROWS), rowsWithCode(fuzzy.path(), MOVED),
            "the checkpoint holds the moved code on both rows");

        try (Database b = Database.builder().cc(cc).computeNodes(1).table(ACCOUNTS).index(BY_CODE).build()) {
            Recovery.Summary summary = Recovery.recover(b, data);
            System.out.println("MovingUniqueKeyTest " + cc + ": " + summary.describe());
            assertEquals(1, summary.replayed(), "the move is replayed");
            assertEquals(ROWS, summary.indexEntries());
            DatabaseNode node = b.node(0);
            assertEquals(List.of((long) ROWS), idsWithCode(node, MOVED));
            assertEquals(List.of(1L), idsWithCode(node, FREED));
            assertEquals(List.of(), idsWithCode(node, ROWS * MOVED), "the code row ROWS gave up");
            Index byCode = node.index(BY_CODE.name());
            assertEquals(ROWS, byCode.forEachEntry((key, rid) -> true), "one entry per row");
        }
        try (Database c = Database.builder().cc(cc).computeNodes(1).table(ACCOUNTS).index(BY_CODE).build()) {
            Recovery.recover(c, data); // from recovery's own compacting checkpoint
            assertEquals(List.of((long) ROWS), idsWithCode(c.node(0), MOVED));
        }
    }

    /** The ids of the rows in checkpoint {@code file} with {@code code}. */
    private static List<Long> rowsWithCode(Path file, long code) {
        TupleBuffer row = new TupleBuffer(ACCOUNT);
        List<Long> ids = new ArrayList<>();
        try (Checkpoint.Reader reader = Checkpoint.open(file)) {
            reader.forEachRow((tableId, recordId, buffer, offset) -> {
                row.copyRowFrom(buffer, offset);
                if (row.view().getLong(CODE) == code) {
                    ids.add(row.view().getLong(ID));
                }
            });
        }
        return ids.stream().sorted().toList();
    }

    /** The ids a scan of the unique index finds under {@code code}. */
    private static List<Long> idsWithCode(DatabaseNode node, long code) {
        TxnResult<List<Long>> result = node.run(tx -> {
            List<Long> ids = new ArrayList<>();
            tx.scan(node.index(BY_CODE.name()), code, code, Integer.MAX_VALUE, row -> ids.add(row.getLong(ID)));
            return ids;
        });
        assertTrue(result.committed(), "scan did not commit: " + result);
        return result.value();
    }
}
