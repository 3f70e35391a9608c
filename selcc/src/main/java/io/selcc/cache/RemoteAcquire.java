package io.selcc.cache;

import io.selcc.cache.InvalidationMessages.Answer;
import io.selcc.cache.InvalidationMessages.Cancel;
import io.selcc.cache.InvalidationMessages.Invalidate;
import io.selcc.fabric.Counter;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.MessageLost;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.VerbBatch;
import io.selcc.threads.Waits;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Remote acquisition for one {@link SelccNode} (paper sections 4.3 and 4.4): the latch-word CAS/FAA
 * steps that take a line's global latch for a frame, the invalidations a conflict calls for and the
 * waits for their answers, the retries with their priority aging (5.3.2), the handover a holder's
 * grant brings, and what an acquire does when the holder it asked failed or lost its answer. Called
 * on the locking thread, which holds the frame's local X latch throughout; what the acquire met that
 * its caller must act on it leaves in the thread's {@link AcquireState}.
 */
final class RemoteAcquire {
    /** Cap of a no-wait acquire's inherited priority: far above any starvation threshold. */
    private static final int MAX_TRY_AGE = 1 << 20;
    /** Between retries of a line a crashed node holds (see {@link #peerFailed}). */
    private static final long PEER_FAILED_PAUSE_NANOS = 200_000;
    /** How long a requester waits for the answer to a request it asked the receiver to cancel. */
    private static final long ANSWER_AFTER_CANCEL_NANOS = 30_000_000_000L;

    private final SelccNode node;
    /** Ids of the invalidations this node sends (a cancel names one). */
    private final AtomicLong requestIds = new AtomicLong();

    RemoteAcquire(SelccNode node) {
        this.node = node;
    }

    /**
     * Acquires global ownership for a frame this thread holds in local X. One round trip when free:
     * CAS+READ (X), FAA+READ (S) or CAS alone (upgrade of a shared copy). On conflict it sends the
     * invalidation the latch word calls for (4.4) and retries after T = C x RTT / Nr.
     *
     * @param txAge the wait-die age of the acquiring transaction, {@link ComputeNode#NO_AGE} for none
     * @param state the calling thread's: what the acquire met, for the caller ({@code die}, {@code peerFailed})
     * @return false when a no-wait acquire gave up (retries ran out, a reader window), when a wait-die
     *         acquire met an older holder, or when a holder crashed (then the caller lets go of the frame
     *         and calls {@link #pauseAfterPeerFailure})
     */
    boolean acquire(CacheFrame frame, boolean exclusive, boolean tryOnly, long txAge, AcquireState state) {
        boolean won = acquireWithRetries(frame, exclusive, tryOnly, txAge, state);
        if (won && tryOnly) {
            if (state.agingAddress == frame.address()) {
                state.agingPriority = 0; // the climb is over
            }
        }
        return won;
    }

