package io.selcc.twopc;

import io.selcc.engine.Database;
import io.selcc.wal.Recovery;
import io.selcc.wal.Wal;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * The process {@link PartitionedCrashTest} kills: recovers the bank kept in a data directory, logs with
 * {@code --wal sync} and forced two-phase-commit records, runs transfers between partitions on every
 * node, and once {@value #WARM_TRANSFERS} of them committed, moves one cent between the two marker
 * accounts (node 0's and node 1's account {@link PartitionedCrashTest#MARKER}) in a distributed
 * transaction that stops at the point named on the command line: {@code prepare} (node 1's branch
 * forced its prepare record, no vote sent) or {@code decision} (node 0 forced its commit decision, told
 * nobody). It prints {@code FROZEN} then and waits, its transfers still running, to be killed.
 *
 * <p>Arguments: data directory, {@code prepare|decision}, seed, {@code sync|async} (async: the commit
 * logs acknowledge once appended and the two-phase-commit records are appended, not forced, as
 * {@code tpcc run --wal async} has them).
 */
public final class PartitionedCrashChild {
    static final int WARM_TRANSFERS = 100;

    private PartitionedCrashChild() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        boolean atDecision = switch (args[1]) {
            case "prepare" -> false;
            case "decision" -> true;
            default -> throw new IllegalArgumentException("point must be prepare or decision: " + args[1]);
        };
        long seed = Long.parseLong(args[2]);
        boolean sync = args.length < 4 || "sync".equals(args[3]);
        Database db = Bank.database(PartitionedCrashTest.NODES);
        Recovery.recover(db, data);
        Wal wal = Wal.open(Recovery.logDirectory(data), sync ? Wal.Mode.SYNC : Wal.Mode.ASYNC);
        db.startLogging(wal);
        long[] frozen = {0};
        TwoPcFaults freeze = new TwoPcFaults() {
            @Override
            public void prepareForced(int participant, long gtid) {
                if (!atDecision && gtid == marker(frozen)) {
                    stopHere("prepare", gtid);
                }
            }

            @Override
            public void decisionForced(int coordinator, long gtid) {
                if (atDecision && gtid == marker(frozen)) {
                    stopHere("decision", gtid);
                }
            }
        };
        PartitionedDatabase p = PartitionedDatabase.builder(db).logDirectory(Recovery.logDirectory(data)).forceRecords(sync)
            .faults(freeze).build();
        CountDownLatch warm = new CountDownLatch(WARM_TRANSFERS);
        for (int n = 0; n < PartitionedCrashTest.NODES; n++) {
            int home = n;
            SplittableRandom random = new SplittableRandom(seed + n);
            Thread worker = new Thread(() -> {
                while (true) {
                    long from = random.nextInt(PartitionedCrashTest.ACCOUNTS);
                    int toNode = random.nextInt(PartitionedCrashTest.NODES);
                    long to = random.nextInt(PartitionedCrashTest.ACCOUNTS);
                    long cents = 1 + random.nextInt(100_00);
                    if (p.run(home, new io.selcc.engine.RetryPolicy(1_000_000, 0, 0, () -> 0L),
                            tx -> {
                                Bank.transfer(tx, home, from, toNode, to, cents);
                                return null;
                            }).committed()) {
                        warm.countDown();
                    }
                }
            }, "transfers-" + n);
            worker.setDaemon(true);
            worker.start();
        }
        warm.await();
        DistributedTransaction tx = p.begin(0);
        synchronized (frozen) {
            frozen[0] = tx.gtid();
        }
        Bank.transfer(tx, 0, PartitionedCrashTest.MARKER, 1, PartitionedCrashTest.MARKER, 1);
        tx.commit(); // never returns: the hook stops this thread (or node 1's branch, which this one waits for)
        System.out.println("NOT FROZEN: the marker committed");
        System.exit(3);
    }

    private static long marker(long[] frozen) {
        synchronized (frozen) {
            return frozen[0];
        }
    }

    /** Says where it stopped and parks for good, latches held: the test kills the process now. */
    private static void stopHere(String point, long gtid) {
        System.out.println("FROZEN at " + point + " gtid=0x" + Long.toHexString(gtid));
        System.out.flush();
        while (true) {
            LockSupport.park();
        }
    }
}
