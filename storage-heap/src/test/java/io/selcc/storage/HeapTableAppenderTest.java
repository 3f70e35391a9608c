package io.selcc.storage;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.SelccCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HeapAppender}: loaders on two compute nodes fill one table at once; every row is in the
 * chain, visible, once, with the values written, and the root's page count matches the chain.
 *
 * <p>Planted bug this was shown to catch: a run linked without pointing its oldest page at the old first
 * page (the chain then holds only the latest run) fails {@code twoNodesAppendToOneTable}.
 */
class HeapTableAppenderTest {
    private SelccCluster cluster;

    @BeforeEach
    void setUp() {
        // A small cache, so pages are evicted while they wait for their run to be linked.
        cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64).build();
    }

    @AfterEach
    void tearDown() {
        cluster.close();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoNodesAppendToOneTable() throws InterruptedException {
        ComputeNode a = cluster.node(0);
        HeapTable onA = HeapTable.create(a, 7, "item", HeapTableTest.ITEM, false);
        HeapTable onB = HeapTable.open(cluster.node(1), onA.rootAddress());
        int perNode = 20_000; // several runs of pages each
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Map<Long, Integer> rids = new java.util.concurrent.ConcurrentHashMap<>();
        Thread[] loaders = new Thread[2];
        HeapTable[] tables = {onA, onB};
        for (int t = 0; t < 2; t++) {
            HeapTable table = tables[t];
            int first = t * perNode;
            loaders[t] = new Thread(() -> {
                try (HeapAppender appender = new HeapAppender(table)) {
                    for (int id = first; id < first + perNode; id++) {
                        int value = id;
                        long rid = appender.append(row -> {
                            row.setInt(0, value);
                            row.setString(5, "item-" + value);
                        });
                        assertEquals(value, appender.lastRow().getInt(0));
                        rids.put(rid, value);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "appender-" + t);
            loaders[t].start();
        }
        for (Thread loader : loaders) {
            loader.join();
        }
        assertNull(failure.get(), () -> "a loader failed: " + failure.get());

        Map<Integer, Long> seen = new HashMap<>();
        onA.scan((rid, row) -> {
            Long before = seen.put(row.getInt(0), rid);
            assertNull(before, "row twice in the chain: id=" + row.getInt(0));
            assertEquals(row.getInt(0), rids.get(rid), "append returned this row's record id");
            assertEquals("item-" + row.getInt(0), row.getString(5));
            assertTrue(row.isNull(6), "a column the writer left out is NULL");
        });
        assertEquals(2 * perNode, seen.size());
        int pages = (2 * perNode + onA.slotsPerPage() - 1) / onA.slotsPerPage();
        assertTrue(onA.pageCount() >= pages && onA.pageCount() <= pages + 1, "pages=" + onA.pageCount());
        long chained = 0;
        for (long page = onA.firstPage(); page != 0; chained++) {
            var h = a.sLock(page);
            page = onA.nextPage(h);
            a.unlock(h);
        }
        assertEquals(onA.pageCount(), chained, "the root's count and the chain agree");
        assertTrue(chained > 2 * HeapAppender.LINK_RUN, "several runs were linked: " + chained + " pages");
    }

    /**
     * A writer that throws leaves nothing behind, also as the last row before close: its slot is
     * neither visible nor dirty, and a later row takes it. A discarded row is gone too. Shown to fail
     * with the slot marked visible before the writer runs and not cleared (the half row is scanned).
     */
    @Test
    void aFailedWriterLeavesNoRow() {
        HeapTable table = HeapTable.create(cluster.node(0), 7, "item", HeapTableTest.ITEM, false);
        try (HeapAppender appender = new HeapAppender(table)) {
            appender.append(row -> row.setInt(0, 1));
            appender.append(row -> row.setInt(0, 2));
            appender.discardLast();
            long rid = appender.append(row -> row.setInt(0, 3));
            assertEquals(1, table.slotOf(rid), "the discarded row's slot was taken again");
            assertThrows(IllegalArgumentException.class, () -> appender.append(row -> {
                row.setInt(0, 4);
                row.setString(5, "x".repeat(25)); // longer than i_name's 24
            }));
        }
        Map<Integer, Long> seen = new HashMap<>();
        table.scan((rid, row) -> seen.put(row.getInt(0), rid));
        assertEquals(java.util.Set.of(1, 3), seen.keySet());
        HeapAppender empty = new HeapAppender(table);
        assertThrows(IllegalStateException.class, empty::discardLast);
        empty.close();
    }

    @Test
    void anEmptyAppenderLinksNothing() {
        HeapTable table = HeapTable.create(cluster.node(0), 7, "item", HeapTableTest.ITEM, false);
        new HeapAppender(table).close();
        assertEquals(0, table.pageCount());
        assertEquals(0, table.firstPage());
    }

    /**
     * Round trips of a load, exact (issue 27): the pages of a run go to memory in one batch when the run
     * is linked, so a load of P pages costs about P / LINK_RUN publishing round trips, plus the
     * allocator's and the root's; it took one per page before. (Planted once: {@code publishAll} posting
     * one batch per page fails this with 1,069 round trips for 1,053 pages.)
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLoadPaysARoundTripPerRunNotPerPage() {
        ComputeNode node = cluster.node(0);
        HeapTable table = HeapTable.create(node, 8, "item", HeapTableTest.ITEM, false);
        table.firstPage(); // the root is cached from here on
        int rows = 20_000;
        long before = node.counters().threadSnapshot().get(io.selcc.fabric.Counter.ROUND_TRIPS);
        try (HeapAppender appender = new HeapAppender(table)) {
            for (int id = 0; id < rows; id++) {
                int value = id;
                appender.append(row -> row.setInt(0, value));
            }
        }
        long roundTrips = node.counters().threadSnapshot().get(io.selcc.fabric.Counter.ROUND_TRIPS) - before;
        long pages = table.pageCount();
        long runs = (pages + HeapAppender.LINK_RUN - 1) / HeapAppender.LINK_RUN;
        assertTrue(pages > 4 * HeapAppender.LINK_RUN, "the load fills several runs: pages=" + pages);
        long chunks = (pages + 63) / 64; // the builder's default allocationChunk: an FAA per 64 GCLs
        // a publish per run, an allocation FAA per chunk, and one more chunk if the table's root began one
        assertTrue(roundTrips <= runs + chunks + 1, "round trips=" + roundTrips + " pages=" + pages + " runs=" + runs
            + " chunks=" + chunks);
        System.out.printf("HeapTableAppenderTest: %d rows, %d pages, %d round trips%n", rows, pages, roundTrips);
    }
}
