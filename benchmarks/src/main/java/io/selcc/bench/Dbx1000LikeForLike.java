package io.selcc.bench;

import io.selcc.engine.Database;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Index;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Table;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.threads.EngineThread;
import io.selcc.tpcc.LastNames;
import io.selcc.tpcc.TpccRandom;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.TpccSchema.Customer;
import io.selcc.tpcc.TpccSchema.District;
import io.selcc.tpcc.TpccSchema.Item;
import io.selcc.tpcc.TpccSchema.Stock;
import io.selcc.tpcc.TpccSchema.Warehouse;
import io.selcc.tpcc.run.ClusterSpec;
import io.selcc.tpcc.run.TpccDatabases;
import io.selcc.tpcc.txn.InputGenerator;
import io.selcc.tpcc.txn.NewOrderInput;
import io.selcc.tpcc.txn.PaymentInput;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * New-Order and Payment the way DBx1000's TPC-C runs them (github yxymit/DBx1000, {@code benchmarks/tpcc_txn.cpp},
 * {@code WH_UPDATE true}; what it leaves out is commented-out code, not a flag), on this engine, so the two
 * can be compared access for access. Not TPC-C:
 * DBx1000's New-Order inserts no ORDER, NEW-ORDER or ORDER-LINE row, reads W_TAX, C_DISCOUNT, D_NEXT_O_ID
 * (+1), I_PRICE and updates four STOCK counters; its Payment adds to W_YTD, D_YTD and three customer
 * columns (found by id, or by last name: the middle namesake, unsorted) and inserts no HISTORY row. The
 * product's driver ({@code tpcc run}) runs the spec's transactions; this report exists because a
 * comparison of those against DBx1000's numbers measures different work (docs/benchmarks.md).
 *
 * <p>Same inputs as the driver (NURand items, customers and last names; 1% remote stock lines, 15%
 * remote Payment customers), 50/50, each terminal on a virtual engine thread at a home warehouse,
 * no-wait 2PL by default, conflicts retried as the driver retries them. Where the two still differ, the
 * difference costs this engine, not DBx1000 (but for H_DATA, which DBx1000 builds from W_NAME and D_NAME
 * and this only reads): a Payment by last name reads its namesakes' rows through the concurrency
 * control (DBx1000 walks its hash chain's entries and latches only the chosen row), and an order may
 * name an item twice (DBx1000 draws distinct items). DBx1000 parks an aborted transaction
 * and runs another meanwhile, this retries it with backoff; at W=2 both abort almost never. Prints
 * txn/s over the measured window, aborts and give-ups per commit per type, p50/p99 latency per type,
 * the process's CPU per transaction (every thread: terminals, JIT, GC) and the terminals' wall time per
 * transaction (DBx1000's {@code run_time}, summed over its threads, divided by its transactions).
 *
 * <p>Run: {@code java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar
 * io.selcc.bench.Dbx1000LikeForLike [--compute-nodes 2] [--terminals 1] [--warehouses 2] [--cc 2pl]
 * [--seconds 15] [--warmup 15] [--seed 1]}.
 */
public final class Dbx1000LikeForLike {
    private Dbx1000LikeForLike() {
    }

    public static void main(String[] args) throws InterruptedException {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("Dbx1000LikeForLike: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            run(options, new PrintWriter(System.out, true));
        } catch (TerminalFailedException e) {
            System.err.println("Dbx1000LikeForLike: " + e.getMessage());
            e.getCause().printStackTrace(); // not an expected condition: a bug to read
            System.exit(1);
        }
    }

    /** What a run counted in its measured window, per type (index 0 New-Order, 1 Payment). */
    record Counts(long[] commits, long[] aborts, long[] gaveUp) {
    }

    /** A terminal's transaction threw: the run stopped. */
    static final class TerminalFailedException extends RuntimeException {
        TerminalFailedException(Throwable cause) {
            super("a terminal failed: " + cause, cause);
        }
    }

    /** The run's phase, read by every terminal. */
    private static final class Phase {
        volatile boolean measuring;
        volatile boolean stop;
    }

    /** The command line: every flag takes a value; anything else is refused with its name. */
    record Options(int computeNodes, int terminals, int warehouses, String cc, int seconds, int warmup, long seed) {
        static Options parse(String[] args) {
            int computeNodes = 2;
            int terminals = 1;
            int warehouses = 2;
            String cc = "2pl";
            int seconds = 15;
            int warmup = 15;
            long seed = 1;
            for (int i = 0; i < args.length; i += 2) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("flag " + args[i] + " needs a value");
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--compute-nodes" -> computeNodes = inRange(args[i], value, io.selcc.fabric.Fabric.MAX_COMPUTE_NODES);
                    case "--terminals" -> terminals = positive(args[i], value);
                    case "--warehouses" -> warehouses = inRange(args[i], value, TpccSchema.MAX_WAREHOUSES);
                    case "--cc" -> cc = value;
                    case "--seconds" -> seconds = positive(args[i], value);
                    case "--warmup" -> warmup = positive(args[i], value);
                    case "--seed" -> seed = number(args[i], value);
                    default -> throw new IllegalArgumentException("unknown flag " + args[i]
                        + " (known: --compute-nodes --terminals --warehouses --cc --seconds --warmup --seed)");
                }
            }
            if (!List.of("2pl", "occ", "to").contains(cc)) {
                throw new IllegalArgumentException("--cc must be 2pl, occ or to: " + cc);
            }
            return new Options(computeNodes, terminals, warehouses, cc, seconds, warmup, seed);
        }

        private static int positive(String flag, String value) {
            return inRange(flag, value, 10_000);
        }

        private static int inRange(String flag, String value, int max) {
            long n = number(flag, value);
            if (n < 1 || n > max) {
                throw new IllegalArgumentException(flag + " must be 1.." + max + ": " + value);
            }
            return (int) n;
        }

        private static long number(String flag, String value) {
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + " needs a number: " + value);
            }
        }
    }

    /** Loads, runs the terminals, prints the one-line report and returns what it counted. */
    static Counts run(Options o, PrintWriter out) throws InterruptedException {
        ClusterSpec cluster = ClusterSpec.inProcess(o.computeNodes());
        int frames = TpccDatabases.cacheFrames(o.warehouses(), o.terminals());
        long memory = TpccDatabases.memoryPerNode(cluster, o.warehouses(), 0); // nothing is inserted while running
        TpccRandom.Constants constants = TpccRandom.Constants.random(o.seed());
        try (Database db = TpccDatabases.open(cluster, o.cc(), LockWaitPolicy.NO_WAIT, o.terminals(), frames, memory, 0)) {
            TpccDatabases.load(db, o.warehouses(), o.terminals(), o.seed(), constants, 0, memory, out);
            Phase phase = new Phase();
            List<Terminal> terminals = new ArrayList<>();
            for (int n = 0; n < o.computeNodes(); n++) {
                for (int t = 0; t < o.terminals(); t++) {
                    int index = n * o.terminals() + t;
                    int home = index % o.warehouses() + 1;
                    terminals.add(new Terminal(phase, db.node(n), home, new InputGenerator(new TpccRandom(o.seed() * 1000 + index,
                        constants), o.warehouses()), new SplittableRandom(o.seed() * 7919 + index),
                        new TpccRandom(o.seed() * 104_729 + index, constants)));
                }
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (Terminal terminal : terminals) {
                threads.add(EngineThread.startVirtual("like-for-like-" + threads.size(), () -> {
                    try {
                        terminal.loop();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                        phase.stop = true;
                    }
                }));
            }
            var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            waitOrFail(o.warmup(), failure);
            phase.measuring = true;
            long cpuFrom = os.getProcessCpuTime();
            long from = System.nanoTime();
            waitOrFail(o.seconds(), failure);
            phase.measuring = false;
            long elapsed = System.nanoTime() - from;
            long cpu = os.getProcessCpuTime() - cpuFrom;
            phase.stop = true;
            for (Thread thread : threads) {
                thread.join();
            }
            if (failure.get() != null) {
                throw new TerminalFailedException(failure.get());
            }
            return report(o, terminals, elapsed, cpu, out);
        }
    }

    /** The run's clock (the terminals keep going meanwhile): {@code seconds}, or less if a terminal failed. */
    private static void waitOrFail(int seconds, AtomicReference<Throwable> failure) throws InterruptedException {
        long until = System.nanoTime() + seconds * 1_000_000_000L;
        while (failure.get() == null && System.nanoTime() - until < 0) {
            Thread.sleep(100);
        }
    }

    private static Counts report(Options o, List<Terminal> terminals, long elapsedNanos, long cpuNanos, PrintWriter out) {
        long[] commits = new long[2];
        long[] aborts = new long[2];
        long[] gaveUp = new long[2];
        Histogram[] latency = {new Histogram(3), new Histogram(3)};
        for (Terminal t : terminals) {
            for (int type = 0; type < 2; type++) {
                commits[type] += t.commits[type];
                aborts[type] += t.aborts[type];
                gaveUp[type] += t.gaveUp[type];
                latency[type].add(t.latency[type]);
            }
        }
        long all = commits[0] + commits[1];
        out.printf(Locale.ROOT, "like-for-like cc=%s %d x %d W=%d: txn/s=%.0f ab/cmt NO=%.3f PA=%.3f gave-up NO=%d PA=%d"
                + " p50 NO=%d PA=%d us p99 NO=%d PA=%d us cpu/txn=%.1f us (process) wall/txn=%.1f us (terminals)%n",
            o.cc(), o.computeNodes(), o.terminals(), o.warehouses(), all / (elapsedNanos / 1e9),
            aborts[0] / (double) Math.max(1, commits[0]), aborts[1] / (double) Math.max(1, commits[1]), gaveUp[0],
            gaveUp[1], latency[0].getValueAtPercentile(50) / 1000, latency[1].getValueAtPercentile(50) / 1000,
            latency[0].getValueAtPercentile(99) / 1000, latency[1].getValueAtPercentile(99) / 1000,
            cpuNanos / 1e3 / Math.max(1, all), terminals.size() * (elapsedNanos / 1e3) / Math.max(1, all));
        return new Counts(commits, aborts, gaveUp);
    }

    /** One terminal: its home warehouse, its inputs, and what it counted while measuring. */
    private static final class Terminal {
        private static final int NEW_ORDER = 0;
        private static final int PAYMENT = 1;

        private final Phase phase;
        private final DatabaseNode node;
        private final int home;
        private final InputGenerator inputs;
        private final SplittableRandom mix;
        /** Draws a real item for the spec's unused one (DBx1000 draws none). */
        private final TpccRandom itemDraws;
        private final Table warehouses;
        private final Table districts;
        private final Table customers;
        private final Table items;
        private final Table stock;
        private final Index customersByLastName;
        final long[] commits = new long[2];
        final long[] aborts = new long[2];
        /** Transactions the retry policy gave up on. */
        final long[] gaveUp = new long[2];
        final Histogram[] latency = {new Histogram(3), new Histogram(3)};
        // Scratch reused by every transaction (the driver's bodies allocate little too).
        private final long[] read = new long[2];
        private int[] namesakes = new int[64];
        private int namesakeCount;

        Terminal(Phase phase, DatabaseNode node, int home, InputGenerator inputs, SplittableRandom mix,
                 TpccRandom itemDraws) {
            this.phase = phase;
            this.node = node;
            this.home = home;
            this.inputs = inputs;
            this.mix = mix;
            this.itemDraws = itemDraws;
            this.warehouses = node.table(TpccSchema.name(Warehouse.TABLE, TpccSchema.SHARED));
            this.districts = node.table(TpccSchema.name(District.TABLE, TpccSchema.SHARED));
            this.customers = node.table(TpccSchema.name(Customer.TABLE, TpccSchema.SHARED));
            this.items = node.table(TpccSchema.name(Item.TABLE, TpccSchema.SHARED));
            this.stock = node.table(TpccSchema.name(Stock.TABLE, TpccSchema.SHARED));
            this.customersByLastName = node.index(TpccSchema.name(Customer.BY_LAST_NAME, TpccSchema.SHARED));
        }

        void loop() {
            while (!phase.stop) {
                int type = mix.nextInt(2);
                long now = System.currentTimeMillis() * 1000;
                Function<Transaction, Object> body;
                if (type == NEW_ORDER) {
                    NewOrderInput in = inputs.newOrder(home, now);
                    body = tx -> newOrder(tx, in);
                } else {
                    PaymentInput in = inputs.payment(home, now);
                    body = tx -> payment(tx, in);
                }
                boolean counted = phase.measuring;
                long started = System.nanoTime();
                TxnResult<Object> result = node.run(RetryPolicy.defaults(), body);
                long took = System.nanoTime() - started;
                if (counted && phase.measuring) {
                    if (result.committed()) {
                        commits[type]++;
                        latency[type].recordValue(Math.max(1, took));
                    } else {
                        gaveUp[type]++;
                    }
                    aborts[type] += result.attempts() - (result.committed() ? 1 : 0);
                }
            }
        }

        /**
         * DBx1000's {@code run_new_order}: no inserts, no D_TAX, and an order with a remote line counts a
         * remote order on every line's stock (its {@code remote} flag is per order).
         */
        private Object newOrder(Transaction tx, NewOrderInput in) {
            int w = in.w();
            int d = in.d();
            boolean remote = !in.allLocal();
            require(tx.read(warehouses, Warehouse.key(w), row -> read[0] = row.getInt(Warehouse.W_TAX)), "warehouse");
            require(tx.read(customers, Customer.key(w, d, in.c()), row -> read[1] = row.getInt(Customer.C_DISCOUNT)),
                "customer");
            require(tx.update(districts, District.key(w, d), row -> {
                row.setInt(District.D_NEXT_O_ID, row.getInt(District.D_NEXT_O_ID) + 1);
            }), "district");
            for (int i = 0; i < in.lineCount(); i++) {
                int itemId = in.itemIds()[i];
                if (itemId == InputGenerator.UNUSED_ITEM_ID) {
                    itemId = itemDraws.itemId(); // the spec's unused id (1% of New-Orders); DBx1000 draws none
                }
                require(tx.read(items, Item.key(itemId), row -> read[0] = row.getMoney(Item.I_PRICE)), "item");
                int quantity = in.quantities()[i];
                require(tx.update(stock, Stock.key(in.supplyWarehouses()[i], itemId), row -> {
                    int q = row.getInt(Stock.S_QUANTITY);
                    row.setInt(Stock.S_YTD, row.getInt(Stock.S_YTD) + quantity);
                    row.setInt(Stock.S_ORDER_CNT, row.getInt(Stock.S_ORDER_CNT) + 1);
                    if (remote) {
                        row.setInt(Stock.S_REMOTE_CNT, row.getInt(Stock.S_REMOTE_CNT) + 1);
                    }
                    row.setInt(Stock.S_QUANTITY, q > quantity + 10 ? q - quantity : q - quantity + 91);
                }), "stock");
            }
            return null;
        }

        /** DBx1000's {@code run_payment}: no HISTORY row, no C_DATA change for a "BC" customer. */
        private Object payment(Transaction tx, PaymentInput in) {
            int w = in.w();
            int d = in.d();
            long amount = in.amountCents();
            require(tx.update(warehouses, Warehouse.key(w), row -> {
                row.getString(Warehouse.W_NAME);
                row.setMoney(Warehouse.W_YTD, row.getMoney(Warehouse.W_YTD) + amount);
            }), "warehouse");
            require(tx.update(districts, District.key(w, d), row -> {
                row.getString(District.D_NAME);
                row.setMoney(District.D_YTD, row.getMoney(District.D_YTD) + amount);
            }), "district");
            int cW = in.customerW();
            int cD = in.customerD();
            int c = in.customerId();
            if (in.byLastName()) {
                namesakeCount = 0;
                long key = Customer.lastNameKey(cW, cD, in.lastNameNumber());
                int number = in.lastNameNumber();
                tx.readRange(customersByLastName, key, key, Integer.MAX_VALUE, row -> {
                    if (LastNames.number(row, Customer.C_LAST) == number) {
                        if (namesakeCount == namesakes.length) {
                            namesakes = java.util.Arrays.copyOf(namesakes, 2 * namesakes.length);
                        }
                        namesakes[namesakeCount++] = row.getInt(Customer.C_ID);
                    }
                    return true;
                });
                if (namesakeCount == 0) {
                    throw new IllegalStateException("no customer with last name number " + number + " in w=" + cW
                        + " d=" + cD);
                }
                c = namesakes[namesakeCount / 2]; // DBx1000 takes the middle of its unsorted chain
            }
            require(tx.update(customers, Customer.key(cW, cD, c), row -> {
                row.setMoney(Customer.C_BALANCE, row.getMoney(Customer.C_BALANCE) - amount);
                row.setMoney(Customer.C_YTD_PAYMENT, row.getMoney(Customer.C_YTD_PAYMENT) + amount);
                row.setInt(Customer.C_PAYMENT_CNT, row.getInt(Customer.C_PAYMENT_CNT) + 1);
                row.getString(Customer.C_CREDIT);
            }), "customer");
            return null;
        }

        private static void require(boolean found, String table) {
            if (!found) {
                throw new IllegalStateException("a " + table + " row the load made is missing");
            }
        }
    }
}