    private boolean acquireWithRetries(CacheFrame frame, boolean exclusive, boolean tryOnly, long txAge,
                                       AcquireState state) {
        long address = frame.address();
        long latch = SelccNode.latchOf(address);
        VerbBatch batch = node.batches.get();
        int upgradeFailures = 0;
        // A no-wait acquire gives up after a few retries; the caller (a no-wait transaction's retry)
        // comes back for the same line. Its priority keeps climbing across those attempts, as a
        // blocking acquire's would, or a starved writer's priority (5.3.2) would refuse it for ever.
        // A wait-die acquire does not climb: a young transaction that dies again and again would
        // otherwise outbid the older ones it dies for, whose pending requests it then replaces.
        AcquireState aging = tryOnly && txAge == ComputeNode.NO_AGE ? state : null;
        int inherited = aging != null && aging.agingAddress == address ? aging.agingPriority : 0;
        for (int retries = 0; ; ) {
            long conflict;
            if (exclusive && frame.ownership() == Ownership.SHARED) {
                long mine = LatchWord.readerBit(node.nodeId);
                long previous = node.endpoint.remoteCas(latch, mine, LatchWord.exclusive(node.nodeId));
                if (previous == mine) {
                    granted(frame, Ownership.MODIFIED, retries);
                    return true;
                }
                if (!LatchWord.isReader(previous, node.nodeId)) {
                    throw protocolViolation("shared copy without its reader bit", address, previous);
                }
                conflict = previous & ~mine;
                if (++upgradeFailures >= node.settings.upgradeAttempts()) {
                    // Two upgraders block each other; fall back to release-then-acquire.
                    node.endpoint.remoteFaa(latch, LatchWord.releaseSharedDelta(node.nodeId));
                    frame.ownership(Ownership.INVALID);
                }
            } else if (exclusive) {
                batch.clear();
                int cas = batch.cas(latch, LatchWord.FREE, LatchWord.exclusive(node.nodeId));
                batch.read(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, node.copyLength);
                node.endpoint.post(batch);
                long previous = batch.result(cas);
                if (previous == LatchWord.FREE) {
                    frame.clearDirty();
                    granted(frame, Ownership.MODIFIED, retries);
                    return true;
                }
                conflict = previous;
            } else {
                if (!awaitReaderHoldOff(frame, tryOnly)) {
                    node.counters.increment(Counter.LATCH_GIVE_UPS);
                    return false; // a no-wait acquire does not sit out a reader window holding the frame
                }
                batch.clear();
                int faa = batch.faa(latch, LatchWord.readerBit(node.nodeId));
                batch.read(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, node.copyLength);
                node.endpoint.post(batch);
                long previous = batch.result(faa);
                if (!LatchWord.hasWriter(previous)) {
                    frame.clearDirty();
                    granted(frame, Ownership.SHARED, retries);
                    return true;
                }
                // A writer holds it: take our bit back, then ask the writer (4.3.2).
                node.endpoint.remoteFaa(latch, LatchWord.releaseSharedDelta(node.nodeId));
                conflict = previous;
            }
            retries++;
            node.counters.increment(Counter.LATCH_RETRIES);
            if (resolveConflict(frame, exclusive, conflict, retries + inherited, txAge, state)) {
                return true;
            }
            if (txAge != ComputeNode.NO_AGE && state.die) {
                return false; // an older transaction holds the line on another node: no point retrying
            }
            if (state.peerFailed) {
                return false; // the caller lets go of the frame, waits (pauseAfterPeerFailure) and, if blocking, comes back
            }
            if (tryOnly && retries > node.settings.tryLockRetries()) {
                node.counters.increment(Counter.LATCH_GIVE_UPS);
                if (aging != null) {
                    aging.agingAddress = address;
                    aging.agingPriority = Math.min(inherited + retries, MAX_TRY_AGE);
                }
                return false;
            }
            pauseBeforeRetry(retries);
        }
    }

    /**
     * T = C x RTT / Nr between retries. With no latency model T is 0: a young requester yields the core
     * (2-core machines), a starving one retries at once so it meets the readers' spin windows.
     */
    private void pauseBeforeRetry(int retries) {
        long interval = node.settings.retryIntervalNanos(retries, node.endpoint.roundTripNanos());
        if (interval > 0 || retries < node.settings.starvationPriority()) {
            Backoff.pause(interval, node.settings.clock());
        }
    }

    private void granted(CacheFrame frame, Ownership ownership, int retries) {
        frame.ownership(ownership);
        if (ownership == Ownership.MODIFIED) {
            // Remember a starved writer's priority: readers below it are refused (priority matching, 5.3.2).
            frame.ownerPriority = node.settings.fairness() && retries >= node.settings.starvationPriority() ? retries : 0;
        }
    }

