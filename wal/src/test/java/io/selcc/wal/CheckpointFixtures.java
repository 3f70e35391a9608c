package io.selcc.wal;

import io.selcc.engine.BulkLoad;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.IndexDefinition;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.storage.Column;
import io.selcc.storage.ColumnType;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The checkpoint tests' database: a customer table (every column type, nullable strings and a
 * nullable timestamp, a secondary index by district) and an item table (keys across the whole long
 * range, {@code Long.MIN_VALUE} and {@code Long.MAX_VALUE} included); filling it, reading it back,
 * and loading a checkpoint into a fresh one as recovery does.
 */
final class CheckpointFixtures {
    static final int C_ID = 0;
    static final int C_DISTRICT = 1;
    static final int C_NAME = 2;
    static final int C_CODE = 3;
    static final int C_BALANCE = 4;
    static final int C_SINCE = 5;
    static final int C_NOTE = 6;
    static final Schema CUSTOMER = Schema.builder().addLong("id").addInt("district")
        .add("name", ColumnType.VARCHAR, 24, true).addChar("code", 4).addMoney("balance")
        .add("since", ColumnType.TIMESTAMP, 0, true).add("note", ColumnType.VARCHAR, 200, true).build();
    static final TableDefinition CUSTOMERS = TableDefinition.of("customer", CUSTOMER, row -> row.getLong(C_ID));
    static final IndexDefinition BY_DISTRICT = new IndexDefinition("customer.by_district", "customer", false,
        row -> row.getInt(C_DISTRICT));

    static final int I_ID = 0;
    static final int I_PRICE = 1;
    static final int I_DATA = 2;
    static final Schema ITEM = Schema.builder().addLong("id").addMoney("price").add("data", ColumnType.VARCHAR, 50, true)
        .build();
    static final TableDefinition ITEMS = TableDefinition.of("item", ITEM, row -> row.getLong(I_ID));

    /** Rows per loading transaction. */
    private static final int BATCH = 500;

    private CheckpointFixtures() {
    }

    /** The two tables and the index, 2PL, one compute node, no log. */
    static Database open() {
        return Database.builder().cc("2pl").computeNodes(1).table(CUSTOMERS).table(ITEMS).index(BY_DISTRICT).build();
    }

    /**
     * Inserts {@code customers} customers (ids 1..n) and {@code items} items (random keys over the
     * whole long range, the two extremes included), then deletes every seventh customer and updates
     * every fifth: the heap has holes and rewritten rows.
     */
    static void fill(DatabaseNode node, SplittableRandom random, int customers, int items) {
        Table customer = node.table("customer");
        Table item = node.table("item");
        for (int from = 1; from <= customers; from += BATCH) {
            int first = from;
            commit(node, tx -> {
                for (long id = first; id < first + BATCH && id <= customers; id++) {
                    long seed = random.nextLong();
                    long key = id;
                    assertTrue(tx.insert(customer, row -> customerRow(row, key, seed)), "insert customer " + key);
                }
            });
        }
        TreeMap<Long, Boolean> keys = new TreeMap<>();
        keys.put(Long.MIN_VALUE, true);
        keys.put(Long.MAX_VALUE, true);
        keys.put(0L, true);
        while (keys.size() < items) {
            keys.put(random.nextLong(), true);
        }
        List<Long> itemKeys = List.copyOf(keys.keySet());
        for (int from = 0; from < itemKeys.size(); from += BATCH) {
            List<Long> batch = itemKeys.subList(from, Math.min(from + BATCH, itemKeys.size()));
            commit(node, tx -> {
                for (long key : batch) {
                    long seed = random.nextLong();
                    assertTrue(tx.insert(item, row -> itemRow(row, key, seed)), "insert item " + key);
                }
            });
        }
        commit(node, tx -> {
            for (long id = 7; id <= customers; id += 7) {
                assertTrue(tx.delete(customer, id), "delete customer " + id);
            }
            for (long id = 5; id <= customers; id += 5) {
                if (id % 7 != 0) {
                    long key = id;
                    assertTrue(tx.update(customer, key, row -> {
                        row.setMoney(C_BALANCE, -key);
                        row.setString(C_NOTE, "updated " + key);
                    }), "update customer " + key);
                }
            }
        });
    }

