package io.selcc.cache;

import io.selcc.cache.InvalidationMessages.Answer;
import io.selcc.cache.InvalidationMessages.Cancel;
import io.selcc.cache.InvalidationMessages.Invalidate;
import io.selcc.fabric.Counter;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.cache.GclLayout;
import io.selcc.fabric.GlobalAddress;
import io.selcc.cache.LatchWord;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeCounters;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.OffHeap;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.VerbBatch;
import io.selcc.threads.PerThread;
import io.selcc.threads.Waits;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A compute node running the SELCC protocol (paper sections 4 and 5) over its compute-side cache. This
 * class is the lock path (local latches, leases, remote acquires and the invalidations they send) and
 * the frames' bookkeeping; {@link InvalidationHandler} serves the invalidations other nodes send, and
 * {@link Evictor} keeps frames free.
 *
 * <p>Threads: front-end threads call the {@link ComputeNode} API; invalidation handlers run on the
 * sender's thread (in-JVM fabric) or a handler thread (network fabric) and only try-lock frames; a
 * request they cannot serve at once is kept on the frame and answered later through its reply handle;
 * one eviction worker per node ({@link EvictionAgent}) refills the free list. Lock order: a frame's
 * latch may be held while taking a shard monitor, never the reverse with blocking.
 */
final class SelccNode extends AbstractComputeNode {
    private static final int EXHAUSTED_ATTEMPTS = 1_000_000;
    /** Cap of a no-wait acquire's inherited priority: far above any starvation threshold. */
    private static final int MAX_TRY_AGE = 1 << 20;
    /** Between retries of a line a crashed node holds (see {@link #peerFailed}). */
    private static final long PEER_FAILED_PAUSE_NANOS = 200_000;

    private final Arena arena = Arena.ofShared();
    /** All frames' copies, frame i at i * gclSize: handles read through this one segment. */
    private final MemorySegment pool;
    final CacheFrame[] frames;
    final FrameTable table;
    final FreeFrames free;
    final NodeCounters counters;
    final PerThread<VerbBatch> batches = PerThread.withInitial(VerbBatch::new);
    /** Each thread's recently used frames by address (see {@link #frameOf}). */
    private final PerThread<RecentFrames> recentFrames = PerThread.withInitial(RecentFrames::new);
    /** Each thread's acquire state: wait-die verdict, crashed holder met, no-wait priority aging. */
    private final PerThread<AcquireState> acquireStates = PerThread.withInitial(AcquireState::new);
    /** Ids of the invalidations this node sends (a cancel names one). */
    private final AtomicLong requestIds = new AtomicLong();
    /** Serves the invalidations other nodes send this one. */
    private final InvalidationHandler invalidations;
    /** Takes local latches under the lease a pending request sets (5.3.1). */
    private final Lease lease;
    /** Keeps free frames: evicts on demand and in its worker's duty cycle. */
    final Evictor evictor;
    /** How long a requester waits for the answer to a request it asked the receiver to cancel. */
    private static final long ANSWER_AFTER_CANCEL_NANOS = 30_000_000_000L;
    final int copyLength;
    /**
     * Test seam: lets a test act at two points of a cached lock where races are otherwise rare (the
     * frame found, before its local latch; the latch held, before the address re-check). Null in
     * production; set before the locking thread starts.
     */
    LockSeam seam;
    /** Test seam: told of every wait-die decision to wait (see {@link WaitDie.Seam}). Null in production. */
    volatile WaitDie.Seam waitDieSeam;
    /**
     * A wait-die acquire waits at most this many times pendingWaitNanos, and at least the floor below:
     * the bound is for a holder that is gone, and with 10 ms one attempt's remote wait on a loaded
     * 2-core machine used it up (the wait is checked between attempts).
     */
    private static final long WAIT_DIE_WAIT_FACTOR = 5_000;
    private static final long WAIT_DIE_MIN_WAIT_NANOS = 1_000_000_000;
    /** Longest park between a wait-die acquire's attempts. */
    private static final long WAIT_DIE_MAX_PAUSE_NANOS = 100_000;

    /** See {@link #seam}. */
    interface LockSeam {
        void beforeLocalLatch(CacheFrame frame);

        void beforeAddressCheck(CacheFrame frame);
    }