    /** Sends the invalidations a failed latch attempt calls for. True if ownership was handed to us. */
    private boolean resolveConflict(CacheFrame frame, boolean exclusive, long conflict, int retries, long age,
                                    AcquireState state) {
        long address = frame.address();
        if (LatchWord.hasWriter(conflict)) {
            int writer = LatchWord.writer(conflict);
            if (writer == node.nodeId) {
                throw protocolViolation("latch names this node as writer but its frame is not modified", address, conflict);
            }
            InvalidationCase kind = exclusive ? InvalidationCase.WRITER_VS_MODIFIED : InvalidationCase.READER_VS_MODIFIED;
            Invalidate request = new Invalidate(requestIds.incrementAndGet(), address, kind, retries, age);
            node.counters.increment(kind.sentCounter);
            Answer answer;
            try {
                answer = awaitAnswer(writer, request, node.endpoint.send(writer, MessageKind.INVALIDATION, request));
            } catch (NodeFailedException e) {
                if (e.node() == writer && writer != node.nodeId) {
                    if (e.connectionLost() && node.endpoint.reconnect(writer)) {
                        return settleLostAnswer(frame, exclusive, retries); // the writer lives: no fence, no repair
                    }
                    if (settleLostGrant(frame, exclusive, writer, retries)) {
                        return true;
                    }
                }
                return peerFailed(e, state);
            }
            if (answer.status() != Answer.Status.GRANTED) {
                if (answer.status() == Answer.Status.DIE) {
                    state.die = true;
                }
                return false;
            }
            byte[] copy = answer.copy();
            if (copy == null || copy.length != node.copyLength) {
                throw new IllegalStateException("protocol violation: a grant without the line: node=" + node.nodeId
                    + " from=" + writer + " address=" + GlobalAddress.toString(address)
                    + " bytes=" + (copy == null ? "none" : copy.length));
            }
            MemorySegment.copy(copy, 0, frame.copy, ValueLayout.JAVA_BYTE, GclLayout.COPY_OFFSET, node.copyLength);
            frame.clearDirty();
            if (exclusive && answer.dirtyLow() != CacheFrame.CLEAN) {
                // The forwarded copy was never written back: we inherit its dirty range (4.4.1).
                frame.markDirty(answer.dirtyLow(), answer.dirtyHigh());
            }
            granted(frame, exclusive ? Ownership.MODIFIED : Ownership.SHARED, retries);
            return true;
        }
        long others = LatchWord.readers(conflict) & ~LatchWord.readerBit(node.nodeId);
        int count = Long.bitCount(others);
        if (count == 0 || !exclusive) {
            return false;
        }
        int[] targets = new int[count];
        Object[] requests = new Object[count];
        PendingReply[] replies = new PendingReply[count];
        for (int i = 0; i < count; i++) {
            targets[i] = Long.numberOfTrailingZeros(others);
            others &= others - 1;
            requests[i] = new Invalidate(requestIds.incrementAndGet(), address, InvalidationCase.WRITER_VS_SHARED, retries,
                age);
        }
        node.counters.add(Counter.INVALIDATIONS_SENT_WRITER_VS_SHARED, count);
        try {
            node.endpoint.sendAll(targets, count, MessageKind.INVALIDATION, requests, replies);
            // One wait for the whole wave.
            long deadline = node.settings.clock().getAsLong() + node.settings.pendingWaitNanos();
            for (int i = 0; i < count; i++) {
                if (awaitAnswer(targets[i], (Invalidate) requests[i], replies[i], deadline).status() == Answer.Status.DIE) {
                    state.die = true; // the other readers released or kept theirs: all the same
                }
            }
        } catch (NodeFailedException e) {
            if (e.connectionLost() && e.node() != node.nodeId && node.endpoint.reconnect(e.node())) {
                // A reader that lives: a release lost with its answer grants this node nothing, and the retry
                // reads the word afresh. No fence, no repair.
                node.counters.increment(Counter.LOST_ANSWERS);
                return false;
            }
            return peerFailed(e, state);
        }
        return false;
    }

    /**
     * The writer asked for the line lives, but the connection the request (or its cancel) went on was lost
     * before the answer came, and the writer has since given that connection up ({@link FabricEndpoint#reconnect}):
     * the request was answered into the lost connection or abandoned, never to be served, so the latch word
     * is final for it. Called with the frame latched X and INVALID, so a bit or tag of this node there is the
     * grant it never heard of (before, it fenced the writer as dead, or met its own tag on its next attempt:
     * "latch names this node as writer"). Memory holds the line as granted: a downgrade's write-back precedes
     * its FAA in one batch, and on a fabric whose connections can drop a handover writes back the same way
     * ({@link InvalidationHandler}), so the bytes the lost answer carried are not needed.
     *
     * @return true if the word shows the grant: the line is this node's, read from memory
     */
    private boolean settleLostAnswer(CacheFrame frame, boolean exclusive, int retries) {
        long address = frame.address();
        long word = node.endpoint.remoteFaa(SelccNode.latchOf(address), 0);
        node.counters.increment(Counter.LOST_ANSWERS); // once the word is read (a fault test waits for that)
        boolean granted = exclusive ? LatchWord.writer(word) == node.nodeId
            : !LatchWord.hasWriter(word) && LatchWord.isReader(word, node.nodeId);
        if (!granted) {
            return false; // the caller retries as after any refusal
        }
        if (exclusive && !node.endpoint.connectionsCanDrop()) {
            throw protocolViolation("a fabric that reconnects must say its connections can drop (the handover's"
                + " write-back depends on it)", address, word);
        }
        remoteReadCopy(frame);
        frame.clearDirty();
        node.counters.increment(Counter.LOST_GRANTS_SETTLED);
        granted(frame, exclusive ? Ownership.MODIFIED : Ownership.SHARED, retries);
        return true;
    }

