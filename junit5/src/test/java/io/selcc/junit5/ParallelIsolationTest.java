package io.selcc.junit5;

import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Two test classes whose four methods run at the same time (JUnit's parallel execution, through the
 * launcher) each insert the same keys into "their" database: each sees only its own rows, so nothing
 * is shared between them. A barrier all four must reach proves they really ran at once (run one after
 * another, the first would wait there in vain and fail). Shown to fail with the extension keeping one
 * database in a static field: each method counted every method's commits (about 200, not 51).
 */
class ParallelIsolationTest {
    private static final int KEYS = 50;
    /** Every method of both classes waits here for the others: they run in parallel or fail. */
    static final CyclicBarrier TOGETHER = new CyclicBarrier(4);
    /** The distinct databases the methods got. */
    static final Set<Object> DATABASES = ConcurrentHashMap.newKeySet();

    @Test
    void parallelTestClassesShareNoState() {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(First.class), selectClass(Second.class))
            .configurationParameter("junit.jupiter.execution.parallel.enabled", "true")
            .configurationParameter("junit.jupiter.execution.parallel.mode.default", "concurrent")
            .configurationParameter("junit.jupiter.execution.parallel.mode.classes.default", "concurrent")
            .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
            .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "4")
            .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        StringWriter failures = new StringWriter();
        summary.printFailuresTo(new PrintWriter(failures), 20);
        assertEquals(4, summary.getTestsSucceededCount(), "every method passed: " + failures);
        assertEquals(0, summary.getTestsFailedCount(), failures.toString());
        assertEquals(4, DATABASES.size(), "each method had a database of its own");
    }

    /**
     * A database asked for in {@code @BeforeAll} would be shared by every method of the class: refused,
     * naming why. (Shown to fail without the check: the class ran, its methods sharing one database.)
     */
    @Test
    void aDatabaseForTheWholeClassIsRefused() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(AskedInBeforeAll.class)).build(), listener);
        TestExecutionSummary summary = listener.getSummary();
        assertEquals(1, summary.getTotalFailureCount(), "the class fails at its @BeforeAll");
        assertEquals(0, summary.getTestsSucceededCount());
        String why = summary.getFailures().get(0).getException().getMessage();
        assertTrue(why.contains("one per method"), why);
    }

    @SelccDatabase(computeNodes = 1, schema = Accounts.class)
    static class AskedInBeforeAll {
        @org.junit.jupiter.api.BeforeAll
        static void setUp(io.selcc.engine.Database db) {
            db.node(0);
        }

        @Test
        void test(DatabaseNode node) {
            node.table("account");
        }
    }

    /** Inserts keys 1..KEYS and counts the table: exactly its own rows. */
    static void insertAndCount(DatabaseNode node, DatabaseCounters counters) throws Exception {
        DATABASES.add(node.computeNode()); // one cluster, and so one set of compute nodes, per database
        TOGETHER.await(60, TimeUnit.SECONDS);
        Table accounts = node.table("account");
        for (long id = 1; id <= KEYS; id++) {
            long key = id;
            assertTrue(node.run(tx -> tx.insert(accounts, row -> {
                row.setLong(0, key);
                row.setMoney(1, key);
            })).committed(), "insert of key " + key);
        }
        int rows = node.run(tx -> tx.scan(accounts.primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE,
            row -> true)).value();
        assertEquals(KEYS, rows, "only this test's rows");
        assertEquals(KEYS + 1, counters.committed(), "this test's transactions, counted on its own database");
    }

    @SelccDatabase(computeNodes = 1, schema = Accounts.class)
    static class First {
        @Test
        void one(DatabaseNode node, DatabaseCounters counters) throws Exception {
            insertAndCount(node, counters);
        }

        @Test
        void two(DatabaseNode node, DatabaseCounters counters) throws Exception {
            insertAndCount(node, counters);
        }
    }

    @SelccDatabase(computeNodes = 2, cc = "occ", schema = Accounts.class)
    static class Second {
        @Test
        void one(@Node(1) DatabaseNode node, DatabaseCounters counters) throws Exception {
            insertAndCount(node, counters);
        }

        @Test
        void two(DatabaseNode node, DatabaseCounters counters) throws Exception {
            insertAndCount(node, counters);
        }
    }
}
