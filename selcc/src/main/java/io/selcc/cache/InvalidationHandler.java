package io.selcc.cache;

import io.selcc.cache.InvalidationMessages.Answer;
import io.selcc.cache.InvalidationMessages.Cancel;
import io.selcc.cache.InvalidationMessages.CancelAck;
import io.selcc.cache.InvalidationMessages.Invalidate;
import io.selcc.fabric.Counter;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.ReplyHandle;
import io.selcc.fabric.VerbBatch;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The receiving side of the protocol's invalidations (sections 4.4 and 5.1 of the paper) for one
 * {@link SelccNode}: an invalidation is answered at once when its frame is free, else kept as the
 * frame's pending request (the highest priority wins, fairness on) and served when the holder
 * releases, or cancelled if the requester stops waiting. Runs on the node's message handler threads
 * and on its threads that release a frame; never blocks on a frame.
 */
final class InvalidationHandler {
    private final SelccNode node;
    /**
     * Requests this node keeps pending, by sender and id: a cancel finds its request here even when the
     * frame it was kept on was evicted or reused meanwhile (it would not find it through the table).
     */
    private final java.util.concurrent.ConcurrentHashMap<Long, InvalidationRequest> kept =
        new java.util.concurrent.ConcurrentHashMap<>();

    InvalidationHandler(SelccNode node) {
        this.node = node;
    }

    void onMessage(int fromNode, Object message, ReplyHandle reply) {
        switch (message) {
            case Invalidate invalidate -> {
                long key = InvalidationRequest.key(fromNode, invalidate.requestId());
                InvalidationRequest request = new InvalidationRequest(invalidate, fromNode, reply, () -> kept.remove(key));
                // Before anything acts on it: a request whose connection is lost must not be served afterwards,
                // or its grant would land with nobody told (decisions.md: "A connection lost between two live
                // compute nodes is reconnected"). The requester, once reconnected, reads the latch word instead.
                if (node.endpoint.connectionsCanDrop()) { // else never lost: nothing to watch (no lambda per request)
                    reply.whenLost(() -> abandon(request));
                }
                onInvalidation(request);
            }
            case Cancel cancel -> reply.reply(new CancelAck(cancel.requestId(), onCancel(fromNode, cancel)));
            default -> throw new IllegalArgumentException("not an invalidation request: node=" + node.nodeId + " from="
                + fromNode + " message=" + message.getClass().getName());
        }
    }

    /**
     * The connection {@code request} came on is lost (the fabric's thread, before it accepts the requester's
     * next connection): it is never served from now on, and one being served right now is waited for, so
     * that once this returns the latch word holds whatever it granted and nothing changes it for the request
     * any more. The requester reads the word then ({@link RemoteAcquire}'s settleLostAnswer).
     */
    private void abandon(InvalidationRequest request) {
        switch (request.abandon()) {
            case PENDING -> node.counters.increment(Counter.INVALIDATIONS_ABANDONED);
            case SERVING -> {
                node.counters.increment(Counter.INVALIDATIONS_LOST_IN_SERVICE);
                request.awaitAnswered(); // a verb or two: the serve never waits for the requester
            }
            default -> { } // answered before: its answer was lost, what it granted is in the word
        }
    }

    /** Handler for invalidation messages: answers at once or keeps the request; never blocks on a frame. */
    private void onInvalidation(InvalidationRequest request) {
        node.counters.increment(Counter.INVALIDATIONS_RECEIVED);
        CacheFrame frame = node.table.get(request.address);
        if (frame == null) {
            drop(request); // evicted: the release is already in memory
            return;
        }
        long stamp = frame.tryWriteLock();
        if (stamp == 0) {
            if (request.age != ComputeNode.NO_AGE) {
                long holder = frame.agedHolders.oldest();
                // An older waiter of this node would be overtaken once the holders leave: die for it too.
                boolean die = WaitDie.mustDie(request.age, Math.min(holder, frame.agedWaiters.oldest()));
                WaitDie.Seam seam = node.waitDieSeam;
                if (seam != null) {
                    if (die) {
                        seam.dies(request.age, holder, true);
                    } else {
                        seam.waits(request.age, holder, true);
                    }
                }
                if (die) {
                    request.finish(Answer.Status.DIE); // never kept: the requester aborts rather than wait for an older holder
                    return;
                }
            }
            offerPending(frame, request);
            return;
        }
        node.evictor.holdStarted(); // a serve answers before it unlatches: a flush waits for it
        try {
            if (request.claimAtOnce()) { // else its connection was lost meanwhile: it is abandoned
                serve(frame, request);
            }
        } finally {
            frame.unlockWrite(stamp);
            node.evictor.holdEnded();
        }
        servePendingIfIdle(frame);
    }

    /**
     * The requester stopped waiting: cancel its request if it is still pending here. False if it was
     * served, dropped or is being served: its answer went or goes out as usual.
     */
    private boolean onCancel(int fromNode, Cancel cancel) {
        InvalidationRequest pending = kept.get(InvalidationRequest.key(fromNode, cancel.requestId()));
        // It stays on its frame, answered: the next holder to take it resets the lease it counted for.
        return pending != null && pending.cancel();
    }

    /** Keeps the request as the frame's pending one if it has the highest priority; else drops it. */
    private void offerPending(CacheFrame frame, InvalidationRequest request) {
        if (!node.settings.fairness()) {
            drop(request);
            return;
        }
        if (!request.markPending()) {
            return; // abandoned: its connection was lost
        }
        kept.put(InvalidationRequest.key(request.fromNode, request.requestId), request);
        while (true) {
            InvalidationRequest current = frame.pending();
            if (current != null && current.isPending() && current.priority >= request.priority) {
                request.claim();
                drop(request);
                return;
            }
            if (frame.casPending(current, request)) {
                if (current != null && current.dropIfPending()) {
                    node.counters.increment(Counter.INVALIDATIONS_DROPPED);
                }
                break;
            }
        }
        node.counters.increment(Counter.INVALIDATIONS_PENDING);
        // The holder may have released before it could see the request.
        servePendingIfIdle(frame);
    }

