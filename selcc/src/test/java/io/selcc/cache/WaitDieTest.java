package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.fabric.LatencyModel;
import io.selcc.fabric.LocalFabric;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wait-die latches ({@link ComputeNode#lockOrDie}) as 2PL locks: bank transfers between a few accounts
 * (one GCL each), both accounts taken in X in random order, and audits that take every account in S in
 * random order and must see the total. Several compute nodes x threads (platform or virtual), so both
 * kinds of conflict occur: a frame latched by a thread of the same node, and a line another node holds
 * (judged by the holder from the age its invalidation carries).
 *
 * <p>Checked: no hang (a deadlock would hold until the timeout), waits and dies both happened, locally
 * and across nodes, every wait had the waiter older than the holders (through the package-private
 * {@link WaitDie.Seam}), and the money adds up. Planted once: flipping the comparison in
 * {@link WaitDie#mustDie} ({@code <} to {@code >}) fails the "younger never waits for older" check here.
 */
class WaitDieTest {
    private static final int ACCOUNTS = 6;
    private static final long OPENING_BALANCE = 1_000;

    @ParameterizedTest(name = "virtualThreads={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void transfersNeverDeadlockAndYoungerNeverWaitsForOlder(boolean virtualThreads) throws Exception {
        run(3, 3, 400, virtualThreads, false, 11L + (virtualThreads ? 1 : 0));
    }

    /** The same with every invalidation and answer through the codec, as between processes (the age travels). */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void serializedMessagesCarryTheAge() throws Exception {
        run(3, 2, 300, false, true, 21L);
    }

    @Tag("stress")
    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void longRun() throws Exception {
        run(4, 8, 20_000, true, true, 31L);
    }

    private static void run(int nodes, int threads, int transfersPerThread, boolean virtualThreads, boolean serialize,
                            long seed) throws Exception {
        System.out.println("WaitDieTest seed=" + seed + " nodes=" + nodes + " threads=" + threads + " virtual="
            + virtualThreads + " serialized=" + serialize);
        LocalFabric fabric = new LocalFabric(1, 16L << 20, nodes, LatencyModel.OFF);
        fabric.serializeMessages(serialize);
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(nodes).fabric(fabric).cacheFrames(64)
            .threadsPerNode(threads).build()) {
            long[] accounts = new long[ACCOUNTS];
            for (int i = 0; i < ACCOUNTS; i++) {
                accounts[i] = cluster.node(i % nodes).allocate();
                GclHandle h = cluster.node(i % nodes).xLock(accounts[i]);
                h.putLong(0, OPENING_BALANCE);
                cluster.node(i % nodes).unlock(h);
            }
            long total = OPENING_BALANCE * ACCOUNTS;

            ConcurrentLinkedQueue<String> wrongWaits = new ConcurrentLinkedQueue<>();
            LongAdder localWaits = new LongAdder();
            LongAdder remoteWaits = new LongAdder();
            LongAdder localDies = new LongAdder();
            LongAdder remoteDies = new LongAdder();
            WaitDie.Seam seam = new WaitDie.Seam() {
                @Override
                public void waits(long waiterAge, long oldestHolderAge, boolean remote) {
                    (remote ? remoteWaits : localWaits).increment();
                    if (!(waiterAge < oldestHolderAge)) {
                        wrongWaits.add("waiter=" + waiterAge + " holder=" + oldestHolderAge + " remote=" + remote);
                    }
                }

                @Override
                public void dies(long requesterAge, long oldestHolderAge, boolean remote) {
                    (remote ? remoteDies : localDies).increment();
                }
            };
            for (int n = 0; n < nodes; n++) {
                ((SelccNode) cluster.node(n)).waitDieSeam = seam;
            }

            AtomicLong ages = new AtomicLong(); // the test's age source: unique, increasing
            AtomicReference<Throwable> failure = new AtomicReference<>();
            LongAdder retries = new LongAdder();
            List<Thread> workers = new ArrayList<>();
            for (int n = 0; n < nodes; n++) {
                ComputeNode node = cluster.node(n);
                for (int t = 0; t < threads; t++) {
                    SplittableRandom random = new SplittableRandom(seed * 1_000 + n * 31L + t);
                    Runnable work = () -> {
                        try {
                            for (int i = 0; i < transfersPerThread && failure.get() == null; i++) {
                                long age = ages.incrementAndGet(); // kept across this transfer's retries
                                boolean audit = random.nextInt(8) == 0;
                                int from = random.nextInt(ACCOUNTS);
                                int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                                long amount = 1 + random.nextInt(50);
                                int[] order = audit ? shuffled(random) : null;
                                for (int attempt = 1; !(audit ? audit(node, accounts, order, age, total)
                                    : transfer(node, accounts[from], accounts[to], amount, age)); attempt++) {
                                    retries.increment();
                                    // A restart's backoff, jittered and doubling as the engine's retry loop's
                                    // (not synchronisation): without it the dying threads crowd out the older
                                    // ones they die for.
                                    backOff(1 + random.nextLong(1_000L << Math.min(attempt, 8)));
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    };
                    String name = "waitdie-" + n + "-" + t;
                    workers.add(virtualThreads ? Thread.ofVirtual().name(name).start(work)
                        : Thread.ofPlatform().name(name).start(work));
                }
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("worker failed (seed=" + seed + ")", failure.get());
            }

            assertEquals(List.of(), List.copyOf(wrongWaits),
                "a younger transaction waited for an older one (seed=" + seed + ")");
            long sum = 0;
            for (long account : accounts) {
                GclHandle h = cluster.node(0).sLock(account);
                sum += h.getLong(0);
                cluster.node(0).unlock(h);
            }
            assertEquals(total, sum, "money created or lost (seed=" + seed + ")");

            CounterSnapshot counters = cluster.totalCounters();
            System.out.println("WaitDieTest seed=" + seed + " retries=" + retries.sum() + " localWaits=" + localWaits.sum()
                + " remoteWaits=" + remoteWaits.sum() + " localDies=" + localDies.sum() + " remoteDies=" + remoteDies.sum()
                + " counters: waits=" + counters.get(Counter.WAIT_DIE_WAITS) + " dies=" + counters.get(Counter.WAIT_DIE_DIES)
                + " timeouts=" + counters.get(Counter.WAIT_DIE_TIMEOUTS));
            assertTrue(counters.get(Counter.WAIT_DIE_WAITS) > 0, "no acquire waited (seed=" + seed + "): " + counters);
            assertTrue(counters.get(Counter.WAIT_DIE_DIES) > 0, "no acquire died (seed=" + seed + "): " + counters);
            assertTrue(localWaits.sum() > 0 && localDies.sum() > 0,
                "local conflicts not exercised: waits=" + localWaits.sum() + " dies=" + localDies.sum() + " (seed=" + seed + ")");
            assertTrue(remoteWaits.sum() > 0 && remoteDies.sum() > 0,
                "cross-node conflicts not exercised: waits=" + remoteWaits.sum() + " dies=" + remoteDies.sum()
                    + " (seed=" + seed + ")");
            assertEquals(counters.get(Counter.WAIT_DIE_DIES) + counters.get(Counter.WAIT_DIE_TIMEOUTS), retries.sum(),
                "every retry follows one die or timeout (seed=" + seed + ")");
        }
    }

    /** Parks about {@code nanos}; a second park when a permit left by a reply on this thread ended the first. */
    private static void backOff(long nanos) {
        long until = System.nanoTime() + nanos;
        for (int parks = 0; parks < 3 && until - System.nanoTime() > 0; parks++) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }

    private static int[] shuffled(SplittableRandom random) {
        int[] order = new int[ACCOUNTS];
        for (int i = 0; i < ACCOUNTS; i++) {
            order[i] = i;
        }
        for (int i = ACCOUNTS - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }

    /** Moves {@code amount} under both X latches, taken in the order given; false if it died (nothing held). */
    private static boolean transfer(ComputeNode node, long from, long to, long amount, long age) {
        GclHandle first = node.lockOrDie(from, true, age);
        if (first == null) {
            return false;
        }
        // The work between two row accesses: other threads, virtual ones on the same carrier included,
        // run into the latch held meanwhile (without it virtual threads rarely interleave here).
        Thread.yield();
        GclHandle second = node.lockOrDie(to, true, age);
        if (second == null) {
            node.unlock(first);
            return false;
        }
        first.putLong(0, first.getLong(0) - amount);
        second.putLong(0, second.getLong(0) + amount);
        node.unlock(second);
        node.unlock(first);
        return true;
    }

    /** Every account in S in {@code order}: under 2PL the balances must add up; false if it died. */
    private static boolean audit(ComputeNode node, long[] accounts, int[] order, long age, long total) {
        GclHandle[] held = new GclHandle[order.length];
        int taken = 0;
        try {
            long sum = 0;
            for (int index : order) {
                GclHandle h = node.lockOrDie(accounts[index], false, age);
                if (h == null) {
                    return false;
                }
                held[taken++] = h;
                sum += h.getLong(0);
            }
            assertEquals(total, sum, "an audit under S latches saw a transfer half done");
            return true;
        } finally {
            for (int i = 0; i < taken; i++) {
                node.unlock(held[i]);
            }
        }
    }
}
