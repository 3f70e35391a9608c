package io.selcc.twopc;

import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.Database;
import io.selcc.engine.TxnResult;
import io.selcc.fabric.LocalFabric;
import io.selcc.fabric.MessageInterceptor;
import io.selcc.fabric.MessageInterceptor.Fate;
import io.selcc.wal.TwoPhaseLog;
import io.selcc.wal.Wal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two-phase commit between two partitions, one case at a time, with the exact messages, round trips
 * and forced records each costs, and every fault the protocol must survive: a no vote, a participant
 * that never answers, lost and duplicated messages, a coordinator that dies before or after deciding.
 */
@Timeout(60)
class TwoPhaseCommitTest {
    /** For the cases that wait for a timeout (a lost message, a silent coordinator). */
    private static final Duration SHORT = Duration.ofMillis(50);
    /** For exact counts: no branch times out and asks (an inquiry is a message too). */
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private static PartitionedDatabase partitioned(Database db, Path logs, TwoPcFaults faults) {
        return partitioned(db, logs, faults, SHORT);
    }

    private static PartitionedDatabase partitioned(Database db, Path logs, TwoPcFaults faults, Duration timeout) {
        return PartitionedDatabase.builder(db).logDirectory(logs).timeout(timeout).faults(faults).build();
    }

    private static CommitOutcome transfer(PartitionedDatabase p, int home, int from, int to, long cents) {
        DistributedTransaction tx = p.begin(home);
        Bank.transfer(tx, from, 0, to, 0, cents);
        return tx.commit();
    }

    private static LocalFabric fabric(Database db) {
        return (LocalFabric) db.cluster().fabric();
    }

    @Test
    void aDistributedTransferCostsThreeMessagesAndTwoForcedRecords() throws Exception {
        try (Wal wal = Wal.open(dir.resolve("wal"), Wal.Mode.SYNC); Database db = Bank.database(2, wal);
             PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            assertTrue(transfer(p, 0, 0, 1, 25_00).committed());
            // read-for-update of the remote row, one prepare, one decision
            TwoPcStats s = p.stats();
            assertEquals(1, s.distributedCommits());
            assertEquals(3, s.messages());
            assertEquals(3, s.roundTrips());
            assertEquals(1, s.prepareRecords());
            assertEquals(1, s.decisionRecords());
            assertTrue(s.logForces() >= 2, "each record forced: " + s);
            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(Bank.START - 25_00, Bank.balance(db, 0, 0));
            assertEquals(Bank.START + 25_00, Bank.balance(db, 1, 0));

            // A local transfer is not distributed: no message, no 2PC record.
            DistributedTransaction local = p.begin(1);
            local.update(1, Bank.table(1), 0, row -> row.setMoney(1, row.getMoney(1) + 1));
            assertTrue(local.commit().committed());
            assertEquals(1, p.stats().singlePartitionCommits());
            assertEquals(3, p.stats().messages());
        }
        // The decision is on disk: a log opened again knows it, and the participant's prepare record.
        long gtid = (1L << 48) | 1;
        try (TwoPhaseLog coordinatorLog = TwoPhaseLog.open(dir.resolve("twopc-node-0"), 0);
             TwoPhaseLog participantLog = TwoPhaseLog.open(dir.resolve("twopc-node-1"), 1)) {
            assertTrue(coordinatorLog.hasCommit(gtid));
            assertEquals(1, participantLog.preparedAtOpen().size());
            // the branch's changes: the read for update and the after-image the prepare installed
            assertEquals(2, participantLog.preparedAtOpen().get(gtid).entries().size());
        }
    }