    /**
     * The writer this node asked for the line failed before its answer came, and it may have granted first:
     * {@link InvalidationHandler} applies a downgrade's or a handover's FAA, and waits for it, before the
     * answer leaves. A process killed in between, or an answer lost with its connection, left the grant in
     * the word with this node unaware of it: its reader bit there made its next shared FAA carry into the
     * next bit (0x3 + 0x1 = 0x4, then "shared copy without its reader bit"); its writer tag there was a line
     * nobody would release. Once the writer is fenced nothing of it lands any more, and the word says what
     * happened. Called with the frame latched X and INVALID, so a bit or tag of this node on the line is
     * that grant.
     *
     * @return true if it was a downgrade: the line is this node's shared copy, read from memory, which the
     *         downgrade's write-back (in the same batch, before its FAA) made current
     */
    private boolean settleLostGrant(CacheFrame frame, boolean exclusive, int writer, int retries) {
        if (!node.fenceFailedPeer.test(writer)) {
            return false; // not known to be fenced: the word could still change
        }
        long address = frame.address();
        long latch = SelccNode.latchOf(address);
        long word = node.endpoint.remoteFaa(latch, 0);
        if (!exclusive) {
            if (LatchWord.hasWriter(word) || !LatchWord.isReader(word, node.nodeId)) {
                return false; // nothing was granted
            }
            remoteReadCopy(frame);
            frame.clearDirty();
            granted(frame, Ownership.SHARED, retries);
            return true;
        }
        // A handover landed, but the bytes it forwarded (never written back) went with the answer: the line goes
        // back to the failed node, whose repair restores it from the logs (or, failing, says why to whoever meets it).
        while (LatchWord.writer(word) == node.nodeId) {
            long seen = node.endpoint.remoteCas(latch, word, word + LatchWord.handoverDelta(node.nodeId, writer));
            if (seen == word) {
                break;
            }
            word = seen; // a reader's bit came and went meanwhile
        }
        return false;
    }

    /**
     * A holder of the line crashed (its node is fenced): nothing is granted until the survivors' repair
     * frees or takes over its latch bits. Reports it, then waits a little, so that a blocking acquire
     * retries without burning the core the repair needs; a no-wait one gives up as for any busy line.
     */
    private boolean peerFailed(NodeFailedException e, AcquireState state) {
        if (e.node() == node.nodeId) {
            throw e; // this node itself is fenced
        }
        String failedRepair = node.failedRepairs.get(e.node());
        if (failedRepair != null) {
            throw new RepairFailedException(e.node(), failedRepair, e); // the line will never be freed: fatal
        }
        node.peerFailures.accept(e.node());
        // The caller lets go of its frame (the survivor that adopts the line may need it, on this node)
        // and waits then, in pauseAfterPeerFailure.
        state.peerFailed = true;
        return false;
    }

    /** After an acquire that met a crashed holder let go of its frame: a short wait before anything else. */
    void pauseAfterPeerFailure(AcquireState state) {
        if (state.peerFailed) {
            state.peerFailed = false;
            LockSupport.parkNanos(PEER_FAILED_PAUSE_NANOS);
        }
    }

    /**
     * Waits for the answer to an invalidation. One the receiver kept pending is waited for the
     * configured time; then this node asks the receiver to cancel it, and the receiver decides: it
     * answers CANCELLED, or (already serving it) its real answer, which this waits for.
     */
    private Answer awaitAnswer(int receiver, Invalidate request, PendingReply reply) {
        return awaitAnswer(receiver, request, reply, node.settings.clock().getAsLong() + node.settings.pendingWaitNanos());
    }

    private Answer awaitAnswer(int receiver, Invalidate request, PendingReply reply, long deadline) {
        while (true) {
            long left = deadline - node.settings.clock().getAsLong();
            Object answer = reply.await(Math.max(0, left));
            if (answer != null) {
                return answerOf(answer, request);
            }
            if (node.settings.clock().getAsLong() - deadline >= 0) {
                break;
            }
        }
        node.counters.increment(Counter.INVALIDATIONS_CANCELLED);
        Cancel cancel = new Cancel(request.requestId(), request.address());
        PendingReply ack = node.endpoint.send(receiver, MessageKind.INVALIDATION, cancel);
        if (ack.await(ANSWER_AFTER_CANCEL_NANOS) == null) {
            throw silent(receiver, "a cancel");
        }
        Object answer = reply.await(ANSWER_AFTER_CANCEL_NANOS);
        if (answer == null) {
            throw silent(receiver, "invalidation " + request.requestId());
        }
        return answerOf(answer, request);
    }