    static void customerRow(TupleView row, long id, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        row.setLong(C_ID, id);
        row.setInt(C_DISTRICT, (int) (id % 10));
        if (r.nextInt(4) != 0) {
            row.setString(C_NAME, "name-" + r.nextInt(1_000_000));
        } // else NULL
        row.setString(C_CODE, r.nextBoolean() ? "AB" : "WXYZ");
        row.setMoney(C_BALANCE, r.nextLong(-1_000_000, 1_000_000));
        if (r.nextBoolean()) {
            row.setTimestamp(C_SINCE, r.nextLong(0, Long.MAX_VALUE));
        }
        if (r.nextInt(3) == 0) {
            row.setString(C_NOTE, "x".repeat(r.nextInt(201)));
        }
    }

    static void itemRow(TupleView row, long id, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        row.setLong(I_ID, id);
        row.setMoney(I_PRICE, r.nextLong(1, 10_000));
        if (r.nextBoolean()) {
            row.setString(I_DATA, "data " + r.nextInt());
        }
    }

    static void commit(DatabaseNode node, Consumer<Transaction> body) {
        TxnResult<Object> result = node.run(tx -> {
            body.accept(tx);
            return null;
        });
        assertTrue(result.committed(), "transaction did not commit: " + result);
    }

    /** Every row of {@code table}, primary key to its columns as text ({@link #render}), NULLs named. */
    static TreeMap<Long, String> rows(DatabaseNode node, Table table) {
        TreeMap<Long, String> rows = new TreeMap<>();
        TxnResult<Object> result = node.run(tx -> {
            rows.clear();
            tx.scan(table.primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE, row -> {
                rows.put(table.primaryIndex().keyOf(row), render(row));
                return true;
            });
            return null;
        });
        assertTrue(result.committed(), "scan did not commit: " + result);
        return rows;
    }

    /** {@code actual} holds exactly {@code expected}'s rows; a failure names the first few keys that differ, not every row. */
    static void assertSameRows(Map<Long, String> expected, Map<Long, String> actual, String what) {
        TreeSet<Long> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        List<String> differences = new ArrayList<>();
        for (long key : keys) {
            if (!Objects.equals(expected.get(key), actual.get(key))) {
                differences.add("key " + key + ": expected " + expected.get(key) + " but was " + actual.get(key));
            }
        }
        if (!differences.isEmpty()) {
            fail(what + ": " + differences.size() + " of " + keys.size() + " rows differ, first: "
                + String.join("; ", differences.subList(0, Math.min(5, differences.size()))));
        }
    }

    /** The ids a secondary-index scan of {@code district} finds in the customer table. */
    static List<Long> customersInDistrict(DatabaseNode node, int district) {
        TxnResult<List<Long>> result = node.run(tx -> {
            List<Long> ids = new ArrayList<>();
            tx.scan(node.index(BY_DISTRICT.name()), district, district, Integer.MAX_VALUE, row -> ids.add(row.getLong(C_ID)));
            return ids;
        });
        assertTrue(result.committed(), "scan did not commit: " + result);
        return result.value().stream().sorted().toList();
    }

    /** Every column by name and typed value, NULL for a null; then the row's image bytes in hex. */
    static String render(TupleView row) {
        StringBuilder text = new StringBuilder();
        for (Column c : row.schema().columns()) {
            text.append(c.name()).append('=');
            if (row.isNull(c.index())) {
                text.append("NULL");
            } else {
                switch (c.type()) {
                    case INT -> text.append(row.getInt(c.index()));
                    case LONG -> text.append(row.getLong(c.index()));
                    case MONEY -> text.append(row.getMoney(c.index()));
                    case TIMESTAMP -> text.append(row.getTimestamp(c.index()));
                    case CHAR, VARCHAR -> text.append('"').append(row.getString(c.index())).append('"');
                }
            }
            text.append(' ');
        }
        byte[] image = new byte[row.rowBytes()];
        row.copyRowTo(image, 0);
        return text.append("image=").append(HexFormat.of().formatHex(image)).toString();
    }

    /** Loads every row of {@code reader} into {@code db} (fresh, no rows) as recovery does; returns the rows. */
    static long load(Checkpoint.Reader reader, Database db) {
        reader.verify(db);
        DatabaseNode node = db.node(0);
        List<Table> tables = node.tables();
        try (BulkLoad bulk = node.bulkLoad()) {
            return reader.forEachRow((tableId, recordId, buffer, offset) ->
                bulk.insert(tables.get(tableId - 1), row -> row.setRowFrom(buffer, offset)));
        }
    }
}