    SelccNode(Settings settings, FabricEndpoint endpoint, long[] capacities) {
        super(settings, endpoint, capacities);
        this.counters = endpoint.counters();
        this.copyLength = gclSize - GclLayout.COPY_OFFSET;
        int n = settings.cacheFrames();
        this.pool = OffHeap.zeroed(arena, (long) n * gclSize, 64); // resident as frames fill
        this.frames = new CacheFrame[n];
        this.free = new FreeFrames(n);
        this.table = new FrameTable(settings.shards(), n);
        for (int i = n - 1; i >= 0; i--) {
            frames[i] = new CacheFrame(i, pool.asSlice(poolOffset(i), gclSize));
            free.push(frames[i]);
        }
        this.invalidations = new InvalidationHandler(this);
        this.lease = new Lease(settings, counters, invalidations);
        this.evictor = new Evictor(this);
        endpoint.register(MessageKind.INVALIDATION, InvalidationMessages.CODEC, invalidations::onMessage);
    }

    /**
     * The frame caching {@code address}, or null: first this thread's recent frames (a small array
     * that stays in the CPU's caches), then the frame table (two arrays of a megabyte or more, a
     * memory miss each on a large cache). A recent entry may be stale, which the check of the frame's
     * address rejects here, and what turns stale between this read and the latch the caller's re-check
     * under the latch catches, as for the table's own racy lookup.
     */
    private CacheFrame frameOf(long address) {
        RecentFrames recent = recentFrames.get();
        int i = RecentFrames.slot(address);
        CacheFrame frame = recent.frames[i];
        if (frame != null && frame.address == address) {
            recent.hits++;
            frame.touch(); // a hit, as the table's lookup records it
            return frame;
        }
        frame = table.getAndTouch(address);
        if (frame != null) {
            recent.frames[i] = frame;
        }
        return frame;
    }

    /**
     * A direct-mapped memo of frames by GCL address, per thread: 16,384 references (64 KiB), about
     * TPC-C's ITEM pages and a good part of a warehouse's STOCK pages, whose rows every New-Order reads.
     */
    static final class RecentFrames {
        private static final int BITS = 14;
        final CacheFrame[] frames = new CacheFrame[1 << BITS];
        /** Lookups this memo answered (tests check that it is used). */
        long hits;

        static int slot(long address) {
            return (int) ((address * 0x9E3779B97F4A7C15L) >>> (64 - BITS));
        }
    }

    /** Lookups the calling thread's recent-frame memo answered on this node. */
    long recentFrameHits() {
        return recentFrames.get().hits;
    }

    /** Where frame {@code frameIndex}'s copy starts in the pool. */
    private long poolOffset(int frameIndex) {
        return (long) frameIndex * gclSize;
    }

    // ================================================================ lock / unlock

    @Override
    GclHandle lock(long address, boolean exclusive, boolean tryOnly) {
        return lock(address, exclusive, tryOnly, NO_AGE);
    }

    /**
     * Wait-die: tries the latch (no-wait: local latch, bounded remote retries); when it is busy, dies if
     * an older transaction holds it (here: the frame's oldest holder age; elsewhere: the holder node's
     * {@code DIE} answer), else parks and tries again, up to a bound. Never waits holding the frame.
     */
    @Override
    GclHandle waitOrDie(long address, boolean exclusive, long age) {
        AcquireState verdict = acquireStates.get();
        long deadline = 0;
        for (int waits = 0; ; waits++) {
            verdict.clearVerdict();
            GclHandle handle = lock(address, exclusive, true, age);
            if (handle != null) {
                return handle;
            }
            if (verdict.die) {
                counters.increment(Counter.WAIT_DIE_DIES);
                return null;
            }
            long now = settings.clock().getAsLong();
            if (waits == 0) {
                counters.increment(Counter.WAIT_DIE_WAITS);
                deadline = now + Math.max(WAIT_DIE_MIN_WAIT_NANOS, WAIT_DIE_WAIT_FACTOR * settings.pendingWaitNanos());
            } else if (now - deadline >= 0) {
                counters.increment(Counter.WAIT_DIE_TIMEOUTS);
                return null;
            }
            CacheFrame waitFor = verdict.waitFor;
            if (waitFor != null) {
                waitFor.agedWaiters.add(age); // younger ones of this node die rather than overtake it meanwhile
            }
            try {
                if (waits == 0) {
                    Thread.yield();
                } else {
                    parkFor(Math.min(WAIT_DIE_MAX_PAUSE_NANOS, 1_000L << Math.min(waits, 10)));
                }
            } finally {
                if (waitFor != null) {
                    waitFor.agedWaiters.remove(age);
                }
            }
        }
    }

    /**
     * Whether an older transaction waits for this frame's line: one of this node (its age among the
     * frame's waiters) or another node's, kept pending here. A younger requester then dies at once:
     * waiting would point from younger to older, and taking the latch first would overtake it.
     */
    private boolean olderWaiter(CacheFrame frame, long age) {
        long waiter = frame.agedWaiters.oldest();
        InvalidationRequest pending = frame.pending();
        if (pending != null && pending.age < waiter && pending.isPending()) {
            waiter = pending.age;
        }
        if (!WaitDie.mustDie(age, waiter)) {
            return false;
        }
        acquireStates.get().die = true;
        WaitDie.Seam seam = waitDieSeam;
        if (seam != null) {
            seam.dies(age, waiter, false);
        }
        return true;
    }

