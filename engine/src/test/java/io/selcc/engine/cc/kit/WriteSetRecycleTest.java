package io.selcc.engine.cc.kit;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.SelccCluster;
import io.selcc.storage.HeapTable;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A write set's row images go back to the thread's pool when the transaction is over and serve the next
 * transaction's writes, holding only what that one wrote. Shown to fail with recycle() leaving the entries
 * in place (the write set would still answer for a row whose image another transaction now fills).
 */
class WriteSetRecycleTest {
    private static final Schema ROW = Schema.builder().addLong("id").addVarchar("name", 16).build();
    private SelccCluster cluster;
    private ComputeNode node;
    private HeapTable table;

    @BeforeEach
    void setUp() {
        cluster = SelccCluster.builder().computeNodes(1).cacheFrames(64).build();
        node = cluster.node(0);
        table = HeapTable.create(node, 1, "row", ROW, false);
    }

    @AfterEach
    void tearDown() {
        cluster.close();
    }

    @Test
    void imagesServeTheNextTransactionAndCarryNothingOver() {
        TupleBuffer row = new TupleBuffer(ROW);
        row.view().setLong(0, 1);
        row.view().setString(1, "first");
        WriteSet first = new WriteSet(node);
        long rid = first.insert(table, row);
        TupleBuffer image = imageOf(first, rid);
        first.recycle();
        assertNull(first.get(rid), "a recycled write set is empty");

        WriteSet second = new WriteSet(node);
        TupleView next = new TupleBuffer(ROW).view();
        next.setLong(0, 2);
        next.setString(1, "second");
        long other = rid + 1;
        assertNull(second.get(rid), "the new transaction has no write of its own yet");
        second.update(table, other, image.view().incarnation(), next);
        assertSame(image, imageOf(second, other), "the image came back from the pool");
        TupleBuffer read = new TupleBuffer(ROW);
        assertTrue(second.readOwn(second.get(other), r -> true, read));
        assertEquals(2, read.view().getLong(0));
        assertEquals("second", read.view().getString(1));
        second.recycle();
    }

    private static TupleBuffer imageOf(WriteSet writes, long rid) {
        WriteSet.Entry entry = writes.get(rid);
        TupleBuffer copy = new TupleBuffer(ROW);
        writes.readOwn(entry, r -> true, copy);
        return entry.image();
    }
}