    /**
     * A participant whose commit record the log could not take installs the decision all the same (every
     * branch commits), but does not acknowledge it: the coordinator keeps its commit decision instead of
     * forgetting it, so a recovery of that branch from its prepare record would be told "commit", not
     * the presumed "abort". A transfer whose records are fine is forgotten once acknowledged.
     *
     * <p>Shown to fail with the acknowledgement sent regardless (before issue 28): the coordinator forgot
     * the second decision too; and (found in review) with only a commit that returned counted, the third,
     * whose durability wait threw, was acknowledged and forgotten.
     */
    @Test
    void aParticipantWhoseCommitRecordIsLostDoesNotAcknowledgeTheDecision() throws Exception {
        FailingLogs logs = new FailingLogs();
        try (Database db = Bank.database(2, logs); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            DistributedTransaction fine = p.begin(0);
            long fineId = fine.gtid();
            Bank.transfer(fine, 0, 0, 1, 0, 1_00);
            assertTrue(fine.commit().committed());
            assertFalse(p.coordinator(0).log().hasCommit(fineId), "acknowledged by its participant: forgotten");

            logs.failNextAppendOf(1);
            DistributedTransaction lost = p.begin(0);
            long lostId = lost.gtid();
            Bank.transfer(lost, 0, 0, 1, 0, 2_00);
            assertTrue(lost.commit().committed(), "the decision was commit: every branch installs");
            assertEquals(1, logs.failed.get(), "the participant's commit record was refused");
            assertTrue(p.coordinator(0).log().hasCommit(lostId), "not acknowledged: the coordinator keeps its decision");
            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(Bank.START + 3_00, Bank.balance(db, 1, 0));
            assertEquals(Bank.START - 3_00, Bank.balance(db, 0, 0));

            // Its record appended, but the wait for it to be durable throws (a failed force): no ack either.
            logs.failNextDurabilityOf(1);
            DistributedTransaction unforced = p.begin(0);
            long unforcedId = unforced.gtid();
            Bank.transfer(unforced, 0, 0, 1, 0, 4_00);
            assertTrue(unforced.commit().committed(), "the decision was commit");
            assertEquals(1, logs.notDurable.get(), "the participant's durability wait threw");
            assertTrue(p.coordinator(0).log().hasCommit(unforcedId), "not acknowledged: the coordinator keeps this one too");
        }
    }