    /**
     * Parks for about {@code nanos}. A reply that came on this thread (the in-JVM fabric runs the
     * receiver's handler on the sender's thread) leaves the thread a permit, and the first park then
     * returns at once: without a second one the wait-die loop spun, trying millions of times a second.
     */
    private void parkFor(long nanos) {
        long until = settings.clock().getAsLong() + nanos;
        for (int parks = 0; parks < 3; parks++) {
            long left = until - settings.clock().getAsLong();
            if (left <= 0) {
                return;
            }
            LockSupport.parkNanos(left);
        }
    }

    /**
     * A local latch it could not take: the verdict by the frame's holders' ages (nothing without an age).
     * A frame that meanwhile caches another line says nothing about this one: the next attempt looks again.
     */
    private void judgeLocal(CacheFrame frame, long address, long age) {
        if (age == NO_AGE || frame.address != address) {
            return;
        }
        AcquireState verdict = acquireStates.get();
        long holder = frame.agedHolders.oldest();
        verdict.die = WaitDie.mustDie(age, holder);
        verdict.waitFor = verdict.die ? null : frame;
        WaitDie.Seam seam = waitDieSeam;
        if (seam != null) {
            if (verdict.die) {
                seam.dies(age, holder, false);
            } else {
                seam.waits(age, holder, false);
            }
        }
    }

    private static GclHandle aged(GclHandle handle, long age) {
        handle.age = age;
        return handle;
    }

    /**
     * The lock path: a hit takes the local latch only; otherwise the frame (cached, or installed here) is
     * latched X and the line acquired remotely. A remote acquire that fails lets go of the frame in one
     * place ({@link #letGo}) whichever way the frame was found.
     */
    private GclHandle lock(long address, boolean exclusive, boolean tryOnly, long age) {
        while (true) {
            CacheFrame frame = frameOf(address);
            boolean installed = frame == null; // by this attempt: a failed acquire returns it to the free list
            long stamp; // the frame's X latch, held for the remote acquire
            if (installed) {
                frame = takeFreeFrame();
                stamp = frame.writeLock();
                if (!install(frame, address)) {
                    frame.unlockWrite(stamp);
                    free.push(frame);
                    continue;
                }
                counters.increment(Counter.CACHE_MISSES);
                frame.agedHolders.add(age); // a holder while it acquires: a requester of this node compares against it
            } else {
                LockSeam seam = this.seam;
                if (seam != null) {
                    seam.beforeLocalLatch(frame);
                }
                if (age != NO_AGE && olderWaiter(frame, age)) {
                    return null;
                }
                stamp = tryOnly ? lease.tryLatchLocal(frame, exclusive) : lease.latchLocal(frame, exclusive);
                if (stamp == 0) {
                    counters.increment(Counter.LATCH_GIVE_UPS);
                    judgeLocal(frame, address, age);
                    return null;
                }
                frame.agedHolders.add(age);
                if (seam != null) {
                    seam.beforeAddressCheck(frame);
                }
                if (frame.address != address) {
                    frame.agedHolders.remove(age);
                    frame.unlock(stamp);
                    invalidations.servePendingIfIdle(frame); // a request that came meanwhile must not wait for the next access
                    continue;
                }
                if (frame.ownership().permits(exclusive)) {
                    counters.increment(Counter.CACHE_HITS);
                    return aged(handle(frame, frame.copy, pool, poolOffset(frame.index), address, exclusive, stamp), age);
                }
                if (!exclusive) {
                    // A remote acquire needs the frame to itself.
                    long writeStamp = frame.tryConvertToWriteLock(stamp);
                    if (writeStamp == 0) {
                        frame.agedHolders.remove(age);
                        frame.unlockRead(stamp);
                        writeStamp = tryOnly ? frame.tryWriteLock() : frame.writeLock();
                        if (writeStamp == 0) {
                            counters.increment(Counter.LATCH_GIVE_UPS);
                            judgeLocal(frame, address, age);
                            return null;
                        }
                        frame.agedHolders.add(age);
                        if (frame.address != address) {
                            frame.agedHolders.remove(age);
                            frame.unlockWrite(writeStamp);
                            invalidations.servePendingIfIdle(frame);
                            continue;
                        }
                        if (frame.ownership().permits(false)) {
                            counters.increment(Counter.CACHE_HITS);
                            return aged(handle(frame, false, writeStamp), age);
                        }
                    }
                    stamp = writeStamp;
                } else if (frame.ownership() == Ownership.SHARED) {
                    counters.increment(Counter.UPGRADES);
                }
                counters.increment(Counter.CACHE_MISSES);
            }
            boolean acquired;
            try {
                acquired = acquireRemote(frame, exclusive, tryOnly, age);
            } catch (RuntimeException | Error e) {
                letGo(frame, stamp, installed, age); // never leave the frame latched, nor a latched frame in the table
                throw e;
            }
            if (acquired) {
                return aged(handle(frame, exclusive, stamp), age);
            }
            letGo(frame, stamp, installed, age);
            if (!installed) {
                invalidations.servePendingIfIdle(frame); // a request kept while it acquired: the frame stays cached, unheld
            }
            pauseAfterPeerFailure();
            if (tryOnly) {
                return null;
            }
            // A crashed holder: waited without the frame latched (see peerFailed), now again.
        }
    }