    void servePendingIfIdle(CacheFrame frame) {
        while (frame.pending() != null) {
            long stamp = frame.tryWriteLock();
            if (stamp == 0) {
                return; // the holder serves it when it releases
            }
            node.evictor.holdStarted();
            try {
                InvalidationRequest request = frame.takePending();
                if (request != null && request.claim()) {
                    serve(frame, request);
                }
                frame.resetLease(); // the lease counted for that request; the next one starts afresh
            } finally {
                frame.unlockWrite(stamp);
                node.evictor.holdEnded();
            }
        }
    }

    /**
     * Acts on an invalidation while holding the frame's X latch. A grant is made on behalf of the
     * requester ({@code postFor}/{@code remoteFaaFor}): refused once the requester is fenced, so nothing
     * is handed to a crashed node after its latch words were scanned. If this node itself crashed, or a
     * verb fails, the request is dropped, so its requester never waits on it for ever.
     */
    Answer.Status serve(CacheFrame frame, InvalidationRequest request) {
        if (frame.address() != request.address || node.crashed) {
            return drop(request);
        }
        try {
            return serveHeld(frame, request);
        } catch (NodeFailedException e) {
            drop(request); // nothing was granted: the frame is as it was
            if (e.node() == node.nodeId) {
                throw e;
            }
            return Answer.Status.DROPPED;
        } catch (RuntimeException | Error e) {
            drop(request);
            throw e;
        }
    }

    private Answer.Status serveHeld(CacheFrame frame, InvalidationRequest request) {
        long latch = SelccNode.latchOf(request.address);
        Ownership ownership = frame.ownership();
        switch (request.kind) {
            case WRITER_VS_MODIFIED -> {
                if (ownership != Ownership.MODIFIED) {
                    return drop(request);
                }
                Answer grant;
                if (node.endpoint.connectionsCanDrop()) {
                    // The answer may be lost with its connection after the FAA landed: the requester then takes
                    // the line from memory (RemoteAcquire.settleLostAnswer), which the write-back, before the FAA in
                    // one batch, makes current. The paper forwards the dirty range instead (what the else does).
                    grant = new Answer(request.requestId, Answer.Status.GRANTED, CacheFrame.CLEAN, 0, forward(frame));
                    VerbBatch batch = node.batches.get().clear();
                    node.writeBackVerbs(batch, frame);
                    batch.faa(latch, LatchWord.handoverDelta(node.nodeId, request.fromNode));
                    node.endpoint.postFor(request.fromNode, batch);
                } else {
                    grant = new Answer(request.requestId, Answer.Status.GRANTED, frame.dirtyLow(), frame.dirtyHigh(),
                        forward(frame));
                    node.endpoint.remoteFaaFor(request.fromNode, latch, LatchWord.handoverDelta(node.nodeId, request.fromNode));
                }
                node.counters.increment(Counter.HANDOVERS);
                frame.ownership(Ownership.INVALID);
                frame.clearDirty();
                frame.ownerPriority = 0;
                return request.finish(grant);
            }
            case READER_VS_MODIFIED -> {
                if (ownership != Ownership.MODIFIED) {
                    return drop(request);
                }
                if (node.settings.fairness() && request.priority < frame.ownerPriority) {
                    return drop(request); // a starved writer keeps it until an equal-priority reader asks
                }
                VerbBatch batch = node.batches.get().clear();
                node.writeBackVerbs(batch, frame);
                batch.faa(latch, LatchWord.downgradeDelta(node.nodeId, request.fromNode));
                node.endpoint.postFor(request.fromNode, batch);
                Answer grant = new Answer(request.requestId, Answer.Status.GRANTED, CacheFrame.CLEAN, 0, forward(frame));
                node.counters.increment(Counter.DOWNGRADES);
                frame.ownership(Ownership.SHARED);
                frame.clearDirty();
                frame.ownerPriority = 0;
                return request.finish(grant);
            }
            case WRITER_VS_SHARED -> {
                if (ownership != Ownership.SHARED) {
                    return drop(request);
                }
                node.endpoint.remoteFaa(latch, LatchWord.releaseSharedDelta(node.nodeId));
                node.counters.increment(Counter.SHARED_RELEASES);
                frame.ownership(Ownership.INVALID);
                if (node.settings.fairness() && request.priority >= node.settings.starvationPriority()) {
                    frame.readerHoldOffUntil = node.settings.clock().getAsLong() + node.settings.readerWindowNanos(request.priority);
                    frame.readerHoldOff = true;
                }
                return request.finish(Answer.Status.RELEASED);
            }
            default -> throw new IllegalStateException("unknown invalidation: " + request.kind);
        }
    }

    private Answer.Status drop(InvalidationRequest request) {
        node.counters.increment(Counter.INVALIDATIONS_DROPPED);
        return request.finish(Answer.Status.DROPPED);
    }

    /** GCL forwarding: the latest copy goes cache-to-cache, in the answer, into the requester's frame. */
    private byte[] forward(CacheFrame frame) {
        byte[] copy = new byte[node.copyLength];
        MemorySegment.copy(frame.copy, ValueLayout.JAVA_BYTE, GclLayout.COPY_OFFSET, copy, 0, node.copyLength);
        node.counters.increment(Counter.FORWARDS);
        node.counters.add(Counter.BYTES_FORWARDED, node.copyLength);
        return copy;
    }
}