    /** A peer that answers neither a request nor its cancel is treated as failed (a network fabric's hang). */
    private static NodeFailedException silent(int receiver, String what) {
        return new NodeFailedException(receiver, "compute node " + receiver + " did not answer " + what + " in "
            + ANSWER_AFTER_CANCEL_NANOS / 1_000_000_000L + " s");
    }

    private Answer answerOf(Object reply, Invalidate request) {
        if (reply instanceof Answer answer && answer.requestId() == request.requestId()) {
            return answer;
        }
        if (reply == MessageLost.REPLY) {
            return Answer.of(request.requestId(), Answer.Status.DROPPED); // never a grant: a lost grant is a lost line
        }
        throw new IllegalStateException("protocol violation: not the answer to invalidation " + request.requestId()
            + ": node=" + node.nodeId + " reply=" + reply);
    }

    /**
     * A starving writer asked for a window (5.3.2): remote shared acquires wait it out; a no-wait one
     * ({@code tryOnly}) gives up instead (false) and leaves the window for the next acquire.
     */
    private boolean awaitReaderHoldOff(CacheFrame frame, boolean tryOnly) {
        if (!frame.readerHoldOff) {
            return true;
        }
        long until = frame.readerHoldOffUntil;
        if (until - node.settings.clock().getAsLong() <= 0) {
            frame.readerHoldOff = false;
            return true;
        }
        if (tryOnly) {
            return false;
        }
        frame.readerHoldOff = false;
        node.counters.increment(Counter.READER_SPIN_WAITS);
        Waits.untilDeadlineGivingWay(until, node.settings.clock()); // the window is short; the writer may need this core
        return true;
    }

    /**
     * Takes a never-used line's latch with a CAS alone and zeroes the frame's copy instead of reading
     * the GCL back ({@link SelccNode#lockFresh}): the line is zero on its memory node and in no cache.
     */
    void acquireFresh(CacheFrame frame) {
        long address = frame.address();
        long latch = SelccNode.latchOf(address);
        long previous = node.endpoint.remoteCas(latch, LatchWord.FREE, LatchWord.exclusive(node.nodeId));
        if (previous != LatchWord.FREE) {
            throw protocolViolation("a never-used GCL is latched", address, previous);
        }
        frame.copy.asSlice(GclLayout.COPY_OFFSET, node.copyLength).fill((byte) 0);
        frame.clearDirty();
        granted(frame, Ownership.MODIFIED, 0);
    }

    /**
     * Takes over the line a crashed node holds exclusively ({@link ComputeNode#adoptCrashedLine}): its
     * writer tag moves to this node, and the copy is read from memory.
     */
    void adopt(CacheFrame frame, int crashedNode) {
        long address = frame.address();
        long latch = SelccNode.latchOf(address);
        // A CAS, not a blind FAA: a word that does not name the crashed node is left as it is.
        long word = node.endpoint.remoteFaa(latch, 0);
        while (true) {
            if (LatchWord.writer(word) != crashedNode) {
                throw protocolViolation("adopting a line the crashed node " + crashedNode + " does not hold",
                    address, word);
            }
            long seen = node.endpoint.remoteCas(latch, word, word + LatchWord.handoverDelta(crashedNode, node.nodeId));
            if (seen == word) {
                break;
            }
            word = seen; // a survivor's reader bit came and went meanwhile
        }
        remoteReadCopy(frame);
        frame.clearDirty();
        granted(frame, Ownership.MODIFIED, 0);
    }

    /** Reads the frame's line from memory into its copy (one round trip). */
    private void remoteReadCopy(CacheFrame frame) {
        node.endpoint.remoteRead(frame.address() + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, node.copyLength);
    }

    private IllegalStateException protocolViolation(String what, long address, long latchWord) {
        return new IllegalStateException("protocol violation: " + what + ": node=" + node.nodeId
            + " address=" + GlobalAddress.toString(address) + " latch=" + LatchWord.toString(latchWord));
    }
}