    /**
     * After a remote acquire that failed or threw, for the frame it held in X: unlatched, and, if this
     * acquire installed it, returned to the free list (it holds no ownership).
     */
    private void letGo(CacheFrame frame, long stamp, boolean installed, long age) {
        frame.agedHolders.remove(age);
        if (installed) {
            discard(frame, stamp);
        } else {
            frame.unlockWrite(stamp);
        }
    }

    /**
     * A never-used GCL is zero on its memory node and in no cache: the latch is taken with a CAS alone
     * and the frame zeroed here, instead of reading the GCL back (the load allocates ~120,000 GCLs for
     * two warehouses, and reading each back was about a tenth of its time). Same round trips.
     */
    @Override
    GclHandle lockFresh(long address) {
        CacheFrame frame = takeFreeFrame();
        long stamp = frame.writeLock();
        if (!install(frame, address)) {
            frame.unlockWrite(stamp);
            free.push(frame);
            throw new IllegalStateException("a never-used GCL is already cached: " + GlobalAddress.toString(address));
        }
        counters.increment(Counter.CACHE_MISSES);
        long previous;
        try {
            previous = endpoint.remoteCas(latchOf(address), LatchWord.FREE, LatchWord.exclusive(nodeId));
        } catch (RuntimeException | Error e) {
            discard(frame, stamp);
            throw e;
        }
        if (previous != LatchWord.FREE) {
            discard(frame, stamp);
            throw protocolViolation("a never-used GCL is latched", address, previous);
        }
        frame.copy.asSlice(GclLayout.COPY_OFFSET, copyLength).fill((byte) 0);
        frame.clearDirty();
        granted(frame, Ownership.MODIFIED, 0);
        return handle(frame, true, stamp);
    }

    @Override
    boolean optimisticRead(long address, GclHandle handle) {
        CacheFrame frame = frameOf(address);
        if (frame == null) {
            return false;
        }
        long stamp = frame.tryOptimisticRead();
        // Identity and ownership change only under the X latch, which the stamp's validation detects.
        if (stamp == 0 || frame.address != address || !frame.ownership().permits(false)) {
            return false;
        }
        handle.bindOptimistic(frame, pool, poolOffset(frame.index), address, stamp);
        counters.increment(Counter.OPTIMISTIC_READS);
        return true;
    }

    @Override
    boolean validateOptimistic(GclHandle handle) {
        if (handle.frame.validate(handle.stamp)) {
            return true;
        }
        counters.increment(Counter.OPTIMISTIC_FAILURES);
        return false;
    }

    /** A handle for a frame held in X; a shared request converts the latch to S first. */
    private GclHandle handle(CacheFrame frame, boolean exclusive, long writeStamp) {
        long stamp = exclusive ? writeStamp : frame.tryConvertToReadLock(writeStamp);
        return handle(frame, frame.copy, pool, poolOffset(frame.index), frame.address, exclusive, stamp);
    }

    @Override
    void release(GclHandle handle) {
        CacheFrame frame = handle.frame;
        frame.agedHolders.remove(handle.age); // before the latch: a requester that then finds it busy must not see a gone holder's age
        if (handle.exclusive) {
            if (handle.dirtyLow != CacheFrame.CLEAN) {
                frame.markDirty(handle.dirtyLow, handle.dirtyHigh);
            }
            frame.unlockWrite(handle.stamp);
        } else {
            frame.unlockRead(handle.stamp);
        }
        if (frame.pending() != null) {
            invalidations.servePendingIfIdle(frame);
        }
    }

