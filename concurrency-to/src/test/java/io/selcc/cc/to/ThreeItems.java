package io.selcc.cc.to;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.cache.AccessMode;
import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.storage.Schema;

/** The small database TO's unit tests share: two SELCC compute nodes and items 1-3 with value 10 x id. */
final class ThreeItems {
    static final Schema ITEM = Schema.builder().addLong("id").addLong("value").build();
    static final TableDefinition ITEMS = TableDefinition.of("item", ITEM, row -> row.getLong(0));

    private ThreeItems() {
    }

    static Database open() {
        return Database.builder().cc("to").computeNodes(2).accessMode(AccessMode.SELCC).cacheFrames(64)
            .table(ITEMS).build();
    }

    /** Inserts items 1, 2 and 3 (value 10, 20, 30) in one transaction on {@code node}. */
    static void load(DatabaseNode node) {
        Table table = node.table("item");
        assertTrue(node.run(tx -> {
            for (long id = 1; id <= 3; id++) {
                long key = id;
                tx.insert(table, row -> {
                    row.setLong(0, key);
                    row.setLong(1, 10 * key);
                });
            }
            return null;
        }).committed());
    }
}
