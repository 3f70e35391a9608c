package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.VerbBatch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Eviction for one {@link SelccNode} (section 5.2 of the paper): CLOCK, a hand over the frames' headers,
 * write-back of dirty bytes and release of the global latches in one batch per memory node. Runs on
 * demand (a thread that finds no free frame) and in the node's eviction worker, whose duty cycle
 * ({@link #runWorker}, run by an {@link EvictionAgent}) keeps the free list above its low-water mark.
 */
final class Evictor {
    private final SelccNode node;
    /**
     * The CLOCK hand: the frame index where the next stretch of the walk starts (taken {@link #HAND_STEP}
     * frames at a time, so concurrent evictions walk different frames; unsigned, modulo the frame count).
     */
    private final AtomicInteger hand = new AtomicInteger();
    /**
     * Frames a stretch of the hand covers. An eviction that has its victims before its stretch's end moves the
     * hand back to the first frame it did not visit; when another eviction took a stretch meanwhile, the rest
     * waits for the hand's next turn (neither bit cleared nor frame taken), so stretches are kept small.
     */
    private static final int HAND_STEP = 16;
    private volatile Thread evictionWorker;
    private volatile boolean workerSleeping;
    /**
     * Passing holds: frames X-latched by a thread that releases or hands over their global latch itself
     * and unlatches them a moment later. An eviction (the worker's, a thread's that found no free frame, a
     * flush's own) holds its victims until their release verbs are posted; a serve of another node's
     * request answers before it unlatches, so its requester may be done with the grant while the frame is
     * still held. A flush skips held frames, so it waits for these (see {@link #flush}).
     */
    private final AtomicInteger passingHolds = new AtomicInteger();
    /** The longest a flush waits for passing holds (a serve waits on a verb or two, never on a requester). */
    private static final long FLUSH_WAIT_NANOS = 5_000_000_000L;

    /**
     * Most frames one eviction takes, the worker's or a thread's that found no free frame: its victims stay
     * latched until the batch's write-back and releases are posted, and an access that meets one gives up
     * under no-wait 2PL (batches of several hundred raised New-Order's aborts per commit from 0.001 to 0.004-0.005).
     */
    static final int BATCH = 64;
    /** Evictions in a row that found no victim after which the worker stops a refill above the low water mark. */
    private static final int EMPTY_PASSES_BEFORE_SLEEP = 4;

    Evictor(SelccNode node) {
        this.node = node;
    }

    /**
     * Evicts up to {@code want} frames that no thread holds, chosen by CLOCK (see FrameTable): releases their global
     * latches and writes back only dirty bytes, one batch (one round trip) per memory node.
     */
    int evict(int want) {
        return evict(want, false);
    }

    /** As {@link #evict(int)}; {@code everything} ignores reference bits (a flush takes every unheld frame). */
    private int evict(int want, boolean everything) {
        holdStarted();
        try {
            return evictCounted(want, everything);
        } finally {
            holdEnded();
        }
    }

    /** A passing hold begins (before its frame is offered to anyone): {@link #holdEnded} once it unlatched. */
    void holdStarted() {
        passingHolds.incrementAndGet();
    }

    void holdEnded() {
        passingHolds.decrementAndGet();
    }

    private int evictCounted(int want, boolean everything) {
        List<CacheFrame> victims = new ArrayList<>(want);
        CacheFrame[] frames = node.frames;
        long[] headers = node.headers;
        int n = frames.length;
        // At most one turn's worth of frames per call (other evictions may move the hand meanwhile: a frame whose
        // bit was cleared is looked at again after a turn either way). A flush (everything) walks every frame
        // from the first itself: the shared hand, moved on by a concurrent eviction, could carry it past frames
        // it must write back.
        int step = Math.min(HAND_STEP, n);
        for (int scanned = 0; scanned < n && victims.size() < want; ) {
            int start = everything ? scanned : hand.getAndAdd(step); // evictions walk different stretches
            int end = Math.min(step, n - scanned);
            int visited = 0;
            for (; visited < end && victims.size() < want; visited++) {
                int index = Integer.remainderUnsigned(start + visited, n);
                int at = FrameHeader.at(index);
                if (FrameHeader.tag(headers, at) == FrameHeader.NO_TAG) {
                    continue; // free, or being installed or retired by a thread that holds it
                }
                if (!everything && FrameHeader.referenced(headers, at)) {
                    FrameHeader.referenced(headers, at, false); // racy with a hit's set: a hint either way
                    continue;
                }
                CacheFrame frame = frames[index];
                long stamp = frame.tryWriteLock();
                if (stamp == 0) {
                    continue; // held: not a victim now
                }
                if (frame.address() == CacheFrame.NO_ADDRESS) {
                    // It went to the free list since its tag was read. A request that met this latch and was
                    // left on the frame is answered now (it is stale), as a discard answers it.
                    node.releaseFreed(frame, stamp);
                    continue;
                }
                frame.evictionStamp = stamp;
                victims.add(frame);
            }
            if (!everything && visited < step) {
                // Done before the stretch's end: the hand goes back to the first frame not visited, unless
                // another eviction took a stretch since (then those frames wait for the next turn).
                hand.compareAndSet(start + step, start + visited);
            }
            scanned += visited;
        }
        if (victims.isEmpty()) {
            return 0;
        }
        victims.sort(Comparator.comparingInt(frame -> GlobalAddress.memoryNode(frame.address())));
        VerbBatch batch = node.batches.get();
        for (int i = 0; i < victims.size(); ) {
            int memoryNode = GlobalAddress.memoryNode(victims.get(i).address());
            batch.clear();
            for (; i < victims.size() && GlobalAddress.memoryNode(victims.get(i).address()) == memoryNode; i++) {
                CacheFrame frame = victims.get(i);
                long latch = SelccNode.latchOf(frame.address());
                switch (frame.ownership()) {
                    case MODIFIED -> {
                        node.writeBackVerbs(batch, frame);
                        batch.faa(latch, LatchWord.releaseExclusiveDelta(node.nodeId)); // never a CAS to zero
                    }
                    case SHARED -> batch.faa(latch, LatchWord.releaseSharedDelta(node.nodeId));
                    case INVALID -> { }
                }
            }
            if (batch.size() > 0) {
                try {
                    node.endpoint.post(batch);
                } catch (RuntimeException | Error e) {
                    for (CacheFrame frame : victims) {
                        frame.unlockWrite(frame.evictionStamp); // no thread of this node may wait on them for ever
                    }
                    throw e;
                }
            }
        }
        for (CacheFrame frame : victims) {
            node.discard(frame, frame.evictionStamp);
        }
        node.counters.add(Counter.EVICTIONS, victims.size());
        node.counters.increment(Counter.EVICTION_BATCHES);
        return victims.size();
    }

    /**
     * Evicts every frame no thread holds: all dirty data reaches memory and all global latches are released.
     * Repeats until a pass finds nothing and no passing hold is left (a serve or another eviction may hold
     * a frame this pass skipped), waiting for those a bounded time; a wait that runs out is counted and the
     * flush ends without their frames.
     */
    void flush() {
        long deadline = System.nanoTime() + FLUSH_WAIT_NANOS;
        while (true) {
            if (evict(Math.max(1, node.frames.length), true) > 0) {
                continue;
            }
            if (passingHolds.get() == 0) {
                return;
            }
            if (System.nanoTime() - deadline >= 0) {
                node.counters.increment(Counter.FLUSH_WAIT_TIMEOUTS);
                return;
            }
            LockSupport.parkNanos(this, 20_000);
        }
    }

    /**
     * The eviction worker's duty cycle: woken below the low water mark, it refills the free list to twice
     * the mark, at most {@link #BATCH} frames per eviction, then sleeps. The refill is what spares the
     * threads an eviction of their own (a thread that finds the list empty evicts inline); the batch bound
     * keeps each victim latched for one batch's write-back only, whatever the mark.
     */
    void runWorker() {
        evictionWorker = Thread.currentThread();
        int lowWater = node.settings.freeListLowWater();
        // Twice the mark, but not beyond half the cache (the worker would chase every frame the threads load),
        // nor below the mark itself, where an explicit mark is above half the cache.
        int highWater = Math.max(lowWater, Math.min(2 * lowWater, node.frames.length / 2));
        boolean refilling = false;
        int emptyPasses = 0;
        while (!Thread.currentThread().isInterrupted() && !node.crashed) {
            int freeNow = node.free.size();
            if (freeNow < lowWater || (refilling && freeNow < highWater)) {
                refilling = true;
                int evicted;
                try {
                    evicted = evict(Math.min(BATCH, highWater - freeNow));
                } catch (io.selcc.fabric.NodeFailedException e) {
                    return; // this node was fenced (crashed): its cache is lost, nothing to write back
                }
                if (evicted == 0) {
                    // The frames looked at were referenced (their bits are clear now: the next pass may take
                    // them) or held. A few such passes in a row above the mark: sleep rather than poll.
                    refilling = ++emptyPasses < EMPTY_PASSES_BEFORE_SLEEP;
                    LockSupport.parkNanos(this, 50_000);
                } else {
                    emptyPasses = 0;
                }
            } else {
                refilling = false;
                emptyPasses = 0;
                workerSleeping = true;
                if (node.free.size() >= lowWater) {
                    LockSupport.park(this);
                }
                workerSleeping = false;
            }
        }
    }

    /** Wakes the eviction worker so that it sees the node crashed and ends. */
    void stopWorker() {
        Thread worker = evictionWorker;
        if (worker != null) {
            LockSupport.unpark(worker);
        }
    }

    void wakeWorker() {
        Thread worker = evictionWorker;
        if (worker != null && workerSleeping) {
            LockSupport.unpark(worker);
        }
    }
}
