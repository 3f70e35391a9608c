package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.AbortException;
import io.selcc.cache.AccessMode;
import io.selcc.storage.TupleView;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random transactions for {@link SerializabilityChecker}: point reads, updates, inserts, deletes,
 * primary-key range scans (forward and backward) and secondary-index scans, from several threads
 * on several compute nodes, over a small key space so they conflict.
 *
 * <p>Every attempt has its own id (thread, attempt), written into the rows it writes: a write that
 * an aborted attempt left behind is a version no committed transaction wrote, which the checker
 * rejects. Scans record every key of their range, absent ones as {@link SerializabilityChecker#ABSENT}
 * (predicate reads). Odd keys exist at the start and may be deleted once; even keys do not and may
 * be inserted once: each key has at most one absent version, as the checker needs.
 */
final class RandomHistory {
    /** The shape of one run, drawn from its seed. */
    record Shape(long seed, AccessMode mode, int nodes, int threadsPerNode, int keys, int maxOpsPerTxn,
                 int txnsPerThread, int cacheFrames) {
        static Shape draw(long seed, AccessMode mode) {
            SplittableRandom r = new SplittableRandom(seed);
            return new Shape(seed, mode, 2 + r.nextInt(2), 1 + r.nextInt(2), 4 + r.nextInt(13), 1 + r.nextInt(5),
                40, r.nextBoolean() ? 32 : 256);
        }
    }

    /** What happened: committed transactions and the conflict aborts of all attempts. */
    record Outcome(int committed, long aborts, long predicateReads, long inserts, long deletes) {
    }

    private static final long MANY = Integer.MAX_VALUE;

    private RandomHistory() {
    }

    /**
     * Runs one history and checks it; throws AssertionError naming the shape (and seed) when the
     * history is not serializable, a worker failed, or a worker hung.
     */
    static Outcome runAndCheck(Supplier<Database> open, Shape shape) throws Exception {
        List<SerializabilityChecker.Committed> history = Collections.synchronizedList(new ArrayList<>());
        AtomicLong aborts = new AtomicLong();
        AtomicLong predicateReads = new AtomicLong();
        AtomicLong inserts = new AtomicLong();
        AtomicLong deletes = new AtomicLong();
        Set<Long> initiallyAbsent = new HashSet<>();
        try (Database db = open.get()) {
            DatabaseNode loader = db.node(0);
            Table accounts = loader.table("account");
            TxnResult<Object> load = loader.run(tx -> {
                for (long key = 1; key <= shape.keys(); key++) {
                    if (key % 2 == 1) {
                        ConcurrencyControlContractTest.insertAccount(tx, accounts, key, 0, branch(key));
                    }
                }
                return null;
            });
            assertTrue(load.committed(), "load: " + load);
            for (long key = 2; key <= shape.keys(); key += 2) {
                initiallyAbsent.add(key);
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int n = 0; n < shape.nodes(); n++) {
                DatabaseNode node = db.node(n);
                for (int t = 0; t < shape.threadsPerNode(); t++) {
                    long threadId = n * 16L + t + 1;
                    SplittableRandom random = new SplittableRandom(shape.seed() ^ (threadId * 0x9E3779B97F4A7C15L));
                    threads.add(Thread.ofPlatform().start(() -> {
                        try {
                            Worker worker = new Worker(node, shape, threadId, random);
                            for (int i = 0; i < shape.txnsPerThread(); i++) {
                                long[] plan = worker.plan();
                                TxnResult<SerializabilityChecker.Committed> r = node.run(tx -> worker.attempt(tx, plan));
                                aborts.addAndGet(r.attempts() - (r.committed() ? 1 : 0));
                                if (r.committed()) {
                                    SerializabilityChecker.Committed c = r.value();
                                    history.add(c);
                                    predicateReads.addAndGet(worker.lastPredicateReads);
                                    inserts.addAndGet(worker.lastInserts);
                                    deletes.addAndGet(worker.lastDeletes);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }));
                }
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(120));
                if (thread.isAlive()) {
                    throw new AssertionError("a worker hung: " + shape);
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("a worker failed: " + shape, failure.get());
            }
            // Every transaction ended: once the caches are flushed, no latch word may keep a bit or tag.
            db.cluster().flushCaches();
            List<String> busy = db.cluster().busyLatchWords(10);
            if (!busy.isEmpty()) {
                throw new AssertionError("latch words left busy " + busy + ": " + shape);
            }
        }
        assertTrue(!history.isEmpty(), "nothing committed: " + shape);
        try {
            SerializabilityChecker.check(history, initiallyAbsent);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + shape, e);
        }
        return new Outcome(history.size(), aborts.get(), predicateReads.get(), inserts.get(), deletes.get());
    }

    static int branch(long key) {
        return (int) (key % 3);
    }

    /** One thread's transactions; a plan is drawn once per transaction and replayed by every attempt. */
    private static final class Worker {
        private static final int READ = 0;
        private static final int WRITE = 1; // update if present; insert (even) or delete (odd) otherwise
        private static final int SCAN = 2;
        private static final int SCAN_BACKWARD = 3;
        private static final int SCAN_BRANCH = 4;

        private final DatabaseNode node;
        private final Table table;
        private final Index byBranch;
        private final Shape shape;
        private final long threadId;
        private final SplittableRandom random;
        private long attempts;
        long lastPredicateReads;
        long lastInserts;
        long lastDeletes;

        Worker(DatabaseNode node, Shape shape, long threadId, SplittableRandom random) {
            this.node = node;
            this.table = node.table("account");
            this.byBranch = node.index("account.by_branch");
            this.shape = shape;
            this.threadId = threadId;
            this.random = random;
        }

        /** Operations as triples {kind, a, b}. */
        long[] plan() {
            int ops = 1 + random.nextInt(shape.maxOpsPerTxn());
            long[] plan = new long[ops * 3];
            for (int i = 0; i < ops; i++) {
                int kind = random.nextInt(10);
                long a = 1 + random.nextInt(shape.keys());
                long b = 1 + random.nextInt(shape.keys());
                plan[i * 3] = kind < 3 ? READ : kind < 7 ? WRITE : kind < 8 ? SCAN : kind < 9 ? SCAN_BACKWARD : SCAN_BRANCH;
                plan[i * 3 + 1] = Math.min(a, b);
                plan[i * 3 + 2] = Math.max(a, b);
            }
            return plan;
        }

        SerializabilityChecker.Committed attempt(Transaction tx, long[] plan) {
            long id = (threadId << 32) | ++attempts; // every attempt its own id
            List<long[]> reads = new ArrayList<>();
            List<long[]> writes = new ArrayList<>();
            Set<Long> written = new HashSet<>();
            lastPredicateReads = 0;
            lastInserts = 0;
            lastDeletes = 0;
            for (int i = 0; i < plan.length; i += 3) {
                int kind = (int) plan[i];
                long low = plan[i + 1];
                long high = plan[i + 2];
                switch (kind) {
                    case READ -> {
                        TupleView row = tx.get(table, low);
                        read(reads, written, low, row == null ? SerializabilityChecker.ABSENT : row.getMoney(
                            ConcurrencyControlContractTest.BALANCE));
                        if (row == null) {
                            lastPredicateReads++;
                        }
                    }
                    case WRITE -> write(tx, id, low, reads, writes, written);
                    case SCAN, SCAN_BACKWARD -> {
                        long[] seen = absentRange(low, high);
                        RowVisitor visitor = row -> {
                            seen[(int) (row.getLong(ConcurrencyControlContractTest.ID) - low)] =
                                row.getMoney(ConcurrencyControlContractTest.BALANCE);
                            return true;
                        };
                        if (kind == SCAN) {
                            tx.scan(table.primaryIndex(), low, high, (int) MANY, visitor);
                        } else {
                            tx.scanBackward(table.primaryIndex(), low, high, (int) MANY, visitor);
                        }
                        for (int k = 0; k < seen.length; k++) {
                            read(reads, written, low + k, seen[k]);
                        }
                        lastPredicateReads++;
                    }
                    case SCAN_BRANCH -> {
                        int branch = branch(low);
                        long[] seen = absentRange(1, shape.keys());
                        tx.scan(byBranch, branch, branch, (int) MANY, row -> {
                            seen[(int) (row.getLong(ConcurrencyControlContractTest.ID) - 1)] =
                                row.getMoney(ConcurrencyControlContractTest.BALANCE);
                            return true;
                        });
                        for (long key = 1; key <= shape.keys(); key++) {
                            if (branch(key) == branch) {
                                read(reads, written, key, seen[(int) (key - 1)]);
                            }
                        }
                        lastPredicateReads++;
                    }
                    default -> throw new IllegalStateException("kind " + kind);
                }
            }
            return new SerializabilityChecker.Committed(id, reads, writes);
        }

        private void write(Transaction tx, long id, long key, List<long[]> reads, List<long[]> writes, Set<Long> written) {
            TupleView row = tx.get(table, key);
            long seen = row == null ? SerializabilityChecker.ABSENT : row.getMoney(ConcurrencyControlContractTest.BALANCE);
            boolean mine = written.contains(key);
            if (row != null && key % 2 == 1 && random.nextInt(3) == 0 && !mine) {
                if (!tx.delete(table, key)) {
                    throw gone(key);
                }
                writes.add(new long[] {key, seen, 1});
                written.add(key);
                lastDeletes++;
            } else if (row != null) {
                if (!tx.update(table, key, r -> r.setMoney(ConcurrencyControlContractTest.BALANCE, id))) {
                    throw gone(key);
                }
                if (!mine) {
                    writes.add(new long[] {key, seen, 0});
                    written.add(key);
                }
            } else if (key % 2 == 0 && !mine) {
                boolean inserted = tx.insert(table, r -> {
                    r.setLong(ConcurrencyControlContractTest.ID, key);
                    r.setMoney(ConcurrencyControlContractTest.BALANCE, id);
                    r.setInt(ConcurrencyControlContractTest.BRANCH, branch(key));
                    r.setString(ConcurrencyControlContractTest.OWNER, "owner-" + key);
                });
                if (!inserted) {
                    // Found absent a moment ago, taken now: an optimistic read that commit would reject.
                    throw new AbortException(AbortReason.STALE_READ, "key " + key + " appeared");
                }
                writes.add(new long[] {key, 0, 0}); // overwrites the initial absence
                written.add(key);
                lastInserts++;
            } else {
                read(reads, written, key, seen); // nothing to write: a point read of the absence
                lastPredicateReads++;
            }
        }

        /**
         * Read a moment ago, gone now: an optimistic algorithm's inconsistent view, which its commit
         * would reject (the absence is a predicate read it validates); end the attempt here.
         */
        private static AbortException gone(long key) {
            return new AbortException(AbortReason.STALE_READ, "key " + key + " vanished");
        }

        /** A read of another transaction's version; reads of own writes are not conflicts. */
        private static void read(List<long[]> reads, Set<Long> written, long key, long version) {
            if (!written.contains(key)) {
                reads.add(new long[] {key, version});
            }
        }

        private static long[] absentRange(long low, long high) {
            long[] seen = new long[(int) (high - low + 1)];
            java.util.Arrays.fill(seen, SerializabilityChecker.ABSENT);
            return seen;
        }
    }
}