    @Override
    GclHandle adopt(long address, int crashedNode) {
        while (true) {
            CacheFrame frame = frameOf(address);
            long stamp;
            if (frame == null) {
                frame = takeFreeFrame();
                stamp = frame.writeLock();
                if (!install(frame, address)) {
                    frame.unlockWrite(stamp);
                    free.push(frame);
                    continue;
                }
            } else {
                stamp = frame.writeLock();
                if (frame.address != address) {
                    frame.unlockWrite(stamp);
                    continue;
                }
                if (frame.ownership() != Ownership.INVALID) {
                    frame.unlockWrite(stamp);
                    throw new IllegalStateException("adopting a line this node holds: node=" + nodeId + " address="
                        + GlobalAddress.toString(address) + " ownership=" + frame.ownership());
                }
            }
            long latch = latchOf(address);
            try {
                // A CAS, not a blind FAA: a word that does not name the crashed node is left as it is.
                long word = endpoint.remoteFaa(latch, 0);
                while (true) {
                    if (LatchWord.writer(word) != crashedNode) {
                        throw protocolViolation("adopting a line the crashed node " + crashedNode + " does not hold",
                            address, word);
                    }
                    long seen = endpoint.remoteCas(latch, word, word + LatchWord.handoverDelta(crashedNode, nodeId));
                    if (seen == word) {
                        break;
                    }
                    word = seen; // a survivor's reader bit came and went meanwhile
                }
                endpoint.remoteRead(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, copyLength);
            } catch (RuntimeException | Error e) {
                discard(frame, stamp);
                throw e;
            }
            frame.clearDirty();
            granted(frame, Ownership.MODIFIED, 0);
            counters.increment(Counter.CACHE_MISSES);
            return handle(frame, true, stamp);
        }
    }

    @Override
    void writeThroughHeld(GclHandle[] handles) {
        VerbBatch batch = batches.get().clear();
        for (GclHandle handle : handles) {
            CacheFrame frame = handle.frame;
            if (handle.dirtyLow != CacheFrame.CLEAN) {
                frame.markDirty(handle.dirtyLow, handle.dirtyHigh);
                handle.dirtyLow = CacheFrame.CLEAN;
                handle.dirtyHigh = 0;
            }
            if (frame.isDirty()) {
                writeBackVerbs(batch, frame);
                frame.clearDirty(); // memory will equal the copy; the line stays modified (X) here
            }
        }
        if (batch.size() > 0) {
            endpoint.post(batch); // one round trip, the writes in order
        }
    }

    // ================================================================ remote acquire (paper 4.3)

    /**
     * Acquires global ownership for a frame this thread holds in local X. One round trip when free:
     * CAS+READ (X), FAA+READ (S) or CAS alone (upgrade of a shared copy). On conflict it sends the
     * invalidation the latch word calls for (4.4) and retries after T = C x RTT / Nr.
     *
     * @return false only when {@code tryOnly} and the retries ran out
     */
    private boolean acquireRemote(CacheFrame frame, boolean exclusive, boolean tryOnly, long txAge) {
        boolean won = acquireRemoteWithRetries(frame, exclusive, tryOnly, txAge);
        if (won && tryOnly) {
            AcquireState state = acquireStates.get();
            if (state.agingAddress == frame.address) {
                state.agingPriority = 0; // the climb is over
            }
        }
        return won;
    }

