package io.selcc.twopc;

import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.Database;
import io.selcc.fabric.LocalFabric;
import io.selcc.fabric.MessageInterceptor.Fate;
import io.selcc.wal.Wal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Money moves between accounts owned by different compute nodes while the network loses and duplicates
 * messages, participants vote no and coordinators die before or after deciding: the total never
 * changes, so no transaction was ever partly committed.
 *
 * <p>Shown to fail on a planted bug: a participant that commits as soon as it has voted yes (releasing
 * at prepare, without waiting for the decision) broke the total within the first run (a lost yes made
 * the coordinator abort while the participant kept the money).
 */
@Timeout(180)
class BankInvariantTest {
    private static final int NODES = 3;
    private static final int ACCOUNTS = 4;
    private static final int TRANSFERS_PER_NODE = 300;

    @TempDir
    Path dir;

    @Test
    void theTotalHoldsUnderEveryFault() throws Exception {
        long seed = System.nanoTime();
        System.out.println("BankInvariantTest seed=" + seed);
        SplittableRandom faultDice = new SplittableRandom(seed);
        Map<Fate, AtomicLong> fates = new EnumMap<>(Fate.class);
        for (Fate f : Fate.values()) {
            fates.put(f, new AtomicLong());
        }
        AtomicLong noVotes = new AtomicLong();
        AtomicLong deaths = new AtomicLong();
        TwoPcFaults faults = new TwoPcFaults() {
            @Override
            public boolean voteNo(int participant, long gtid) {
                boolean no = roll(faultDice) < 30;
                if (no) {
                    noVotes.incrementAndGet();
                }
                return no;
            }

            @Override
            public CoordinatorDeath coordinatorDeath(int coordinator, long gtid) {
                int r = roll(faultDice);
                if (r < 10) {
                    deaths.incrementAndGet();
                    return r < 5 ? CoordinatorDeath.BEFORE_DECISION : CoordinatorDeath.AFTER_DECISION;
                }
                return CoordinatorDeath.NONE;
            }
        };
        try (Wal wal = Wal.open(dir.resolve("wal"), Wal.Mode.ASYNC); Database db = Bank.database(NODES, wal);
             PartitionedDatabase p = PartitionedDatabase.builder(db).logDirectory(dir).timeout(Duration.ofMillis(20))
                 .faults(faults).build()) {
            Bank.open(db, ACCOUNTS);
            // Every message and reply crosses its codec, as between processes.
            ((LocalFabric) db.cluster().fabric()).serializeMessages(true);
            ((LocalFabric) db.cluster().fabric()).interceptMessages((from, to, kind, request) -> {
                int r = roll(faultDice);
                Fate fate = r < 15 ? Fate.LOSE_REQUEST : r < 30 ? Fate.LOSE_REPLY : r < 60 ? Fate.DUPLICATE : Fate.DELIVER;
                fates.get(fate).incrementAndGet();
                return fate;
            });
            ExecutorService workers = Executors.newFixedThreadPool(NODES);
            List<Future<long[]>> results = new ArrayList<>();
            for (int n = 0; n < NODES; n++) {
                int home = n;
                long workerSeed = seed + n;
                results.add(workers.submit(() -> transfers(p, home, new SplittableRandom(workerSeed))));
            }
            workers.shutdown();
            long committed = 0;
            long unknown = 0;
            for (Future<long[]> f : results) {
                long[] r = f.get(150, TimeUnit.SECONDS); // a worker's exception fails the test here
                assertEquals(TRANSFERS_PER_NODE, r[0] + r[1], "the worker finished its share");
                committed += r[0];
                unknown += r[1];
            }
            ((LocalFabric) db.cluster().fabric()).interceptMessages(null);
            for (int n = 0; n < NODES; n++) {
                p.recoverCoordinator(n); // one that died last has nobody left to bring it back
            }
            for (int n = 0; n < NODES; n++) {
                assertTrue(p.awaitIdle(n, Duration.ofSeconds(60)), "node " + n + " still has branches");
            }
            assertEquals(NODES * ACCOUNTS * Bank.START, Bank.total(db, ACCOUNTS), "money created or lost: seed=" + seed);

            TwoPcStats s = p.stats();
            System.out.println("BankInvariantTest committed=" + committed + " unknownOutcome=" + unknown + " " + s
                + " fates=" + fates + " noVotes=" + noVotes + " deaths=" + deaths);
            // What the test is about really happened.
            assertTrue(s.distributedCommits() > 100, s.toString());
            assertTrue(s.distributedAborts() > 10, s.toString());
            assertTrue(noVotes.get() > 0 && deaths.get() > 0, "no votes " + noVotes + ", deaths " + deaths);
            for (Fate f : Fate.values()) {
                assertTrue(fates.get(f).get() > 0, "no message was " + f);
            }
            assertTrue(s.inquiries() > 0, s.toString());
        }
    }

    private static int roll(SplittableRandom dice) {
        synchronized (dice) {
            return dice.nextInt(1000);
        }
    }

    /** A worker's share: each transfer retried until it commits or its outcome is unknown (its coordinator died). */
    private static long[] transfers(PartitionedDatabase p, int home, SplittableRandom random) {
        long committed = 0;
        long unknown = 0;
        for (int i = 0; i < TRANSFERS_PER_NODE; i++) {
            long from = random.nextInt(ACCOUNTS);
            int toNode = random.nextInt(NODES);
            long to = random.nextInt(ACCOUNTS);
            boolean threeWay = random.nextInt(4) == 0;
            int alsoNode = (home + 1 + random.nextInt(NODES - 1)) % NODES;
            long cents = 1 + random.nextInt(100_00);
            while (true) {
                DistributedTransaction tx = p.begin(home);
                try {
                    Bank.transfer(tx, home, from, toNode, to, cents);
                    if (threeWay) {
                        Bank.transfer(tx, home, from, alsoNode, (to + 1) % ACCOUNTS, cents / 2);
                    }
                    CommitOutcome outcome = tx.commit();
                    if (outcome.committed()) {
                        committed++;
                        break;
                    }
                } catch (AbortException e) {
                    // rolled back everywhere already: try again
                } catch (CoordinatorFailedException e) {
                    unknown++;
                    p.recoverCoordinator(home);
                    break;
                } finally {
                    tx.close();
                }
            }
        }
        return new long[] {committed, unknown};
    }
}
