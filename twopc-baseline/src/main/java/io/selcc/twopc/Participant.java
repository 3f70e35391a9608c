package io.selcc.twopc;

import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Redo;
import io.selcc.engine.Table;
import io.selcc.engine.Transaction;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.MessageKind;
import io.selcc.storage.TupleView;
import io.selcc.twopc.Messages.Decide;
import io.selcc.twopc.Messages.Delete;
import io.selcc.twopc.Messages.Done;
import io.selcc.twopc.Messages.Insert;
import io.selcc.twopc.Messages.Op;
import io.selcc.twopc.Messages.Outcome;
import io.selcc.twopc.Messages.Prepare;
import io.selcc.twopc.Messages.Read;
import io.selcc.twopc.Messages.Refused;
import io.selcc.twopc.Messages.Row;
import io.selcc.twopc.Messages.Rows;
import io.selcc.twopc.Messages.Scan;
import io.selcc.twopc.Messages.Vote;
import io.selcc.twopc.Messages.Write;
import io.selcc.wal.TwoPhaseLog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One compute node's side of partitioned mode as a participant: the branches other nodes' distributed
 * transactions run here. Each branch is one engine transaction on this node, run by a thread of its own
 * from start to end (a transaction belongs to the thread that began it); the message handler, which
 * the in-JVM fabric runs on the sender's thread, hands each request to that thread and waits for its
 * answer.
 *
 * <p>A prepared branch holds its locks inside its commit point until it learns the decision: from the
 * coordinator's decision message, or, when none came within the timeout, by asking the coordinator
 * (again and again while it does not know, or is down). An unprepared branch whose coordinator stays
 * silent for the timeout rolls back on its own: it has not voted, so nobody can have decided commit.
 */
final class Participant {
    private static final System.Logger LOG = System.getLogger(Participant.class.getName());

