package io.selcc.bench;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.IndexDefinition;
import io.selcc.engine.Table;
import io.selcc.engine.TableDefinition;
import io.selcc.engine.TxnResult;
import io.selcc.storage.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Single-row transactions through the whole engine (index lookup, CC, SELCC), per algorithm.
 *
 * <pre>
 *   JMH thread 0 -> compute node 0 --+
 *   JMH thread 1 -> compute node N-1 +--> memory node: 10,000 accounts, uniform keys
 * </pre>
 *
 * Two JMH threads always run; with {@code nodes=1} both use compute node 0, with {@code nodes=2}
 * each has its own node (cross-node coherence traffic). No latency model.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar TransactionBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Threads(2)
public class TransactionBenchmark {
    static final int ACCOUNTS = 10_000;
    static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").addVarchar("owner", 24).build();

    @Param({"2pl", "occ", "to"})
    public String cc;

    @Param({"1", "2"})
    public int nodes;

    private Database db;

    @Setup(Level.Trial)
    public void setUp() {
        db = Database.builder().cc(cc).computeNodes(nodes).cacheFrames(8192).threadsPerNode(2)
            .table(TableDefinition.of("account", ACCOUNT, row -> row.getLong(0))).build();
        DatabaseNode node = db.node(0);
        Table table = node.table("account");
        for (int from = 1; from <= ACCOUNTS; from += 500) {
            int first = from;
            TxnResult<Object> r = node.run(tx -> {
                for (int id = first; id < first + 500 && id <= ACCOUNTS; id++) {
                    long key = id;
                    tx.insert(table, row -> {
                        row.setLong(0, key);
                        row.setMoney(1, 100_00);
                        row.setString(2, "owner-" + key);
                    });
                }
                return null;
            });
            if (!r.committed()) {
                throw new IllegalStateException("load failed: " + r);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        db.close();
    }

    @State(Scope.Thread)
    public static class Worker {
        DatabaseNode node;
        Table table;
        SplittableRandom random;

        @Setup(Level.Trial)
        public void setUp(TransactionBenchmark benchmark, ThreadParams thread) {
            node = benchmark.db.node(thread.getThreadIndex() % benchmark.nodes);
            table = node.table("account");
            random = new SplittableRandom(thread.getThreadIndex());
        }
    }

    /** Read one random account and commit. */
    @Benchmark
    public long readOneRow(Worker w) {
        long id = 1 + w.random.nextInt(ACCOUNTS);
        TxnResult<Long> r = w.node.run(tx -> tx.get(w.table, id).getMoney(1));
        return r.committed() ? r.value() : -1;
    }

    /** Add one cent to one random account and commit (retrying conflicts). */
    @Benchmark
    public boolean updateOneRow(Worker w) {
        long id = 1 + w.random.nextInt(ACCOUNTS);
        return w.node.run(tx -> tx.update(w.table, id, row -> row.setMoney(1, row.getMoney(1) + 1))).committed();
    }
}
