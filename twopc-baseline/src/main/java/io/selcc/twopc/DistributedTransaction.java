package io.selcc.twopc;

import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.Redo;
import io.selcc.engine.RowVisitor;
import io.selcc.engine.Transaction;
import io.selcc.storage.TupleBuffer;
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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A transaction of partitioned mode, begun on its home node ({@link PartitionedDatabase#begin}): work on
 * the home partition runs in a local engine transaction on the caller's thread ({@link #local()}), work on
 * another partition is shipped to its owner, where a branch runs it under the owner's concurrency
 * control. A transaction that touched only its home partition commits as any local one; otherwise the
 * home node coordinates two-phase commit (presumed abort, see {@link PartitionedDatabase}).
 *
 * <p>A remote update reads the row for update (the owner locks it), applies the updater here, and
 * ships the after-image with the prepare: one round trip per row, none extra. The transaction reads its
 * own remote writes. Conflicts on a remote branch, and lost messages, abort the whole transaction: the
 * call throws {@link AbortException}, and everything is rolled back already. Used by one thread.
 */
public final class DistributedTransaction implements AutoCloseable {
    private final PartitionedDatabase db;
    private final int home;
    private final Transaction local;
    private final long gtid;
    private final Map<Integer, Remote> remotes = new TreeMap<>();
    private boolean active = true;
    /** Updaters running now (an updater may update another row): commit, abort and close are refused meanwhile. */
    private int updatersRunning;
    /** Home scans now running (their visitors are the caller's code, as updaters are): see {@link #refuseInsideCallback}. */
    private int homeScansRunning;
    /** Writers of rows inserted on other partitions now running: as updaters. */
    private int remoteWritersRunning;
    private CommitOutcome outcome;

    /** One remote branch as the coordinator sees it. */
    private static final class Remote {
        int ops;
        /** After-images to install at prepare, by table and key (the last one wins). */
        final Map<String, Map<Long, byte[]>> writes = new LinkedHashMap<>();
    }

    DistributedTransaction(PartitionedDatabase db, int home, Transaction local, long gtid) {
        this.db = db;
        this.home = home;
        this.local = local;
        this.gtid = gtid;
    }

    /** The home branch: the full engine API on the home partition's rows. */
    public Transaction local() {
        return local;
    }

    public int homeNode() {
        return home;
    }

    /** Whether work was shipped to another partition so far. */
    public boolean isDistributed() {
        return !remotes.isEmpty();
    }

    /** The row of {@code table} with primary key {@code key} in {@code node}'s partition, or null; a private copy. */
    public TupleView read(int node, String table, long key) {
        checkActive();
        if (node == home) {
            return home(() -> local.get(db.node(home).table(table), key));
        }
        byte[] mine = pending(node, table, key);
        if (mine != null) {
            return view(table, mine);
        }
        Row row = (Row) send(node, remote(node), ops -> new Read(gtid, ops, table, key, false), Row.class);
        return row.image() == null ? null : view(table, row.image());
    }

    /**
     * Updates the row of {@code table} with key {@code key} in {@code node}'s partition; false if there is
     * none. As {@code Transaction.update}: the updater may change the row's columns, not its CC header, and
     * an updater that throws aborts the transaction.
     */
    public boolean update(int node, String table, long key, Consumer<TupleView> updater) {
        checkActive();
        boolean found;
        Throwable failure = null;
        updatersRunning++;
        try {
            found = node == home ? home(() -> local.update(db.node(home).table(table), key, updater))
                : updateRemote(node, table, key, updater);
        } catch (Throwable e) {
            failure = e;
            if (active) {
                try {
                    // The home branch rolled back already if its updater threw.
                    rollback(e instanceof AbortException a ? a.reason() : AbortReason.USER_ABORT);
                } catch (Throwable cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        } finally {
            updatersRunning--;
            finishDeferredRollback(failure);
        }
        checkNotEndedUnder("updater");
        return found;
    }

    /**
     * Commit, abort and close end the transaction under a running updater's or home scan visitor's feet:
     * refused, as Transaction refuses them (before anything of this transaction changes).
     */
    private void refuseInsideCallback(String what) {
        if (updatersRunning > 0) {
            throw new IllegalStateException(what + " inside an updater: an updater aborts its transaction by"
                + " throwing: gtid=0x" + Long.toHexString(gtid));
        }
        if (homeScansRunning > 0) {
            throw new IllegalStateException(what + " inside a reader or scan visitor: end the transaction after"
                + " the scan returns: gtid=0x" + Long.toHexString(gtid));
        }
        if (remoteWritersRunning > 0 || local.insideCallback()) {
            throw new IllegalStateException(what + " inside a callback (a row writer, or the home branch's"
                + " updater, reader or visitor): end the transaction after it returns: gtid=0x"
                + Long.toHexString(gtid));
        }
    }

    /**
     * Whether the caller's code runs inside the home branch now: an updater, a home scan's visitor, or a
     * callback of an operation the caller started on {@link #local()} itself.
     */
    private boolean homeCallbackRunning() {
        return updatersRunning > 0 || homeScansRunning > 0 || local.insideCallback();
    }

    /**
     * Rolls the home branch back once the last callback that deferred it has returned or thrown; a failure
     * of that rollback joins {@code failure} (the exception on its way out, if any) as suppressed.
     */
    private void finishDeferredRollback(Throwable failure) {
        try {
            if (!active && !homeCallbackRunning() && local.isActive()) {
                local.abort(); // left by a rollback under a callback; none of this transaction's runs now
            }
        } catch (RuntimeException | Error e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    /**
     * After the caller's code ran (an updater, a writer, a scan's visitor): a nested call that ended the
     * transaction meanwhile (a remote branch refused) while the code carried on and returned voids its work.
     */
    private void checkNotEndedUnder(String callback) {
        if (!active) {
            throw new IllegalStateException("the distributed transaction ended while its " + callback + " ran: gtid=0x"
                + Long.toHexString(gtid));
        }
    }

    private boolean updateRemote(int node, String table, long key, Consumer<TupleView> updater) {
        Remote remote = remote(node);
        byte[] image = pending(node, table, key);
        if (image == null) {
            Row row = (Row) send(node, remote, ops -> new Read(gtid, ops, table, key, true), Row.class);
            if (row.image() == null) {
                return false;
            }
            image = row.image();
        }
        TupleBuffer buffer = new TupleBuffer(schema(table));
        buffer.copyRowFrom(image, 0);
        TupleView view = new TupleView(buffer.schema()).wrapColumns(buffer);
        updater.accept(view);
        byte[] after = Participant.rowBytes(view);
        remote.writes.computeIfAbsent(table, t -> new LinkedHashMap<>()).put(key, after);
        return true;
    }

    /** Inserts a row into {@code table} of {@code node}'s partition; false if its key is taken. */
    public boolean insert(int node, String table, Consumer<TupleView> writer) {
        checkActive();
        if (node == home) {
            boolean inserted = home(() -> local.insert(db.node(home).table(table), writer));
            finishDeferredRollback(null); // the home rollback a nested refusal left for after the writer
            checkNotEndedUnder("row writer");
            return inserted;
        }
        TupleView view = new TupleView(schema(table)).wrap(new TupleBuffer(schema(table)));
        remoteWritersRunning++;
        try {
            writer.accept(view);
        } finally {
            remoteWritersRunning--;
        }
        checkActive(); // a nested call may have ended the transaction while the writer ran
        byte[] image = Participant.rowBytes(view);
        Done done = (Done) send(node, remote(node), ops -> new Insert(gtid, ops, table, image), Done.class);
        return done.changed();
    }

    /** Deletes the row of {@code table} with key {@code key} in {@code node}'s partition; false if there is none. */
    public boolean delete(int node, String table, long key) {
        checkActive();
        if (node == home) {
            return home(() -> local.delete(db.node(home).table(table), key));
        }
        Remote remote = remote(node);
        Map<Long, byte[]> mine = remote.writes.get(table);
        if (mine != null) {
            mine.remove(key); // the row goes: an after-image for it must not be installed at prepare
        }
        Done done = (Done) send(node, remote, ops -> new Delete(gtid, ops, table, key), Done.class);
        return done.changed();
    }

    /**
     * Scans {@code index} of {@code node}'s partition over keys in [low, high], at most {@code limit} rows,
     * forward or backward; returns the rows delivered. Remote rows come back in one reply (they do not
     * reflect this transaction's remote updates not yet installed).
     */
    public int scan(int node, String index, long low, long high, int limit, boolean backward, RowVisitor visitor) {
        checkActive();
        if (node == home) {
            io.selcc.engine.Index i = db.node(home).index(index);
            int delivered;
            Throwable failure = null;
            homeScansRunning++;
            try {
                delivered = home(() -> backward ? local.scanBackward(i, low, high, limit, visitor)
                    : local.scan(i, low, high, limit, visitor));
            } catch (Throwable e) {
                failure = e;
                throw e;
            } finally {
                homeScansRunning--;
                finishDeferredRollback(failure);
            }
            checkNotEndedUnder("scan's visitor");
            return delivered;
        }
        Rows rows = (Rows) send(node, remote(node), ops -> new Scan(gtid, ops, index, low, high, limit, backward), Rows.class);
        String table = db.node(home).index(index).table().name();
        int delivered = 0;
        for (byte[] image : rows.images()) {
            delivered++;
            if (!visitor.visit(view(table, image))) {
                break;
            }
        }
        return delivered;
    }

    /**
     * Commits: locally if only the home partition was touched, by two-phase commit otherwise.
     *
     * @throws CoordinatorFailedException if an injected fault killed the coordinator meanwhile
     */
    public CommitOutcome commit() {
        checkActive();
        refuseInsideCallback("commit");
        active = false;
        if (remotes.isEmpty()) {
            outcome = local.commit();
            if (outcome.committed()) {
                db.counters().singlePartitionCommits.increment();
            }
            return outcome;
        }
        Coordinator coordinator = db.coordinator(home);
        long epoch = coordinator.deciding(gtid);
        TwoPcFaults.CoordinatorDeath[] death = {TwoPcFaults.CoordinatorDeath.NONE};
        boolean[] voted = {false};
        try {
            outcome = local.commit(gtid, (Redo changes) -> {
                voted[0] = true;
                return decide(coordinator, epoch, changes, death);
            });
        } finally {
            if (death[0] == TwoPcFaults.CoordinatorDeath.NONE) {
                coordinator.decided(gtid);
            }
            if (!voted[0]) {
                tellRemotes(false); // the home branch failed before its commit point: nobody was asked
            }
        }
        if (death[0] != TwoPcFaults.CoordinatorDeath.NONE) {
            throw new CoordinatorFailedException(home, gtid, death[0] == TwoPcFaults.CoordinatorDeath.BEFORE_DECISION
                ? "after every participant voted yes, before deciding" : "after forcing its commit decision, before telling anyone");
        }
        (outcome.committed() ? db.counters().distributedCommits : db.counters().distributedAborts).increment();
        return outcome;
    }

    /**
     * The home branch's commit point, every local write latch held: phase one to every remote branch,
     * then the decision. Returns whether the home branch commits.
     */
    private boolean decide(Coordinator coordinator, long epoch, Redo localChanges, TwoPcFaults.CoordinatorDeath[] death) {
        // What every branch read was appended before now (their operations are done): that must be durable
        // before the decision is (see below). Marked now, waited for after the prepare wave, whose forces
        // it overlaps.
        long readsAppended = db.node(home).appendedMark();
        int n = remotes.size();
        int[] nodes = new int[n];
        Object[] requests = new Object[n];
        int i = 0;
        for (Map.Entry<Integer, Remote> e : remotes.entrySet()) {
            nodes[i] = e.getKey();
            List<Write> writes = new ArrayList<>();
            e.getValue().writes.forEach((table, rows) -> rows.forEach((key, image) -> writes.add(new Write(table, key, image))));
            requests[i++] = new Prepare(gtid, e.getValue().ops, writes);
        }
        Object[] votes = db.sendAll(home, nodes, n, requests);
        boolean allYes = true;
        int[] toTell = new int[n];
        int tell = 0;
        for (int j = 0; j < n; j++) {
            if (votes[j] == Vote.READ_ONLY) {
                continue; // dropped out: released already, nothing to tell it
            }
            toTell[tell++] = nodes[j]; // a yes, and also a lost answer: it may have prepared
            if (votes[j] != Vote.YES) {
                allYes = false;
            }
        }
        if (!allYes) {
            tellAll(toTell, tell, false); // presumed abort: nothing logged
            return false;
        }
        if (tell == 0) {
            return true; // every remote branch only read and dropped out: the home branch commits alone
        }
        death[0] = db.faults().coordinatorDeath(home, gtid);
        if (death[0] == TwoPcFaults.CoordinatorDeath.BEFORE_DECISION) {
            coordinator.die();
            return false; // its own branch dies with it: recovery finds no decision, so it aborted
        }
        try {
            // Once what the branches read is durable, a recovery that applies this transaction from the
            // two-phase-commit logs applies it on what it read (a gap in the commit logs below would
            // otherwise end the replay before it).
            db.node(home).awaitMarkDurable(readsAppended);
        } catch (RuntimeException e) {
            tellAll(toTell, tell, false); // the log failed: nothing was decided, so presumed abort holds
            return false;
        }
        boolean decided;
        try {
            decided = coordinator.decideCommit(gtid, epoch, localChanges, db.faults());
        } catch (RuntimeException | Error e) {
            // The decision's force failed: the record may be on disk (then a recovered coordinator tells
            // the participants commit) or not (abort). Rolling back here could contradict them; the home
            // branch stays prepared, latches held, and learns the outcome from the recovered log, as a
            // participant in doubt does.
            System.getLogger(DistributedTransaction.class.getName()).log(System.Logger.Level.ERROR,
                "commit decision of " + gtid + " not known to be forced; coordinator " + home
                    + " down, its own branch waits for its recovery", e);
            return coordinator.awaitOutcomeWhenUp(gtid) == Outcome.COMMIT;
        }
        if (!decided) {
            // It died or recovered meanwhile (another transaction's fault): this one was forgotten, and a
            // recovered coordinator tells its participants abort. So it aborts.
            tellAll(toTell, tell, false);
            return false;
        }
        db.counters().decisionRecords.increment();
        db.faults().decisionForced(home, gtid);
        if (death[0] == TwoPcFaults.CoordinatorDeath.AFTER_DECISION) {
            coordinator.die();
            return true; // its own branch is in the decision record: recovery would redo it
        }
        coordinator.decided(gtid);
        if (tellAll(toTell, tell, true)) {
            coordinator.log().forget(gtid); // every participant applied it: nobody will ask
        }
        return true;
    }

    /** Sends the decision to {@code count} nodes in one wave; whether every one acknowledged it. */
    private boolean tellAll(int[] nodes, int count, boolean commit) {
        if (count == 0) {
            return true;
        }
        Object[] requests = new Object[count];
        for (int j = 0; j < count; j++) {
            requests[j] = new Decide(gtid, commit);
        }
        Object[] acks = db.sendAll(home, nodes, count, requests);
        for (int j = 0; j < count; j++) {
            if (acks[j] != Messages.Ack.ACK) {
                return false;
            }
        }
        return true;
    }

    /** Rolls back every branch. */
    public void abort() {
        checkActive();
        refuseInsideCallback("abort");
        rollback(AbortReason.USER_ABORT);
    }

    /**
     * Rolls back if still active. Once ended, rolls back a home branch a rollback under a callback left
     * active (a remote refusal inside a reader, visitor or updater the caller started on {@link #local()},
     * which returned since).
     */
    @Override
    public void close() {
        if (active) {
            refuseInsideCallback("close");
            rollback(AbortReason.USER_ABORT);
        } else {
            finishDeferredRollback(null);
        }
    }

    public boolean isActive() {
        return active;
    }

    /** Its global transaction id (tests: what the coordinator's log holds). */
    long gtid() {
        return gtid;
    }

    /** The outcome once ended; null while active. */
    public CommitOutcome outcome() {
        return outcome;
    }

    /**
     * Rolls every branch back, the outcome aborted with {@code reason} unless already set. The remote
     * branches are told even when the home branch's rollback fails; under a running updater or home scan the
     * home branch is left to {@link #update} or {@link #scan}, which roll it back once the caller's code has
     * returned or thrown (under a callback started on {@link #local()}, to {@link #close}).
     */
    private void rollback(AbortReason reason) {
        active = false;
        if (outcome == null) {
            outcome = CommitOutcome.aborted(reason);
        }
        try {
            if (local.isActive() && !homeCallbackRunning()) {
                local.abort();
            }
        } finally {
            if (tellRemotes(false)) {
                db.counters().distributedAborts.increment();
            }
        }
    }

    /** Sends the decision to every remote branch; whether there was any. */
    private boolean tellRemotes(boolean commit) {
        int[] nodes = new int[remotes.size()];
        int n = 0;
        for (int node : remotes.keySet()) {
            nodes[n++] = node;
        }
        tellAll(nodes, n, commit);
        return n > 0;
    }

    /** A home-side operation: a conflict there rolls back the remote branches too, at once. */
    private <T> T home(java.util.function.Supplier<T> operation) {
        try {
            return operation.get();
        } catch (AbortException e) {
            if (active) { // not when a nested remote call's refusal rolled everything back already
                rollback(e.reason());
            }
            throw e;
        }
    }

    private interface OpMaker {
        Op make(int opNumber);
    }

    /** Ships one operation; a refusal or a lost message aborts the transaction (throws). */
    private Object send(int node, Remote remote, OpMaker maker, Class<?> expected) {
        Object reply = db.send(home, node, maker.make(++remote.ops));
        if (expected.isInstance(reply)) {
            return reply;
        }
        AbortReason reason = reply instanceof Refused r ? r.reason() : AbortReason.GLOBAL_ABORT;
        rollback(reason);
        throw new AbortException(reason, "branch on node " + node + (reply instanceof Refused ? " refused" : " did not answer")
            + ": gtid=0x" + Long.toHexString(gtid));
    }

    private Remote remote(int node) {
        if (node < 0 || node >= db.nodeCount()) {
            throw new IllegalArgumentException("no such partition: node=" + node + " (nodes: " + db.nodeCount() + ")");
        }
        return remotes.computeIfAbsent(node, n -> new Remote());
    }

    private byte[] pending(int node, String table, long key) {
        Remote remote = remotes.get(node);
        if (remote == null) {
            return null;
        }
        Map<Long, byte[]> rows = remote.writes.get(table);
        return rows == null ? null : rows.get(key);
    }

    private io.selcc.storage.Schema schema(String table) {
        return db.node(home).table(table).schema();
    }

    private TupleView view(String table, byte[] rowImage) {
        TupleBuffer buffer = new TupleBuffer(schema(table));
        buffer.copyRowFrom(rowImage, 0);
        return new TupleView(buffer.schema()).wrap(buffer);
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("transaction ended: gtid=0x" + Long.toHexString(gtid));
        }
    }
}