    /** {@code txAge}: the wait-die age of the acquiring transaction, {@link #NO_AGE} for none. */
    private boolean acquireRemoteWithRetries(CacheFrame frame, boolean exclusive, boolean tryOnly, long txAge) {
        long address = frame.address;
        long latch = latchOf(address);
        VerbBatch batch = batches.get();
        int upgradeFailures = 0;
        // A no-wait acquire gives up after a few retries; the caller (a no-wait transaction's retry)
        // comes back for the same line. Its priority keeps climbing across those attempts, as a
        // blocking acquire's would, or a starved writer's priority (5.3.2) would refuse it for ever.
        // A wait-die acquire does not climb: a young transaction that dies again and again would
        // otherwise outbid the older ones it dies for, whose pending requests it then replaces.
        AcquireState aging = tryOnly && txAge == NO_AGE ? acquireStates.get() : null;
        int inherited = aging != null && aging.agingAddress == address ? aging.agingPriority : 0;
        for (int retries = 0; ; ) {
            long conflict;
            if (exclusive && frame.ownership() == Ownership.SHARED) {
                long mine = LatchWord.readerBit(nodeId);
                long previous = endpoint.remoteCas(latch, mine, LatchWord.exclusive(nodeId));
                if (previous == mine) {
                    granted(frame, Ownership.MODIFIED, retries);
                    return true;
                }
                if (!LatchWord.isReader(previous, nodeId)) {
                    throw protocolViolation("shared copy without its reader bit", address, previous);
                }
                conflict = previous & ~mine;
                if (++upgradeFailures >= settings.upgradeAttempts()) {
                    // Two upgraders block each other; fall back to release-then-acquire.
                    endpoint.remoteFaa(latch, LatchWord.releaseSharedDelta(nodeId));
                    frame.ownership(Ownership.INVALID);
                }
            } else if (exclusive) {
                batch.clear();
                int cas = batch.cas(latch, LatchWord.FREE, LatchWord.exclusive(nodeId));
                batch.read(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, copyLength);
                endpoint.post(batch);
                long previous = batch.result(cas);
                if (previous == LatchWord.FREE) {
                    frame.clearDirty();
                    granted(frame, Ownership.MODIFIED, retries);
                    return true;
                }
                conflict = previous;
            } else {
                if (!awaitReaderHoldOff(frame, tryOnly)) {
                    counters.increment(Counter.LATCH_GIVE_UPS);
                    return false; // a no-wait acquire does not sit out a reader window holding the frame
                }
                batch.clear();
                int faa = batch.faa(latch, LatchWord.readerBit(nodeId));
                batch.read(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, copyLength);
                endpoint.post(batch);
                long previous = batch.result(faa);
                if (!LatchWord.hasWriter(previous)) {
                    frame.clearDirty();
                    granted(frame, Ownership.SHARED, retries);
                    return true;
                }
                // A writer holds it: take our bit back, then ask the writer (4.3.2).
                endpoint.remoteFaa(latch, LatchWord.releaseSharedDelta(nodeId));
                conflict = previous;
            }
            retries++;
            counters.increment(Counter.LATCH_RETRIES);
            if (resolveConflict(frame, exclusive, conflict, retries + inherited, txAge)) {
                return true;
            }
            if (txAge != NO_AGE && acquireStates.get().die) {
                return false; // an older transaction holds the line on another node: no point retrying
            }
            if (acquireStates.get().peerFailed) {
                return false; // the caller lets go of the frame, waits (pauseAfterPeerFailure) and, if blocking, comes back
            }
            if (tryOnly && retries > settings.tryLockRetries()) {
                counters.increment(Counter.LATCH_GIVE_UPS);
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
        long interval = settings.retryIntervalNanos(retries, endpoint.roundTripNanos());
        if (interval > 0 || retries < settings.starvationPriority()) {
            Backoff.pause(interval, settings.clock());
        }
    }

    private void granted(CacheFrame frame, Ownership ownership, int retries) {
        frame.ownership(ownership);
        if (ownership == Ownership.MODIFIED) {
            // Remember a starved writer's priority: readers below it are refused (priority matching, 5.3.2).
            frame.ownerPriority = settings.fairness() && retries >= settings.starvationPriority() ? retries : 0;
        }
    }

    /** Sends the invalidations a failed latch attempt calls for. True if ownership was handed to us. */
    private boolean resolveConflict(CacheFrame frame, boolean exclusive, long conflict, int retries, long age) {
        long address = frame.address;
        if (LatchWord.hasWriter(conflict)) {
            int writer = LatchWord.writer(conflict);
            if (writer == nodeId) {
                throw protocolViolation("latch names this node as writer but its frame is not modified", address, conflict);
            }
            InvalidationCase kind = exclusive ? InvalidationCase.WRITER_VS_MODIFIED : InvalidationCase.READER_VS_MODIFIED;
            Invalidate request = new Invalidate(requestIds.incrementAndGet(), address, kind, retries, age);
            counters.increment(kind.sentCounter);
            Answer answer;
            try {
                answer = awaitAnswer(writer, request, endpoint.send(writer, MessageKind.INVALIDATION, request));
            } catch (NodeFailedException e) {
                if (e.node() == writer && writer != nodeId) {
                    if (e.connectionLost() && endpoint.reconnect(writer)) {
                        return settleLostAnswer(frame, exclusive, retries); // the writer lives: no fence, no repair
                    }
                    if (settleLostGrant(frame, exclusive, writer, retries)) {
                        return true;
                    }
                }
                return peerFailed(e);
            }
            if (answer.status() != Answer.Status.GRANTED) {
                if (answer.status() == Answer.Status.DIE) {
                    acquireStates.get().die = true;
                }
                return false;
            }
            byte[] copy = answer.copy();
            if (copy == null || copy.length != copyLength) {
                throw new IllegalStateException("protocol violation: a grant without the line: node=" + nodeId
                    + " from=" + writer + " address=" + GlobalAddress.toString(address)
                    + " bytes=" + (copy == null ? "none" : copy.length));
            }
            MemorySegment.copy(copy, 0, frame.copy, ValueLayout.JAVA_BYTE, GclLayout.COPY_OFFSET, copyLength);
            frame.clearDirty();
            if (exclusive && answer.dirtyLow() != CacheFrame.CLEAN) {
                // The forwarded copy was never written back: we inherit its dirty range (4.4.1).
                frame.markDirty(answer.dirtyLow(), answer.dirtyHigh());
            }
            granted(frame, exclusive ? Ownership.MODIFIED : Ownership.SHARED, retries);
            return true;
        }
        long others = LatchWord.readers(conflict) & ~LatchWord.readerBit(nodeId);
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
        counters.add(Counter.INVALIDATIONS_SENT_WRITER_VS_SHARED, count);
        try {
            endpoint.sendAll(targets, count, MessageKind.INVALIDATION, requests, replies);
            long deadline = settings.clock().getAsLong() + settings.pendingWaitNanos(); // one wait for the whole wave
            for (int i = 0; i < count; i++) {
                if (awaitAnswer(targets[i], (Invalidate) requests[i], replies[i], deadline).status() == Answer.Status.DIE) {
                    acquireStates.get().die = true; // the other readers released or kept theirs: all the same
                }
            }
        } catch (NodeFailedException e) {
            if (e.connectionLost() && e.node() != nodeId && endpoint.reconnect(e.node())) {
                // A reader that lives: a release lost with its answer grants this node nothing, and the retry
                // reads the word afresh. No fence, no repair.
                counters.increment(Counter.LOST_ANSWERS);
                return false;
            }
            return peerFailed(e);
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
        long address = frame.address;
        long word = endpoint.remoteFaa(latchOf(address), 0);
        counters.increment(Counter.LOST_ANSWERS); // once the word is read (a fault test waits for that)
        boolean granted = exclusive ? LatchWord.writer(word) == nodeId
            : !LatchWord.hasWriter(word) && LatchWord.isReader(word, nodeId);
        if (!granted) {
            return false; // the caller retries as after any refusal
        }
        if (exclusive && !endpoint.connectionsCanDrop()) {
            throw protocolViolation("a fabric that reconnects must say its connections can drop (the handover's"
                + " write-back depends on it)", address, word);
        }
        endpoint.remoteRead(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, copyLength);
        frame.clearDirty();
        counters.increment(Counter.LOST_GRANTS_SETTLED);
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
        if (!fenceFailedPeer.test(writer)) {
            return false; // not known to be fenced: the word could still change
        }
        long address = frame.address;
        long latch = latchOf(address);
        long word = endpoint.remoteFaa(latch, 0);
        if (!exclusive) {
            if (LatchWord.hasWriter(word) || !LatchWord.isReader(word, nodeId)) {
                return false; // nothing was granted
            }
            endpoint.remoteRead(address + GclLayout.COPY_OFFSET, frame.copy, GclLayout.COPY_OFFSET, copyLength);
            frame.clearDirty();
            granted(frame, Ownership.SHARED, retries);
            return true;
        }
        // A handover landed, but the bytes it forwarded (never written back) went with the answer: the line goes
        // back to the failed node, whose repair restores it from the logs (or, failing, says why to whoever meets it).
        while (LatchWord.writer(word) == nodeId) {
            long seen = endpoint.remoteCas(latch, word, word + LatchWord.handoverDelta(nodeId, writer));
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
    private boolean peerFailed(NodeFailedException e) {
        if (e.node() == nodeId) {
            throw e; // this node itself is fenced
        }
        String failedRepair = failedRepairs.get(e.node());
        if (failedRepair != null) {
            throw new RepairFailedException(e.node(), failedRepair, e); // the line will never be freed: fatal
        }
        peerFailures.accept(e.node());
        // The caller lets go of its frame (the survivor that adopts the line may need it, on this node)
        // and waits then, in pauseAfterPeerFailure.
        acquireStates.get().peerFailed = true;
        return false;
    }

    /** After an acquire that met a crashed holder let go of its frame: a short wait before anything else. */
    private void pauseAfterPeerFailure() {
        AcquireState state = acquireStates.get();
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
        return awaitAnswer(receiver, request, reply, settings.clock().getAsLong() + settings.pendingWaitNanos());
    }

    private Answer awaitAnswer(int receiver, Invalidate request, PendingReply reply, long deadline) {
        while (true) {
            long left = deadline - settings.clock().getAsLong();
            Object answer = reply.await(Math.max(0, left));
            if (answer != null) {
                return answerOf(answer, request);
            }
            if (settings.clock().getAsLong() - deadline >= 0) {
                break;
            }
        }
        counters.increment(Counter.INVALIDATIONS_CANCELLED);
        PendingReply ack = endpoint.send(receiver, MessageKind.INVALIDATION, new Cancel(request.requestId(), request.address()));
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
        if (reply == io.selcc.fabric.MessageLost.REPLY) {
            return Answer.of(request.requestId(), Answer.Status.DROPPED); // never a grant: a lost grant is a lost line
        }
        throw new IllegalStateException("protocol violation: not the answer to invalidation " + request.requestId()
            + ": node=" + nodeId + " reply=" + reply);
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
        if (until - settings.clock().getAsLong() <= 0) {
            frame.readerHoldOff = false;
            return true;
        }
        if (tryOnly) {
            return false;
        }
        frame.readerHoldOff = false;
        counters.increment(Counter.READER_SPIN_WAITS);
        Waits.untilDeadlineGivingWay(until, settings.clock()); // the window is short; the writer may need this core
        return true;
    }

    /** Adds a WRITE of the frame's dirty bytes, if any, and counts the write-back. */
    void writeBackVerbs(VerbBatch batch, CacheFrame frame) {
        if (frame.isDirty()) {
            int length = frame.dirtyHigh - frame.dirtyLow;
            batch.write(frame.address + frame.dirtyLow, frame.copy, frame.dirtyLow, length);
            counters.increment(Counter.WRITE_BACKS);
            counters.add(Counter.WRITE_BACK_BYTES, length);
        }
    }

    // ================================================================ frames, eviction (5.2)

    private boolean install(CacheFrame frame, long address) {
        FrameTable.Shard shard = table.shard(address);
        synchronized (shard) {
            if (shard.get(address) != null) {
                return false;
            }
            // A request that reached this frame while it was being evicted is stale now.
            InvalidationRequest stale = frame.takePending();
            if (stale != null) {
                stale.dropIfPending();
            }
            frame.address = address;
            frame.ownership(Ownership.INVALID);
            frame.clearDirty();
            frame.resetLease();
            frame.readerHoldOff = false;
            frame.ownerPriority = 0;
            shard.insert(address, frame);
            return true;
        }
    }

    /** Returns a frame whose remote acquire failed to the free list (it holds no ownership). */
    private void discard(CacheFrame frame, long stamp) {
        retire(frame);
        frame.unlockWrite(stamp);
        free.push(frame);
    }

    /** Removes a latched frame from the table and drops its pending request. */
    void retire(CacheFrame frame) {
        FrameTable.Shard shard = table.shard(frame.address);
        synchronized (shard) {
            shard.remove(frame.address);
        }
        InvalidationRequest pending = frame.takePending();
        if (pending != null) {
            pending.dropIfPending();
        }
        frame.address = CacheFrame.NO_ADDRESS;
        frame.ownership(Ownership.INVALID);
        frame.clearDirty();
        frame.resetLease();
    }

    private CacheFrame takeFreeFrame() {
        for (int attempt = 0; attempt < EXHAUSTED_ATTEMPTS; attempt++) {
            CacheFrame frame = free.pop();
            if (free.size() < settings.freeListLowWater()) {
                evictor.wakeWorker();
            }
            if (frame != null) {
                return frame;
            }
            if (evictor.evict(settings.freeListLowWater()) == 0) {
                // Every frame is latched right now: their holders must run to free one (on a virtual thread
                // yield gives them the carrier). Bounded by EXHAUSTED_ATTEMPTS.
                Thread.yield();
            }
        }
        throw new IllegalStateException("cache exhausted: all frames stay latched: node=" + nodeId
            + " cacheFrames=" + frames.length + " (hold fewer latches at once or enlarge the cache)");
    }

    /** The frame caching {@code address}, or null (tests look at its lease counters). */
    CacheFrame cachedFrame(long address) {
        return table.get(address);
    }

    /** Evicts every frame no thread holds: all dirty data reaches memory and all global latches are released. */
    void flush() {
        evictor.flush();
    }

    /** Evicts up to {@code want} frames no thread holds (see {@link Evictor#evict(int)}); how many it evicted. */
    int evict(int want) {
        return evictor.evict(want);
    }

    /** Wakes the eviction worker so that it sees the node crashed and ends. */
    void stopEvictionWorker() {
        evictor.stopWorker();
    }

    /**
     * Writes back every dirty line and releases every global latch this node holds (a closed node
     * must not keep lines other nodes wait for), then frees the cache memory.
     */
    @Override
    void close() {
        if (!crashed) {
            flush();
        }
        arena.close();
    }

    private IllegalStateException protocolViolation(String what, long address, long latchWord) {
        return new IllegalStateException("protocol violation: " + what + ": node=" + nodeId
            + " address=" + GlobalAddress.toString(address) + " latch=" + LatchWord.toString(latchWord));
    }
}
