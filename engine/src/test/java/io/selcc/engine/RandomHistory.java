package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.AbortException;
import io.selcc.cache.AccessMode;
import io.selcc.engine.index.BLinkTreeRepair;
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
 * <p>Two families of shapes. {@link Shape#draw}: 4-16 keys in 2 KiB GCLs, all in one B-link leaf.
 * {@link Shape#drawLeaves}: 60-120 keys in 512-byte GCLs (26 entries a leaf), so both indexes span
 * several leaves from the load on and split further while the history runs; its transactions also
 * move rows (an update that changes the row's secondary key, a delete and re-insert of a key in one
 * transaction, possibly under another secondary key) and audit every leaf (scans of the whole key
 * range, forward and backward, of the primary index and of every secondary key). The run asserts
 * that the indexes really spanned several leaves and split during the history, and that audits in
 * both directions committed.
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
                 int txnsPerThread, int cacheFrames, int gclSize, boolean movers) {
        /** A small key space in one leaf of the default 2 KiB GCL; no movers. */
        static Shape draw(long seed, AccessMode mode) {
            SplittableRandom r = new SplittableRandom(seed);
            return new Shape(seed, mode, 2 + r.nextInt(2), 1 + r.nextInt(2), 4 + r.nextInt(13), 1 + r.nextInt(5),
                40, r.nextBoolean() ? 32 : 256, DEFAULT_GCL, false);
        }

        /**
         * 60-120 keys in 512-byte GCLs: the primary index holds 30-60 keys after the load (two or three
         * leaves of 26) and up to 120 by the end, the secondary index as many (key, record id) pairs;
         * movers and whole-range audits.
         */
        static Shape drawLeaves(long seed, AccessMode mode) {
            SplittableRandom r = new SplittableRandom(seed);
            return new Shape(seed, mode, 2 + r.nextInt(2), 1 + r.nextInt(2), 60 + r.nextInt(61), 1 + r.nextInt(4),
                50, r.nextBoolean() ? 48 : 256, SMALL_GCL, true);
        }
    }

    static final int DEFAULT_GCL = 2048;
    static final int SMALL_GCL = 512;

    /**
     * What happened: committed transactions and the conflict aborts of all attempts; for leaf shapes
     * also the leaves of each index after the load and at the end, and the committed whole-range
     * audits forward and backward, and the committed moves (secondary key changed, key re-inserted).
     */
    record Outcome(int committed, long aborts, long predicateReads, long inserts, long deletes,
                   int primaryLeavesLoaded, int primaryLeaves, int secondaryLeavesLoaded, int secondaryLeaves,
                   long auditsForward, long auditsBackward, long branchMoves, long reinserts) {
        /** Splits happened while the history ran (not only in the load). */
        boolean splitDuringRun() {
            return primaryLeaves > primaryLeavesLoaded || secondaryLeaves > secondaryLeavesLoaded;
        }
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
        AtomicLong auditsForward = new AtomicLong();
        AtomicLong auditsBackward = new AtomicLong();
        AtomicLong branchMoves = new AtomicLong();
        AtomicLong reinserts = new AtomicLong();
        Set<Long> initiallyAbsent = new HashSet<>();
        int[] leaves = new int[4]; // primary after load, primary at the end, secondary after load, at the end
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
            if (shape.movers()) {
                leaves[0] = leafCount(loader, accounts.primaryIndex());
                leaves[2] = leafCount(loader, loader.index("account.by_branch"));
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
                                    if (worker.anomaly != null) {
                                        throw new AssertionError("a committed transaction saw " + worker.anomaly);
                                    }
                                    SerializabilityChecker.Committed c = r.value();
                                    history.add(c);
                                    predicateReads.addAndGet(worker.lastPredicateReads);
                                    inserts.addAndGet(worker.lastInserts);
                                    deletes.addAndGet(worker.lastDeletes);
                                    auditsForward.addAndGet(worker.lastAuditsForward);
                                    auditsBackward.addAndGet(worker.lastAuditsBackward);
                                    branchMoves.addAndGet(worker.lastBranchMoves);
                                    reinserts.addAndGet(worker.lastReinserts);
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
            if (shape.movers()) {
                leaves[1] = leafCount(loader, accounts.primaryIndex());
                leaves[3] = leafCount(loader, loader.index("account.by_branch"));
            }
        }
        assertTrue(!history.isEmpty(), "nothing committed: " + shape);
        try {
            SerializabilityChecker.check(history, initiallyAbsent);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + shape, e);
        }
        return new Outcome(history.size(), aborts.get(), predicateReads.get(), inserts.get(), deletes.get(),
            leaves[0], leaves[1], leaves[2], leaves[3], auditsForward.get(), auditsBackward.get(), branchMoves.get(),
            reinserts.get());
    }

    /**
     * The leaves of an index as memory holds them (splits are written through before their latches
     * go), walked along the right links from the leftmost; with no transaction running.
     */
    static int leafCount(DatabaseNode node, Index index) {
        int[] count = new int[1];
        BLinkTreeRepair.forEachLeafInMemory(index.tree(), node.computeNode(), leaf -> count[0]++);
        return count[0];
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
        /** Update that gives the row another secondary key (branch). */
        private static final int MOVE_BRANCH = 5;
        /** Delete of the row and insert of its key anew (another record id), under a random branch. */
        private static final int REINSERT = 6;
        /** Primary index from the lowest to the highest possible key: every leaf; b = 1 backward. */
        private static final int AUDIT = 7;
        /** Secondary index over every branch: one scan of all (b = 0, 1 backward) or one per branch (b = 2). */
        private static final int AUDIT_BRANCHES = 8;

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
        long lastAuditsForward;
        long lastAuditsBackward;
        long lastBranchMoves;
        long lastReinserts;
        /**
         * What the last attempt saw that no serial history shows (a row twice, out of order, under a
         * key it does not have); fails the run if that attempt commits. An optimistic attempt may see
         * it and be rejected at commit, so it is not an error by itself.
         */
        String anomaly;
        /** Keys the current attempt inserted (that were absent when it began). */
        private final Set<Long> insertedHere = new HashSet<>();

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
                long a = 1 + random.nextInt(shape.keys());
                long b = 1 + random.nextInt(shape.keys());
                int kind;
                if (shape.movers()) {
                    int k = random.nextInt(20);
                    kind = k < 3 ? READ : k < 9 ? WRITE : k < 11 ? MOVE_BRANCH : k < 13 ? REINSERT : k < 15 ? SCAN
                        : k < 16 ? SCAN_BACKWARD : k < 18 ? AUDIT : AUDIT_BRANCHES;
                    if (kind == AUDIT) {
                        a = 0;
                        b = random.nextInt(2);
                    } else if (kind == AUDIT_BRANCHES) {
                        a = 0;
                        b = random.nextInt(3);
                    }
                } else {
                    int k = random.nextInt(10);
                    kind = k < 3 ? READ : k < 7 ? WRITE : k < 8 ? SCAN : k < 9 ? SCAN_BACKWARD : SCAN_BRANCH;
                }
                plan[i * 3] = kind;
                plan[i * 3 + 1] = kind >= AUDIT ? a : Math.min(a, b);
                plan[i * 3 + 2] = kind >= AUDIT ? b : Math.max(a, b);
            }
            return plan;
        }

        SerializabilityChecker.Committed attempt(Transaction tx, long[] plan) {
            long id = (threadId << 32) | ++attempts; // every attempt its own id
            List<long[]> reads = new ArrayList<>();
            List<long[]> writes = new ArrayList<>();
            Set<Long> written = new HashSet<>();
            insertedHere.clear();
            lastPredicateReads = 0;
            lastInserts = 0;
            lastDeletes = 0;
            lastAuditsForward = 0;
            lastAuditsBackward = 0;
            lastBranchMoves = 0;
            lastReinserts = 0;
            anomaly = null;
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
                    case MOVE_BRANCH, REINSERT -> move(tx, id, low, kind == REINSERT, reads, writes, written);
                    case SCAN, SCAN_BACKWARD -> {
                        boolean forward = kind == SCAN;
                        // Leaf shapes also stop after a few rows (the lowest or highest keys of a range):
                        // the predicate then ends at the last row delivered, maybe at a leaf's edge.
                        int limit = shape.movers() && random.nextInt(3) == 0 ? 1 + random.nextInt(3) : (int) MANY;
                        long[] seen = absentRange(low, high);
                        long[] last = {forward ? high : low};
                        int[] delivered = {0};
                        RowVisitor visitor = row -> {
                            long key = row.getLong(ConcurrencyControlContractTest.ID);
                            if (key < low || key > high) {
                                anomaly = anomaly != null ? anomaly : "key " + key + " in a scan of [" + low + ", " + high + "]";
                                return false;
                            }
                            seen[(int) (key - low)] = row.getMoney(ConcurrencyControlContractTest.BALANCE);
                            if (++delivered[0] == limit) {
                                last[0] = key;
                            }
                            return true;
                        };
                        if (forward) {
                            tx.scan(table.primaryIndex(), low, high, limit, visitor);
                        } else {
                            tx.scanBackward(table.primaryIndex(), low, high, limit, visitor);
                        }
                        // Read: the keys up to the last row delivered, all of the range if fewer than the limit.
                        long from = forward ? low : last[0];
                        long to = forward ? last[0] : high;
                        for (long key = from; key <= to; key++) {
                            read(reads, written, key, seen[(int) (key - low)]);
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
                    case AUDIT -> audit(tx, high == 0, reads, written);
                    case AUDIT_BRANCHES -> auditBranches(tx, (int) high, reads, written);
                    default -> throw new IllegalStateException("kind " + kind);
                }
            }
            return new SerializabilityChecker.Committed(id, reads, writes);
        }

        /**
         * Reads every row through the primary index, over every leaf from the lowest to the highest
         * possible key: each key's version, or its absence (a predicate read of the whole table).
         */
        private void audit(Transaction tx, boolean forward, List<long[]> reads, Set<Long> written) {
            Audit audit = new Audit(forward ? "forward audit" : "backward audit");
            RowVisitor visitor = row -> {
                long key = row.getLong(ConcurrencyControlContractTest.ID);
                if (audit.previous != 0 && (forward ? key <= audit.previous : key >= audit.previous)) {
                    audit.wrong("key " + key + " after key " + audit.previous);
                }
                audit.previous = key;
                audit.saw(row);
                return true;
            };
            if (forward) {
                tx.scan(table.primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, (int) MANY, visitor);
                lastAuditsForward++;
            } else {
                tx.scanBackward(table.primaryIndex(), Long.MIN_VALUE, Long.MAX_VALUE, (int) MANY, visitor);
                lastAuditsBackward++;
            }
            audit.record(reads, written);
        }

        /**
         * Reads every row through the secondary index, every branch: all of them in one scan forward
         * ({@code how} 0) or backward (1), or branch by branch in a random order and direction (2). A row
         * is under exactly one branch in any state, so each key is seen once with its version or not at
         * all (absent): a move between branches that a scan saw half of shows as a row seen twice, or
         * as an existing row missed (which the checker rejects: no one deleted it).
         */
        private void auditBranches(Transaction tx, int how, List<long[]> reads, Set<Long> written) {
            Audit audit = new Audit(how == 0 ? "forward branch audit" : how == 1 ? "backward branch audit"
                : "branch-by-branch audit");
            if (how < 2) {
                boolean forward = how == 0;
                RowVisitor visitor = row -> {
                    int branch = row.getInt(ConcurrencyControlContractTest.BRANCH);
                    if (audit.previous != 0 && (forward ? branch < audit.previous - 1 : branch > audit.previous - 1)) {
                        audit.wrong("branch " + branch + " after branch " + (audit.previous - 1));
                    }
                    audit.previous = branch + 1;
                    audit.saw(row);
                    return true;
                };
                if (forward) {
                    tx.scan(byBranch, Long.MIN_VALUE, Long.MAX_VALUE, (int) MANY, visitor);
                    lastAuditsForward++;
                } else {
                    tx.scanBackward(byBranch, Long.MIN_VALUE, Long.MAX_VALUE, (int) MANY, visitor);
                    lastAuditsBackward++;
                }
            } else {
                int first = random.nextInt(3);
                int step = 1 + random.nextInt(2);
                for (int j = 0; j < 3; j++) {
                    int branch = (first + j * step) % 3;
                    RowVisitor visitor = row -> {
                        if (row.getInt(ConcurrencyControlContractTest.BRANCH) != branch) {
                            audit.wrong("a row of branch " + row.getInt(ConcurrencyControlContractTest.BRANCH)
                                + " in the scan of branch " + branch);
                        }
                        audit.saw(row);
                        return true;
                    };
                    if (random.nextBoolean()) {
                        tx.scan(byBranch, branch, branch, (int) MANY, visitor);
                        lastAuditsForward++;
                    } else {
                        tx.scanBackward(byBranch, branch, branch, (int) MANY, visitor);
                        lastAuditsBackward++;
                    }
                }
            }
            audit.record(reads, written);
        }

        /** The rows one audit saw, by key. */
        private final class Audit {
            final String what;
            final long[] seen = absentRange(1, shape.keys());
            long previous;

            Audit(String what) {
                this.what = what;
            }

            void saw(TupleView row) {
                long key = row.getLong(ConcurrencyControlContractTest.ID);
                if (key < 1 || key > shape.keys()) {
                    wrong("key " + key + ", outside the key space");
                    return;
                }
                if (seen[(int) (key - 1)] != SerializabilityChecker.ABSENT) {
                    wrong("key " + key + " twice");
                }
                seen[(int) (key - 1)] = row.getMoney(ConcurrencyControlContractTest.BALANCE);
            }

            void wrong(String what) {
                if (anomaly == null) {
                    anomaly = this.what + ": " + what;
                }
            }

            void record(List<long[]> reads, Set<Long> written) {
                for (int k = 0; k < seen.length; k++) {
                    read(reads, written, k + 1, seen[k]);
                }
                lastPredicateReads++;
            }
        }

        /**
         * Moves a row in an index without changing its key's existence: an update of its branch (the
         * secondary index loses one entry and gains another), or a delete and insert of the key in one
         * transaction (the primary index entry changes record id, the secondary entry changes too). To
         * the others it is an update of the key; an absent key is a point read of the absence.
         */
        private void move(Transaction tx, long id, long key, boolean reinsert, List<long[]> reads, List<long[]> writes,
                          Set<Long> written) {
            TupleView row = tx.get(table, key);
            if (row == null) {
                read(reads, written, key, SerializabilityChecker.ABSENT);
                lastPredicateReads++;
                return;
            }
            long seen = row.getMoney(ConcurrencyControlContractTest.BALANCE);
            int from = row.getInt(ConcurrencyControlContractTest.BRANCH);
            if (reinsert) {
                int to = random.nextInt(3);
                if (!tx.delete(table, key)) {
                    throw gone(key);
                }
                if (!tx.insert(table, r -> {
                    r.setLong(ConcurrencyControlContractTest.ID, key);
                    r.setMoney(ConcurrencyControlContractTest.BALANCE, id);
                    r.setInt(ConcurrencyControlContractTest.BRANCH, to);
                    r.setString(ConcurrencyControlContractTest.OWNER, "again-" + key);
                })) {
                    if (insertedHere.contains(key)) {
                        // The row was this attempt's own insert, so its delete left no mark and the re-insert
                        // looked in the index again: another transaction committed the key meanwhile. The
                        // first insert's absence read (under OCC an optimistic one) fails at commit.
                        throw new AbortException(AbortReason.STALE_READ, "key " + key + " appeared");
                    }
                    throw new AssertionError("key " + key + " refused its re-insert after its delete in one transaction");
                }
                lastReinserts++;
            } else {
                int to = (from + 1 + random.nextInt(2)) % 3;
                if (!tx.update(table, key, r -> {
                    r.setMoney(ConcurrencyControlContractTest.BALANCE, id);
                    r.setInt(ConcurrencyControlContractTest.BRANCH, to);
                })) {
                    throw gone(key);
                }
                lastBranchMoves++;
            }
            if (!written.contains(key)) {
                writes.add(new long[] {key, seen, 0});
                written.add(key);
            }
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
                insertedHere.add(key);
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