    /**
     * The coordinator's force of its commit decision reports a failure after the record reached the
     * disk: the coordinator is down, and its own branch neither commits nor rolls back but waits, latches
     * held, for the recovered log. Once the coordinator recovers, the log says commit: the home branch and
     * the participant both commit, and the money moved on both sides.
     *
     * <p>Shown to fail with the home branch rolled back at the failed force (before issue 28): the
     * transfer threw the force's failure with its home branch rolled back, while the log it left holds
     * the commit decision its participant would be told. And with the recovery answering from the page
     * cache without forcing first (the forces count did not grow).
     */
    @Test
    void aDecisionWhoseForceFailedLeavesTheHomeBranchInDoubtUntilTheLogIsRead() throws Exception {
        AtomicInteger failures = new AtomicInteger();
        TwoPcFaults forceFailsOnce = new TwoPcFaults() {
            @Override
            public boolean decisionForceFails(int coordinator, long gtid) {
                return failures.getAndIncrement() == 0;
            }
        };
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, forceFailsOnce)) {
            Bank.open(db, 1);
            java.util.concurrent.Future<CommitOutcome> transfer = pool.submit(() -> transfer(p, 0, 0, 1, 10_00));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!p.coordinator(0).isDown()) {
                assertFalse(transfer.isDone(), "the transfer ended before its coordinator went down: " + (transfer.isDone() ? transfer.get() : ""));
                assertTrue(System.nanoTime() < deadline, "the coordinator never went down");
                Thread.onSpinWait();
            }
            assertEquals(1, failures.get(), "the decision's force failed once");
            assertFalse(transfer.isDone(), "in doubt while the coordinator is down");
            long forcesBefore = p.coordinator(0).log().forces();
            p.recoverCoordinator(0);
            // What the failed force left may be in the page cache only: the recovery forces before it answers.
            assertTrue(p.coordinator(0).log().forces() > forcesBefore, "the recovered coordinator forced its log first");
            CommitOutcome outcome = transfer.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(outcome.committed(), "the recovered log holds the decision: " + outcome);
            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(Bank.START - 10_00, Bank.balance(db, 0, 0), "the home branch committed");
            assertEquals(Bank.START + 10_00, Bank.balance(db, 1, 0), "the participant committed");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A coordinator forces its decision only once everything appended so far is durable: a recovery that
     * applies the decided transaction from the two-phase-commit logs applies it after a replay that must
     * hold what its branches read (a commit appended before, possibly not yet forced). Here the commit logs'
     * "everything appended is durable" wait is held closed: the decision must not be forced meanwhile.
     *
     * <p>Planted bug this caught: without the wait in {@code DistributedTransaction.decide}, the coordinator
     * never waited (the latch below timed out) and forced its decision at once. The kill tests
     * ({@code PartitionedCrashTest}) do not catch it: they leave no gap in the commit logs below a read.
     */
    @Test
    void theDecisionWaitsUntilEverythingAppendedIsDurable() throws Exception {
        java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch durable = new java.util.concurrent.CountDownLatch(1);
        io.selcc.engine.CommitLog.Factory stalled = new io.selcc.engine.CommitLog.Factory() {
            @Override
            public io.selcc.engine.CommitLog open(int computeNode, long settledThrough, java.util.function.LongSupplier next) {
                return stalledLog(next, waiting, durable);
            }

            @Override
            public void close() {
            }
        };
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Database db = Bank.database(2, stalled); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            java.util.concurrent.Future<CommitOutcome> transfer = pool.submit(() -> transfer(p, 0, 0, 1, 10_00));
            assertTrue(waiting.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS),
                "the coordinator never waited for the commit logs before deciding");
            assertEquals(1, p.stats().prepareRecords(), "the participant prepared");
            assertEquals(0, p.stats().decisionRecords(), "no decision while what was appended is not durable");
            assertFalse(transfer.isDone());
            durable.countDown();
            assertTrue(transfer.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).committed());
            assertEquals(1, p.stats().decisionRecords());
            assertTrue(p.awaitIdle(1, WAIT));
        } finally {
            pool.shutdownNow();
        }
    }

    /** A commit log whose "everything appended is durable" wait says so and then waits for {@code durable}. */
    private static io.selcc.engine.CommitLog stalledLog(java.util.function.LongSupplier next,
                                                       java.util.concurrent.CountDownLatch waiting,
                                                       java.util.concurrent.CountDownLatch durable) {
        return new io.selcc.engine.CommitLog() {
            @Override
            public long append(io.selcc.engine.Redo redo) {
                return next.getAsLong();
            }

            @Override
            public void awaitDurable(long sequence) {
            }

            @Override
            public void awaitAppendedDurable() {
                waiting.countDown();
                try {
                    assertTrue(durable.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    /** Commit logs that keep nothing (every append numbered, every wait at once) and can refuse one node's next append. */
    private static final class FailingLogs implements io.selcc.engine.CommitLog.Factory {
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger notDurable = new AtomicInteger();
        private volatile int failNode = -1;
        private volatile int notDurableNode = -1;

        void failNextAppendOf(int node) {
            failNode = node;
        }

        void failNextDurabilityOf(int node) {
            notDurableNode = node;
        }

        @Override
        public io.selcc.engine.CommitLog open(int computeNode, long settledThrough, java.util.function.LongSupplier next) {
            return new io.selcc.engine.CommitLog() {
                @Override
                public long append(io.selcc.engine.Redo redo) {
                    if (failNode == computeNode) {
                        failNode = -1;
                        failed.incrementAndGet();
                        return FAILED;
                    }
                    return next.getAsLong();
                }

                @Override
                public void awaitDurable(long sequence) {
                    if (notDurableNode == computeNode) {
                        notDurableNode = -1;
                        notDurable.incrementAndGet();
                        throw new NotDurableException("planted: the force failed, computeNode=" + computeNode);
                    }
                }

                @Override
                public void awaitAppendedDurable() {
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aBranchThatOnlyReadDropsOutAtPrepare() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            DistributedTransaction tx = p.begin(0);
            long remote = tx.read(1, Bank.table(1), 0).getMoney(1);
            tx.update(0, Bank.table(0), 0, row -> row.setMoney(1, row.getMoney(1) + remote));
            assertTrue(tx.commit().committed());
            TwoPcStats s = p.stats();
            assertEquals(2, s.messages(), "a read and a prepare answered read-only: no decision sent");
            assertEquals(0, s.prepareRecords());
            assertEquals(0, s.decisionRecords(), "the home branch was the only writer: it committed alone");
            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(2 * Bank.START, Bank.balance(db, 0, 0));
        }
    }

    /**
     * An update on another partition follows Transaction.update's rules: its updater may not write the CC
     * header, and an updater that throws aborts the whole distributed transaction, every branch released.
     * Fails with the remote updater handed a plain view of its copy (the header write was dropped unseen and
     * the transaction stayed active).
     */
    @Test
    void aRemoteUpdatersHeaderWriteAndThrowAbortTheTransaction() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            DistributedTransaction refused = p.begin(0);
            refused.update(0, Bank.table(0), 0, row -> row.setMoney(1, 1));
            IllegalStateException header = assertThrows(IllegalStateException.class,
                () -> refused.update(1, Bank.table(1), 0, row -> row.version(99)));
            assertTrue(header.getMessage().contains("CC header"), header.getMessage());
            assertFalse(refused.isActive(), "the distributed transaction ended");

            DistributedTransaction throwing = p.begin(0);
            throwing.update(0, Bank.table(0), 0, row -> row.setMoney(1, 2));
            IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> throwing.update(1, Bank.table(1), 0, row -> {
                    row.setMoney(1, 3);
                    throw new IllegalArgumentException("the updater failed");
                }));
            assertEquals("the updater failed", thrown.getMessage());
            assertFalse(throwing.isActive());

            // A home updater that throws while a remote branch holds a row: every branch released, the outcome set.
            DistributedTransaction homeThrows = p.begin(0);
            homeThrows.update(1, Bank.table(1), 0, row -> row.setMoney(1, 4));
            assertThrows(IllegalArgumentException.class, () -> homeThrows.update(0, Bank.table(0), 0, row -> {
                throw new IllegalArgumentException("the home updater failed");
            }));
            assertFalse(homeThrows.isActive());
            assertFalse(homeThrows.outcome().committed());

            // Commit inside an updater, home or remote, is refused; the refusal aborts the transaction.
            for (int node : new int[] {0, 1}) {
                DistributedTransaction committing = p.begin(0);
                IllegalStateException inside = assertThrows(IllegalStateException.class,
                    () -> committing.update(node, Bank.table(node), 0, row -> committing.commit()));
                assertTrue(inside.getMessage().contains("commit inside an updater"), inside.getMessage());
                assertFalse(committing.isActive());
                assertFalse(committing.outcome().committed());
            }

            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(Bank.START, Bank.balance(db, 0, 0));
            assertEquals(Bank.START, Bank.balance(db, 1, 0));
            assertTrue(transfer(p, 0, 0, 1, 1_00).committed(), "nothing left held on either partition");
        }
    }

    /**
     * A remote operation refused inside a home updater ends the distributed transaction while the home
     * branch's updater still runs: the remote branches are told at once, and the home branch is rolled back
     * once its updater returns, whether the updater passes the abort on or swallows it and returns. Fails
     * with the deferred rollback in DistributedTransaction.update removed (the swallowing case left the home
     * branch active, its row changed and latched), and with update's rollback on the way out no longer
     * skipped once the transaction is over (a second abort to each remote branch: 5 messages, not 3).
     */
    @Test
    void aRemoteRefusalInsideAHomeUpdaterRollsEveryBranchBack() throws Exception {
        try (Database db = Bank.database(3); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            io.selcc.engine.Transaction holder = holdNode2sRow(db);
            for (boolean swallow : new boolean[] {false, true}) {
                DistributedTransaction tx = p.begin(0);
                assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 4)));
                assertEquals(1, p.branches(1));
                AbortException[] nested = new AbortException[1];
                long messagesBefore = p.stats().messages();
                RuntimeException thrown = assertThrows(RuntimeException.class,
                    () -> tx.update(0, Bank.table(0), 0, row -> {
                        row.setMoney(1, 1);
                        readRefusedRow(tx, nested, swallow);
                    }));
                assertEquals(AbortReason.LOCK_CONFLICT, nested[0].reason(), "the nested read was refused");
                assertThrownAs(thrown, nested[0], swallow);
                // The refused read, then one abort decision to each remote branch (node 1's update, node 2's
                // refused read): not a second wave when the updater's exception reaches
                // DistributedTransaction.update after the rollback under it.
                assertEquals(1 + 2, p.stats().messages() - messagesBefore, "swallow=" + swallow);
                assertFalse(tx.isActive(), "swallow=" + swallow);
                assertEquals(AbortReason.LOCK_CONFLICT, tx.outcome().reason());
                assertEquals(0, p.branches(1), "the remote branch was told at once, swallow=" + swallow);
                assertEquals(Bank.START, Bank.balance(db, 0, 0), "the home branch rolled back, swallow=" + swallow);
                assertEquals(Bank.START, Bank.balance(db, 1, 0));
            }
            holder.abort();
            assertTrue(transfer(p, 0, 0, 1, 1_00).committed(), "nothing left held on either partition");
        }
    }

    /**
     * A home scan's visitor follows an updater's rules: a remote refusal inside it rolls every branch back
     * (the home branch once the scan returns, whether the visitor passes the abort on or swallows it), and
     * commit, abort and close inside it are refused with the transaction left as it was. Fails without the
     * home scan counted as a callback in DistributedTransaction (the rollback under the visitor called the
     * home branch's abort, which the running scan refused: the home branch was left active, latched).
     */
    @Test
    void aHomeScansVisitorFollowsTheUpdatersRules() throws Exception {
        try (Database db = Bank.database(3); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            io.selcc.engine.Transaction holder = holdNode2sRow(db);
            String homeIndex = Bank.table(0) + ".pk";
            for (boolean swallow : new boolean[] {false, true}) {
                DistributedTransaction tx = p.begin(0);
                assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 4)));
                assertTrue(tx.update(0, Bank.table(0), 0, row -> row.setMoney(1, 1)));
                AbortException[] nested = new AbortException[1];
                RuntimeException thrown = assertThrows(RuntimeException.class,
                    () -> tx.scan(0, homeIndex, 0, 0, 1, false, row -> {
                        readRefusedRow(tx, nested, swallow);
                        return true;
                    }));
                assertEquals(AbortReason.LOCK_CONFLICT, nested[0].reason(), "the nested read was refused");
                assertThrownAs(thrown, nested[0], swallow);
                assertFalse(tx.isActive(), "swallow=" + swallow);
                assertEquals(AbortReason.LOCK_CONFLICT, tx.outcome().reason());
                assertEquals(0, p.branches(1), "swallow=" + swallow);
                assertEquals(Bank.START, Bank.balance(db, 0, 0), "the home branch rolled back, swallow=" + swallow);
                assertEquals(Bank.START, Bank.balance(db, 1, 0));
            }
            for (String end : new String[] {"commit", "abort", "close"}) {
                DistributedTransaction tx = p.begin(0);
                assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 5)));
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> tx.scan(0, homeIndex, 0, 0, 1, false, row -> {
                        switch (end) {
                            case "commit" -> tx.commit();
                            case "abort" -> tx.abort();
                            default -> tx.close();
                        }
                        return true;
                    }));
                assertTrue(refused.getMessage().contains(end + " inside a reader or scan visitor"), refused.getMessage());
                assertTrue(tx.isActive(), end + ": the refusal leaves the transaction as it was");
                assertEquals(1, p.branches(1), end);
                tx.abort();
                assertEquals(0, p.branches(1), end);
                assertEquals(Bank.START, Bank.balance(db, 1, 0), end);
            }
            holder.abort();
            assertTrue(transfer(p, 0, 0, 1, 1_00).committed(), "nothing left held on either partition");
        }
    }

    /**
     * A remote refusal inside a reader the caller started on the home branch itself ({@code local()}, as the
     * TPC-C terminals use it) ends the distributed transaction with the refusal's abort: passed on, the home
     * branch ends with it; swallowed, the home branch is rolled back by close, as {@code PartitionedDatabase.run}
     * closes. Fails without the home branch's own callbacks counted (the rollback asked the home branch to
     * abort inside its reader: an IllegalStateException escaped instead of the abort), without close
     * finishing the deferred rollback (the home branch stayed active, latched), and without run closing a
     * transaction its body returned from ended.
     */
    @Test
    void aRemoteRefusalInsideAHomeReaderStartedOnTheBranchRollsEveryBranchBack() throws Exception {
        try (Database db = Bank.database(3); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            io.selcc.engine.Transaction holder = holdNode2sRow(db);
            var homeTable = db.node(0).table(Bank.table(0));
            for (boolean swallow : new boolean[] {false, true}) {
                DistributedTransaction tx = p.begin(0);
                assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 4)));
                assertTrue(tx.local().update(homeTable, 0, row -> row.setMoney(1, 1)));
                AbortException[] nested = new AbortException[1];
                try {
                    tx.local().read(homeTable, 0, row -> {
                        readRefusedRow(tx, nested, swallow);
                    });
                    assertTrue(swallow, "a passed-on abort comes out of the read");
                } catch (AbortException e) {
                    assertFalse(swallow);
                    assertTrue(e == nested[0], e.toString());
                }
                assertEquals(AbortReason.LOCK_CONFLICT, nested[0].reason(), "the nested read was refused");
                assertFalse(tx.isActive(), "swallow=" + swallow);
                assertEquals(0, p.branches(1), "swallow=" + swallow);
                tx.close();
                assertFalse(tx.local().isActive(), "the home branch ended, swallow=" + swallow);
                assertEquals(Bank.START, Bank.balance(db, 0, 0), "the home branch rolled back, swallow=" + swallow);
                assertEquals(Bank.START, Bank.balance(db, 1, 0));
            }
            // The same through PartitionedDatabase.run, whose body swallows the refusal and returns: run closes.
            TxnResult<Object> swallowed = p.run(0, new io.selcc.engine.RetryPolicy(1, 0, 0, () -> 0L), tx -> {
                tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 4));
                tx.local().update(homeTable, 0, row -> row.setMoney(1, 1));
                tx.local().read(homeTable, 0, row -> {
                    readRefusedRow(tx, new AbortException[1], true);
                });
                return null;
            });
            assertEquals(AbortReason.LOCK_CONFLICT, swallowed.outcome().reason());
            assertEquals(Bank.START, Bank.balance(db, 0, 0), "run rolled the home branch back");
            holder.abort();
            assertTrue(transfer(p, 0, 0, 1, 1_00).committed(), "nothing left held on either partition");
        }
    }

    /**
     * An insert's writer, home or remote, follows the other callbacks' rules: commit inside it is refused with
     * the transaction left as it was, and a remote refusal inside a home writer that the writer swallows
     * ends the distributed transaction with the home branch rolled back and nothing inserted. Fails without
     * writers counted (the commit inside the writer went through) and without the check after the home insert
     * (it reported the row inserted into a transaction already over, its home branch left active).
     */
    @Test
    void anInsertsWriterFollowsTheCallbacksRules() throws Exception {
        try (Database db = Bank.database(3); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            for (int node : new int[] {0, 1}) {
                DistributedTransaction tx = p.begin(0);
                assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 5)));
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> tx.insert(node, Bank.table(node), row -> {
                        row.setLong(0, 9);
                        tx.commit();
                    }));
                assertTrue(refused.getMessage().contains("commit inside a"), refused.getMessage());
                assertTrue(tx.isActive(), "node " + node + ": the refusal leaves the transaction as it was");
                tx.abort();
                assertEquals(0, p.branches(1));
            }
            io.selcc.engine.Transaction holder = holdNode2sRow(db);
            DistributedTransaction tx = p.begin(0);
            assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 4)));
            IllegalStateException ended = assertThrows(IllegalStateException.class,
                () -> tx.insert(0, Bank.table(0), row -> {
                    row.setLong(0, 9);
                    row.setMoney(1, 9);
                    readRefusedRow(tx, new AbortException[1], true);
                }));
            assertTrue(ended.getMessage().contains("ended while its row writer ran"), ended.getMessage());
            assertFalse(tx.local().isActive(), "the home branch rolled back");
            assertEquals(0, p.branches(1));
            holder.abort();
            var n0 = db.node(0);
            assertTrue(n0.run(t -> t.get(n0.table(Bank.table(0)), 9) == null).value(), "nothing inserted");
            assertTrue(transfer(p, 0, 0, 1, 1_00).committed(), "nothing left held on either partition");
        }
    }

    /** Takes node 2's account 0 in a transaction of its own: a remote read of it is then refused (no-wait). */
    private static io.selcc.engine.Transaction holdNode2sRow(Database db) {
        var n2 = db.node(2);
        io.selcc.engine.Transaction holder = n2.begin();
        assertTrue(holder.update(n2.table(Bank.table(2)), 0, row -> row.setLong(2, 7)));
        return holder;
    }

    /**
     * Reads node 2's account 0 through {@code tx}, refused while {@link #holdNode2sRow} holds it: the refusal is
     * kept in {@code nested[0]} and passed on unless {@code swallow}.
     */
    private static void readRefusedRow(DistributedTransaction tx, AbortException[] nested, boolean swallow) {
        try {
            tx.read(2, Bank.table(2), 0);
        } catch (AbortException e) {
            nested[0] = e;
            if (!swallow) {
                throw e;
            }
        }
    }

    /**
     * What came out of a callback a nested refusal ended the transaction under: the refusal itself when the
     * callback passed it on, else the distributed transaction's "ended while" exception.
     */
    private static void assertThrownAs(RuntimeException thrown, AbortException nested, boolean swallow) {
        if (swallow) {
            assertTrue(thrown instanceof IllegalStateException && thrown.getMessage().contains("ended while"),
                thrown.toString());
        } else {
            assertTrue(thrown == nested, thrown.toString());
        }
    }

    @Test
    void aNoVoteAbortsEveryBranch() throws Exception {
        TwoPcFaults no = new TwoPcFaults() {
            @Override
            public boolean voteNo(int participant, long gtid) {
                return participant == 1;
            }
        };
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, no)) {
            Bank.open(db, 1);
            CommitOutcome outcome = transfer(p, 0, 0, 1, 10_00);
            assertFalse(outcome.committed());
            assertEquals(AbortReason.GLOBAL_ABORT, outcome.reason());
            assertEquals(0, p.stats().prepareRecords());
            assertEquals(0, p.stats().decisionRecords(), "presumed abort: nothing forced");
            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(Bank.START, Bank.balance(db, 0, 0));
            assertEquals(Bank.START, Bank.balance(db, 1, 0), "the participant's lock is released and nothing changed");
        }
    }

    @Test
    void aParticipantThatNeverAnswersAbortsTheTransaction() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE)) {
            Bank.open(db, 1);
            fabric(db).interceptMessages((from, to, kind, request) -> to == 1 ? Fate.LOSE_REQUEST : Fate.DELIVER);
            DistributedTransaction tx = p.begin(0);
            AbortException e = assertThrows(AbortException.class, () -> Bank.transfer(tx, 0, 0, 1, 0, 10_00));
            assertEquals(AbortReason.GLOBAL_ABORT, e.reason());
            assertFalse(tx.isActive());
            fabric(db).interceptMessages(null);
            assertEquals(0, p.branches(1), "the request never arrived");
            assertEquals(Bank.START, Bank.balance(db, 0, 0), "the home branch rolled back");
        }
    }

    @Test
    void aLostPrepareAbortsAndTheUnpreparedBranchIsReleased() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE)) {
            Bank.open(db, 1);
            AtomicInteger lost = new AtomicInteger();
            // The prepare and the abort that follows are both lost: only the branch's own timeout ends it.
            fabric(db).interceptMessages((from, to, kind, request) ->
                request instanceof Messages.Prepare || request instanceof Messages.Decide ? lose(lost) : Fate.DELIVER);
            CommitOutcome outcome = transfer(p, 0, 0, 1, 10_00);
            assertFalse(outcome.committed());
            assertEquals(2, lost.get());
            assertTrue(p.awaitIdle(1, WAIT));
            fabric(db).interceptMessages(null);
            assertEquals(1, p.stats().unilateralAborts());
            assertEquals(Bank.START, Bank.balance(db, 1, 0));
            assertTrue(transfer(p, 0, 0, 1, 10_00).committed(), "no lock left behind");
        }
    }

    private static Fate lose(AtomicInteger lost) {
        lost.incrementAndGet();
        return Fate.LOSE_REQUEST;
    }

    @Test
    void aLostDecisionIsLearnedByAskingTheCoordinator() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE)) {
            Bank.open(db, 1);
            fabric(db).interceptMessages((from, to, kind, request) ->
                request instanceof Messages.Decide ? Fate.LOSE_REQUEST : Fate.DELIVER);
            assertTrue(transfer(p, 0, 0, 1, 10_00).committed());
            assertTrue(p.awaitIdle(1, WAIT));
            fabric(db).interceptMessages(null);
            assertTrue(p.stats().inquiries() >= 1, "the participant asked: " + p.stats());
            assertEquals(Bank.START + 10_00, Bank.balance(db, 1, 0));
            assertEquals(Bank.START - 10_00, Bank.balance(db, 0, 0));
        }
    }

    @Test
    void duplicatedAndLostRepliesChangeNothingTwice() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE)) {
            Bank.open(db, 1);
            fabric(db).interceptMessages((from, to, kind, request) -> Fate.DUPLICATE);
            for (int i = 0; i < 5; i++) {
                assertTrue(transfer(p, 0, 0, 1, 1_00).committed());
            }
            assertTrue(p.awaitIdle(1, WAIT));
            assertEquals(Bank.START + 5_00, Bank.balance(db, 1, 0), "each transfer applied once");
            assertEquals(5, p.stats().prepareRecords(), "a duplicated prepare is answered, not prepared again");

            // The yes vote's reply is lost: the coordinator aborts, and the prepared branch learns it.
            fabric(db).interceptMessages((from, to, kind, request) ->
                request instanceof Messages.Prepare ? Fate.LOSE_REPLY : Fate.DELIVER);
            assertFalse(transfer(p, 0, 0, 1, 1_00).committed());
            assertTrue(p.awaitIdle(1, WAIT));
            fabric(db).interceptMessages(null);
            assertEquals(Bank.START + 5_00, Bank.balance(db, 1, 0));
            assertEquals(Bank.START - 5_00, Bank.balance(db, 0, 0));
        }
    }

    @Test
    void aCoordinatorThatDiesBeforeDecidingLeavesItsParticipantsBlockedUntilItRecovers() throws Exception {
        coordinatorDeath(TwoPcFaults.CoordinatorDeath.BEFORE_DECISION, false);
    }

    @Test
    void aCoordinatorThatDiesAfterDecidingHasItsParticipantsCommitOnRecovery() throws Exception {
        coordinatorDeath(TwoPcFaults.CoordinatorDeath.AFTER_DECISION, true);
    }

    private void coordinatorDeath(TwoPcFaults.CoordinatorDeath where, boolean commits) throws Exception {
        AtomicInteger deaths = new AtomicInteger();
        TwoPcFaults dies = new TwoPcFaults() {
            @Override
            public CoordinatorDeath coordinatorDeath(int coordinator, long gtid) {
                return deaths.getAndIncrement() == 0 ? where : CoordinatorDeath.NONE;
            }
        };
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, dies)) {
            Bank.open(db, 1);
            assertThrows(CoordinatorFailedException.class, () -> transfer(p, 0, 0, 1, 10_00));
            // Blocked: the prepared branch holds its lock and keeps asking a coordinator that does not answer.
            assertEquals(1, p.inDoubt(1));
            var n1 = db.node(1);
            TxnResult<Boolean> meanwhile = n1.run(new io.selcc.engine.RetryPolicy(1, 0, 0, () -> 0),
                tx -> tx.update(n1.table(Bank.table(1)), 0, row -> row.setMoney(1, 0)));
            assertFalse(meanwhile.committed(), "the in-doubt row stays locked");
            assertEquals(AbortReason.LOCK_CONFLICT, meanwhile.outcome().reason());
            assertFalse(p.awaitIdle(1, SHORT.multipliedBy(4)), "still blocked while the coordinator is down");

            p.recoverCoordinator(0); // reads its decisions back from its log on disk
            assertTrue(p.awaitIdle(1, WAIT));
            assertTrue(p.stats().inquiries() >= 1);
            long moved = commits ? 10_00 : 0;
            assertEquals(Bank.START - moved, Bank.balance(db, 0, 0));
            assertEquals(Bank.START + moved, Bank.balance(db, 1, 0));
            assertTrue(transfer(p, 0, 0, 1, 1).committed(), "the coordinator works again");
        }
    }

    @Test
    void partitionedModeRefusesOtherAlgorithmsAndBadNodes() {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, null, TwoPcFaults.NONE)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.begin(2));
            assertTrue(e.getMessage().contains("no such compute node: 2"), e.getMessage());
            Bank.open(db, 1);
            DistributedTransaction tx = p.begin(0);
            e = assertThrows(IllegalArgumentException.class, () -> tx.read(5, Bank.table(0), 0));
            assertTrue(e.getMessage().contains("no such partition: node=5"), e.getMessage());
            tx.close();
        }
        try (Database occ = Database.builder().computeNodes(2).cc("occ").build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PartitionedDatabase.builder(occ).build());
            assertTrue(e.getMessage().contains("2pl only, not occ"), e.getMessage());
        }
        try (Database waitDie = Database.builder().computeNodes(2).cc("2pl")
            .lockWait(io.selcc.engine.cc.LockWaitPolicy.WAIT_DIE).build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PartitionedDatabase.builder(waitDie).build());
            assertTrue(e.getMessage().contains("no-wait only"), e.getMessage());
        }
    }

    @Test
    void aConflictOnTheHomeBranchReleasesTheRemoteBranchAtOnce() throws Exception {
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, TwoPcFaults.NONE, LONG)) {
            Bank.open(db, 1);
            var n0 = db.node(0);
            io.selcc.engine.Transaction holder = n0.begin();
            assertTrue(holder.update(n0.table(Bank.table(0)), 0, row -> row.setLong(2, 7)));
            DistributedTransaction tx = p.begin(0);
            assertTrue(tx.update(1, Bank.table(1), 0, row -> row.setMoney(1, 0)));
            assertEquals(1, p.branches(1));
            AbortException e = assertThrows(AbortException.class,
                () -> tx.update(0, Bank.table(0), 0, row -> row.setMoney(1, 0)));
            assertEquals(AbortReason.LOCK_CONFLICT, e.reason());
            assertEquals(0, p.branches(1), "the remote branch was rolled back with the home one, not at its timeout");
            holder.abort();
            assertEquals(Bank.START, Bank.balance(db, 1, 0));
            assertEquals(0, p.stats().unilateralAborts());
        }
    }

    @Test
    void aVoteThatThrowsRollsTheHomeBranchBackAndTheParticipantsLearnAbort() throws Exception {
        TwoPcFaults broken = new TwoPcFaults() {
            @Override
            public CoordinatorDeath coordinatorDeath(int coordinator, long gtid) {
                throw new IllegalStateException("planted: the fault hook fails");
            }
        };
        try (Database db = Bank.database(2); PartitionedDatabase p = partitioned(db, dir, broken)) {
            Bank.open(db, 1);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> transfer(p, 0, 0, 1, 10_00));
            assertTrue(e.getMessage().contains("planted"), e.getMessage());
            assertTrue(p.awaitIdle(1, WAIT), "the prepared participant asked and was told abort");
            assertEquals(Bank.START, Bank.balance(db, 0, 0));
            assertEquals(Bank.START, Bank.balance(db, 1, 0));
            var n0 = db.node(0);
            assertTrue(n0.run(tx -> tx.update(n0.table(Bank.table(0)), 0, row -> row.setLong(2, 1))).committed(),
                "the home branch released its latch");
        }
    }
}