    private final DatabaseNode node;
    private final FabricEndpoint endpoint;
    private final java.util.function.Supplier<TwoPhaseLog> log;
    private final ExecutorService threads;
    private final Counters counters;
    private final TwoPcFaults faults;
    private final long timeoutNanos;
    private final Map<Long, Branch> branches = new ConcurrentHashMap<>();
    /**
     * Branches that ended recently, so a late or duplicated request gets a consistent answer: gtid ->
     * committed. Bounded: a duplicate arrives soon after its original or not at all.
     */
    private final Map<Long, Boolean> ended = java.util.Collections.synchronizedMap(
        new java.util.LinkedHashMap<Long, Boolean>(1024, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > ENDED_REMEMBERED;
            }
        });
    private static final int ENDED_REMEMBERED = 65_536;
    /**
     * Branches that installed a commit decision whose commit record did not become durable: their
     * decisions are never acknowledged, so the coordinator keeps them. Unbounded, but only a failed
     * log adds to it (and after that every commit of the node fails).
     */
    private final java.util.Set<Long> commitRecordsLost = ConcurrentHashMap.newKeySet();
    private volatile boolean closing;
    /** Notified whenever a branch ends ({@link #awaitIdle}). */
    private final Object idle = new Object();

    Participant(DatabaseNode node, FabricEndpoint endpoint, java.util.function.Supplier<TwoPhaseLog> log, ExecutorService threads, Counters counters,
                TwoPcFaults faults, long timeoutNanos) {
        this.node = node;
        this.endpoint = endpoint;
        this.log = log;
        this.threads = threads;
        this.counters = counters;
        this.faults = faults;
        this.timeoutNanos = timeoutNanos;
    }

    int nodeId() {
        return endpoint.nodeId();
    }

    /** Branches running or waiting here now (prepared ones included). */
    int branchCount() {
        return branches.size();
    }

    /** Branches here that voted yes and wait for the decision. */
    int inDoubt() {
        int n = 0;
        for (Branch b : branches.values()) {
            if (b.state == State.PREPARED) {
                n++;
            }
        }
        return n;
    }

    /** Waits until no branch runs here, at most {@code timeoutNanos}; whether none does. */
    boolean awaitIdle(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (idle) {
            while (!branches.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(idle, left);
            }
            return true;
        }
    }

    Object onOp(int fromNode, Op op) {
        Branch branch = branches.get(op.gtid());
        if (branch == null) {
            if (ended.containsKey(op.gtid()) || closing) {
                return new Refused(AbortReason.GLOBAL_ABORT); // it ended already (rolled back on its own)
            }
            branch = branches.computeIfAbsent(op.gtid(), g -> start(g, fromNode));
        }
        return branch.call(op);
    }

    Object onPrepare(Prepare prepare) {
        Branch branch = branches.get(prepare.gtid());
        if (branch == null) {
            Boolean committed = ended.get(prepare.gtid());
            // Never saw an operation (all lost) or rolled back meanwhile: no. A duplicate of a prepare
            // that was answered read-only ends the branch at once: the same answer again.
            return committed != null && committed ? Vote.READ_ONLY : Vote.NO;
        }
        return branch.call(prepare);
    }

    Object onDecide(Decide decide) {
        Branch branch = branches.get(decide.gtid());
        if (branch != null) {
            branch.decide(decide.commit());
        }
        if (decide.commit() && commitRecordsLost.contains(decide.gtid())) {
            // Installed as decided, but its commit record is not durable: an acknowledgement would let
            // the coordinator forget the decision, and under presumed abort a recovery of this branch
            // from its prepare record would then be told "abort". (A duplicate gets the same answer.)
            return new Refused(AbortReason.LOG_FAILED);
        }
        return Messages.Ack.ACK;
    }

    private Branch start(long gtid, int coordinator) {
        Branch branch = new Branch(gtid, coordinator);
        threads.execute(branch);
        return branch;
    }

    /**
     * Stops taking branches and rolls back those not prepared. A prepared branch is not touched: it never
     * decides alone, so it keeps its locks and keeps asking its coordinator until it learns the outcome.
     */
    void close() {
        closing = true;
        for (Branch b : branches.values()) {
            synchronized (b) {
                if (b.state == State.ACTIVE) {
                    // Taken only if it is still between operations; a branch already preparing never sees it
                    // (its thread drains the queue when it ends).
                    b.tasks.add(new Task(new Decide(b.gtid, false), new CompletableFuture<>()));
                }
            }
        }
    }

    private enum State { ACTIVE, PREPARED, ENDED }

    /** A request handed to the branch's thread, and the reply it will give. */
    private record Task(Object request, CompletableFuture<Object> reply) {
    }

    private final class Branch implements Runnable {
        final long gtid;
        final int coordinator;
        final BlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
        final CompletableFuture<Boolean> decision = new CompletableFuture<>();
        final CompletableFuture<Void> finished = new CompletableFuture<>();
        volatile State state = State.ACTIVE;
        /** Operations run so far, and the last one's reply (answers its duplicate). Branch thread and handlers, under this. */
        int opsRun;
        Object lastReply;
        Vote vote;
        boolean wrote;
        /** It committed as decided and its commit record is durable (what a decision's acknowledgement means). */
        volatile boolean commitDurable;
        /** The decision it learnt (message or inquiry) was commit. */
        volatile boolean decidedCommit;
        Transaction txn;

        Branch(long gtid, int coordinator) {
            this.gtid = gtid;
            this.coordinator = coordinator;
        }

        /** Runs {@code request} on the branch's thread and returns its reply (a duplicate gets the last one's). */
        Object call(Object request) {
            Task task = new Task(request, new CompletableFuture<>());
            synchronized (this) {
                if (request instanceof Op op && op.opNumber() <= opsRun) {
                    return op.opNumber() == opsRun ? lastReply : new Refused(AbortReason.GLOBAL_ABORT);
                }
                if (request instanceof Prepare && vote != null) {
                    return vote;
                }
                if (state == State.ENDED) {
                    return endedReply(request); // it rolled back on its own meanwhile
                }
                tasks.add(task); // under the lock: the thread's exit drains the queue under it too
            }
            try {
                return task.reply.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for branch " + gtid + " on node " + nodeId(), e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("branch " + gtid + " on node " + nodeId() + " failed", e.getCause());
            }
        }

        /** The decision arrived: a prepared branch applies it, an unprepared one rolls back. */
        void decide(boolean commit) {
            if (state == State.PREPARED) {
                decision.complete(commit);
            } else if (!commit) {
                tasks.add(new Task(new Decide(gtid, false), new CompletableFuture<>()));
            }
            if (state != State.ACTIVE || !commit) {
                awaitFinished();
            }
        }

        private void awaitFinished() {
            try {
                finished.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                throw new IllegalStateException("branch " + gtid + " on node " + nodeId() + " failed", e.getCause());
            }
        }

        @Override
        public void run() {
            boolean committed = false;
            try {
                txn = node.begin().asDistributedBranch(); // waits for no latch: the coordinator's branch holds its own
                committed = serve();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.ERROR, "branch " + gtid + " on node " + nodeId() + " failed", e);
                failPending(e);
                throw e;
            } finally {
                if (txn != null && txn.isActive()) {
                    txn.abort();
                }
                synchronized (this) {
                    state = State.ENDED;
                    for (Task t; (t = tasks.poll()) != null; ) {
                        t.reply.complete(endedReply(t.request));
                    }
                }
                if ((committed || decidedCommit) && !commitDurable) {
                    // Told to commit (it installs), without a durable commit record, or its wait threw: only
                    // a wait that returned earns an acknowledgement. Before ended and finished: the decide
                    // handler reads it then.
                    commitRecordsLost.add(gtid);
                }
                ended.put(gtid, committed);
                branches.remove(gtid);
                finished.complete(null);
                synchronized (idle) {
                    idle.notifyAll();
                }
            }
        }

        /** The answer to a request that reached the branch after it ended (rolled back, or done). */
        private Object endedReply(Object request) {
            if (request instanceof Prepare) {
                return Vote.NO;
            }
            return request instanceof Decide ? Messages.Ack.ACK : new Refused(AbortReason.GLOBAL_ABORT);
        }

        private void failPending(Throwable e) {
            for (Task t : tasks) {
                t.reply.completeExceptionally(e);
            }
        }

        /** Serves requests until the branch ends; whether it committed. */
        private boolean serve() {
            while (true) {
                Task task;
                try {
                    task = tasks.poll(timeoutNanos, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
                if (task == null) {
                    counters.unilateralAborts.increment(); // not prepared, coordinator silent: nobody decided commit
                    return false;
                }
                Object request = task.request;
                if (request instanceof Decide) {
                    task.reply.complete(Messages.Ack.ACK);
                    return false;
                }
                if (request instanceof Prepare prepare) {
                    try {
                        return prepare(prepare, task.reply);
                    } catch (RuntimeException e) {
                        // A bug or a failed device after the vote, or before it: if the vote was given the
                        // engine rolled back or installed as decided; either way the waiting sender gets an
                        // answer (no, if none was given) instead of waiting forever.
                        LOG.log(System.Logger.Level.ERROR, "branch " + gtid + " on node " + nodeId() + " failed in prepare", e);
                        task.reply.complete(Vote.NO);
                        return false;
                    }
                }
                Op op = (Op) request;
                Object reply;
                try {
                    reply = run(op);
                } catch (AbortException e) {
                    reply = new Refused(e.reason());
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.ERROR, "branch " + gtid + " on node " + nodeId() + " failed: " + op, e);
                    reply = new Refused(AbortReason.GLOBAL_ABORT);
                }
                synchronized (this) {
                    opsRun = op.opNumber();
                    lastReply = reply;
                }
                task.reply.complete(reply);
                if (reply instanceof Refused) {
                    return false; // the transaction rolled back
                }
            }
        }

        private Object run(Op op) {
            switch (op) {
                case Read read -> {
                    Table table = node.table(read.table());
                    if (!read.forUpdate()) {
                        TupleView row = txn.get(table, read.key());
                        return new Row(row == null ? null : rowBytes(row));
                    }
                    byte[][] image = new byte[1][];
                    boolean found = txn.update(table, read.key(), row -> image[0] = rowBytes(row));
                    wrote |= found;
                    return new Row(found ? image[0] : null);
                }
                case Insert insert -> {
                    Table table = node.table(insert.table());
                    boolean inserted = txn.insert(table, row -> row.setRowFrom(insert.image(), 0));
                    wrote |= inserted;
                    return new Done(inserted);
                }
                case Delete delete -> {
                    boolean deleted = txn.delete(node.table(delete.table()), delete.key());
                    wrote |= deleted;
                    return new Done(deleted);
                }
                case Scan scan -> {
                    List<byte[]> rows = new ArrayList<>();
                    io.selcc.engine.Index index = node.index(scan.index());
                    io.selcc.engine.RowVisitor collect = row -> rows.add(rowBytes(row)) || true;
                    if (scan.backward()) {
                        txn.scanBackward(index, scan.low(), scan.high(), scan.limit(), collect);
                    } else {
                        txn.scan(index, scan.low(), scan.high(), scan.limit(), collect);
                    }
                    return new Rows(rows);
                }
            }
        }

        /** Installs the prepare's writes, votes, and if yes waits in the commit point for the decision. */
        private boolean prepare(Prepare prepare, CompletableFuture<Object> reply) {
            int run;
            synchronized (this) {
                run = opsRun;
            }
            if (run != prepare.ops() || faults.voteNo(nodeId(), gtid)) {
                return voteNo(reply); // an operation was lost on the way (or the fault says no)
            }
            try {
                for (Write w : prepare.writes()) {
                    if (!txn.update(node.table(w.table()), w.key(), row -> row.setRowFrom(w.image(), 0))) {
                        return voteNo(reply); // read for update before, so a bug; still no partial commit
                    }
                    wrote = true;
                }
            } catch (AbortException e) {
                return voteNo(reply);
            }
            CommitOutcome outcome = txn.commit(gtid, (Redo changes) -> prepared(changes, reply));
            if (!reply.isDone()) {
                answer(Vote.NO, reply); // it failed before its commit point
            }
            commitDurable = outcome.committed() && txn.commitRecordDurable(); // a commit that threw leaves it false
            return outcome.committed();
        }

        private boolean voteNo(CompletableFuture<Object> reply) {
            answer(Vote.NO, reply);
            return false;
        }

        /** Records the vote (a duplicated prepare gets it again) and sends it. */
        private void answer(Vote given, CompletableFuture<Object> reply) {
            synchronized (this) {
                vote = given;
            }
            reply.complete(given);
        }

        /** The commit point: every write latch held. */
        private boolean prepared(Redo changes, CompletableFuture<Object> reply) {
            if (!wrote) {
                answer(Vote.READ_ONLY, reply); // nothing to decide: it drops out and releases its read locks
                return true;
            }
            try {
                log.get().forcePrepare(gtid, changes);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "prepare record not forced, voting no: node=" + nodeId() + " gtid=" + gtid, e);
                return voteNo(reply);
            }
            counters.prepareRecords.increment();
            faults.prepareForced(nodeId(), gtid);
            state = State.PREPARED;
            answer(Vote.YES, reply);
            boolean commit = awaitDecision();
            decidedCommit = commit;
            return commit;
        }

        /** Waits for the decision message; asks the coordinator whenever it is late. Never decides alone. */
        private boolean awaitDecision() {
            try {
                return awaitDecisionUninterruptibly();
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private boolean awaitDecisionUninterruptibly() {
            while (true) {
                try {
                    return decision.get(timeoutNanos, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    Outcome outcome = inquire();
                    if (outcome == Outcome.COMMIT) {
                        return true;
                    }
                    if (outcome == Outcome.ABORT) {
                        return false;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // a prepared branch does not give up: it keeps asking
                } catch (ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
        }

        /** Set when the thread was interrupted while in doubt; restored when the branch ends. */
        private boolean interrupted;

        private Outcome inquire() {
            counters.inquiries.increment();
            counters.messages.increment();
            counters.roundTrips.increment();
            Object answer = endpoint.call(coordinator, MessageKind.TWO_PHASE_COMMIT, new Messages.Inquire(gtid));
            return answer instanceof Outcome o ? o : Outcome.UNKNOWN; // lost: ask again later
        }
    }

    static byte[] rowBytes(TupleView row) {
        byte[] image = new byte[row.rowBytes()];
        row.copyRowTo(image, 0);
        return image;
    }
}
