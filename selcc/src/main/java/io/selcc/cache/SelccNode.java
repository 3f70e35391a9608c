package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeCounters;
import io.selcc.fabric.OffHeap;
import io.selcc.fabric.VerbBatch;
import io.selcc.threads.PerThread;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

/**
 * A compute node running the SELCC protocol (paper sections 4 and 5) over its compute-side cache. This
 * class is the lock path (frame lookup, local latches, wait-die, handles) and the frames' bookkeeping;
 * {@link Lease} takes a local latch while another node's request waits, {@link RemoteAcquire} takes the
 * global latch (latch-word verbs, the invalidations they call for, retries), {@link InvalidationHandler}
 * serves the invalidations other nodes send, and {@link Evictor} keeps frames free.
 *
 * <p>Threads: front-end threads call the {@link ComputeNode} API; invalidation handlers run on the
 * sender's thread (in-JVM fabric) or a handler thread (network fabric) and only try-lock frames; a
 * request they cannot serve at once is kept on the frame and answered later through its reply handle;
 * one eviction worker per node ({@link EvictionAgent}) refills the free list. Lock order: a frame's
 * latch may be held while taking a shard monitor, never the reverse with blocking.
 */
final class SelccNode extends AbstractComputeNode {
    private static final int EXHAUSTED_ATTEMPTS = 1_000_000;

    private final Arena arena = Arena.ofShared();
    /** All frames' copies, frame i at i * gclSize: handles read through this one segment. */
    private final MemorySegment pool;
    /** Bytes per CPU cache line, the stride of {@link #prefetchFrame}'s loads. */
    private static final int CPU_CACHE_LINE = 64;
    final CacheFrame[] frames;
    /** The frames' headers, {@link FrameHeader#WORDS} longs each: what a hit reads instead of the frame object. */
    final long[] headers;
    /** log2 of the GCL size: a handle's frame index is its pool offset shifted right by it. */
    private final int gclShift;
    final FrameTable table;
    final FreeFrames free;
    final NodeCounters counters;
    final PerThread<VerbBatch> batches = PerThread.withInitial(VerbBatch::new);
    /** Each thread's acquire state: wait-die verdict, crashed holder met, no-wait priority aging. */
    private final PerThread<AcquireState> acquireStates = PerThread.withInitial(AcquireState::new);
    /** Serves the invalidations other nodes send this one. */
    private final InvalidationHandler invalidations;
    /** Takes local latches under the lease a pending request sets (5.3.1). */
    private final Lease lease;
    /** Takes global latches: the latch-word verbs, the invalidations, the retries (4.3, 4.4). */
    private final RemoteAcquire remote;
    /** Keeps free frames: evicts on demand and in its worker's duty cycle. */
    final Evictor evictor;
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

        /** What the lock-free directory read answers for {@code address} (a test may answer a stale index). */
        default int racyLookup(long address, int index) {
            return index;
        }
    }

    SelccNode(Settings settings, FabricEndpoint endpoint, long[] capacities) {
        super(settings, endpoint, capacities);
        this.counters = endpoint.counters();
        this.copyLength = gclSize - GclLayout.COPY_OFFSET;
        int n = settings.cacheFrames();
        this.gclShift = Integer.numberOfTrailingZeros(gclSize);
        this.pool = OffHeap.zeroed(arena, (long) n * gclSize, 64); // resident as frames fill
        this.headers = new long[n * FrameHeader.WORDS]; // zero: every frame free
        this.frames = new CacheFrame[n];
        this.free = new FreeFrames(n);
        for (int i = n - 1; i >= 0; i--) {
            frames[i] = new CacheFrame(i, headers, pool.asSlice(poolOffset(i), gclSize), counters);
            free.push(frames[i]);
        }
        this.table = new FrameTable(settings.shards(), frames, new FrameDirectory(capacities, gclSize));
        this.invalidations = new InvalidationHandler(this);
        this.evictor = new Evictor(this);
        this.lease = new Lease(settings, counters, invalidations, evictor);
        this.remote = new RemoteAcquire(this);
        endpoint.register(MessageKind.INVALIDATION, InvalidationMessages.CODEC, invalidations::onMessage);
    }

    /**
     * The index of the frame caching {@code address}, or {@link FrameTable#ABSENT}: the frame directory's
     * slot, read without a lock and so a hint, which the tag in the frame's header confirms, here (a
     * slot read mid-update, or a frame since moved to another line, sends the lookup under the lock)
     * and again by the latch (what turns stale between this read and the latch). Sets the frame's CLOCK
     * bit. Reads no frame object. A per-thread memo of frames looked at before the directory cost a
     * wasted read of a wrong frame's header whenever it missed (most lookups of a large cache).
     */
    private int frameIndexOf(long address) {
        int index = table.indexOf(address);
        LockSeam seam = this.seam;
        if (seam != null) {
            index = seam.racyLookup(address, index);
        }
        if (index != FrameTable.ABSENT && FrameHeader.tag(headers, FrameHeader.at(index)) != address) {
            index = table.lockedIndexOf(address); // read mid-update, or the frame moved on: ask under the lock
        }
        if (index != FrameTable.ABSENT) {
            FrameHeader.touch(headers, FrameHeader.at(index));
        }
        return index;
    }

    /**
     * Whether a caller's guess ({@link ComputeNode#tryLock}) names a frame of this node. Its tag is not
     * read here: the caller judges it after the latch word, as it judges the lookup's answer, and looks
     * the address up when the frame caches another line.
     */
    private boolean isFrame(int frameHint) {
        return frameHint >= 0 && frameHint < frames.length;
    }

    /** The frame caching {@code address} (a hint, see {@link #frameIndexOf}), or null. */
    private CacheFrame frameOf(long address) {
        int index = frameIndexOf(address);
        return index == FrameTable.ABSENT ? null : frames[index];
    }

    /** Where frame {@code frameIndex}'s copy starts in the pool. */
    private long poolOffset(int frameIndex) {
        return (long) frameIndex << gclShift;
    }

    /** Where the header of the frame a handle latched starts in the header table. */
    private int headerOf(GclHandle handle) {
        return FrameHeader.at((int) (handle.base >>> gclShift));
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
        if (age == NO_AGE || frame.address() != address) {
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
        return lock(address, exclusive, tryOnly, age, NO_FRAME);
    }

    @Override
    GclHandle lockHinted(long address, boolean exclusive, int frameHint) {
        return lock(address, exclusive, true, NO_AGE, frameHint);
    }

    private GclHandle lock(long address, boolean exclusive, boolean tryOnly, long age, int frameHint) {
        if (age == NO_AGE && seam == null) {
            GclHandle hit = tryHit(address, exclusive, frameHint);
            if (hit != null) {
                return hit;
            }
        }
        return lockPastHit(address, exclusive, tryOnly, age);
    }

    /** {@link #lock} once the hit path declined (or was not tried): finds or installs the frame, latches it. */
    private GclHandle lockPastHit(long address, boolean exclusive, boolean tryOnly, long age) {
        while (true) {
            CacheFrame frame = frameOf(address);
            boolean installed = frame == null; // by this attempt: a failed acquire returns it to the free list
            long stamp; // the frame's X latch, held for the remote acquire
            if (installed) {
                frame = takeFreeFrame();
                stamp = latchAndInstall(frame, address);
                if (stamp == 0) {
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
                if (frame.address() != address) {
                    frame.agedHolders.remove(age);
                    frame.unlock(stamp);
                    invalidations.servePendingIfIdle(frame); // a request that came meanwhile must not wait for the next access
                    continue;
                }
                if (frame.ownership().permits(exclusive)) {
                    counters.increment(Counter.CACHE_HITS);
                    return aged(handle(frame, null, pool, poolOffset(frame.index), address, exclusive, stamp), age);
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
                        if (frame.address() != address) {
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
            AcquireState state = acquireStates.get();
            boolean acquired;
            try {
                acquired = remote.acquire(frame, exclusive, tryOnly, age, state);
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
            remote.pauseAfterPeerFailure(state);
            if (tryOnly) {
                return null;
            }
            // A crashed holder: waited without the frame latched (see RemoteAcquire.peerFailed), now again.
        }
    }

    /**
     * The hit path: the line cached in a mode that permits the latch, the local latch free, no remote
     * request pending; null otherwise (the caller takes the full path, which looks again). Reads the
     * frame's header (tag, latch, ownership, flags) by index, never the {@link CacheFrame} object: the
     * handle keeps a reference to it without reading it.
     */
    private GclHandle tryHit(long address, boolean exclusive, int frameHint) {
        int index = hitIndex(address, exclusive, frameHint);
        if (index == FrameTable.ABSENT) {
            return null;
        }
        HandlePool handles = handlePool();
        NodeCounters.add(handles.counts, Counter.CACHE_HITS, 1);
        return handle(handles, frames[index], null, pool, poolOffset(index), address, exclusive, hitStamp(exclusive));
    }

    /** {@link #tryHit} into a kept handle: bound, not taken from the pool; the full path otherwise. */
    @Override
    GclHandle lockInto(GclHandle spare, long address, boolean exclusive, int frameHint) {
        if (seam == null) {
            int index = hitIndex(address, exclusive, frameHint);
            if (index != FrameTable.ABSENT) {
                NodeCounters.add(spare.pool.counts, Counter.CACHE_HITS, 1);
                spare.bindKept(frames[index], pool, poolOffset(index), address, exclusive, hitStamp(exclusive));
                return spare;
            }
        }
        GclHandle latched = lockPastHit(address, exclusive, true, NO_AGE); // not the hit a second time
        return latched == null ? null : moveInto(spare, latched);
    }

    /** The stamp {@link FrameHeader#tryLatchFrom} gave a hit's latch. */
    private static long hitStamp(boolean exclusive) {
        return exclusive ? FrameHeader.WRITE_STAMP : FrameHeader.READ_STAMP;
    }

    /**
     * The hit itself: the frame latched, or {@link FrameTable#ABSENT} with nothing latched. Reads the
     * frame's header (tag, latch, ownership, flags) by index, never the {@link CacheFrame} object.
     */
    private int hitIndex(long address, boolean exclusive, int frameHint) {
        boolean hinted = isFrame(frameHint);
        int index = hinted ? frameHint : frameIndexOf(address);
        if (index == FrameTable.ABSENT) {
            return FrameTable.ABSENT;
        }
        int at = FrameHeader.at(index);
        // The word first, then the tag: a latch CASed from this very word proves no writer came between,
        // so the tag and the ownership judged here are the frame's as of the latch.
        long word = FrameHeader.word(headers, at);
        if (FrameHeader.tag(headers, at) != address) {
            if (hinted) { // the guessed frame caches another line now (or none): look the address up
                counters.increment(Counter.FRAME_HINT_MISSES);
                return hitIndex(address, exclusive, NO_FRAME);
            }
            return FrameTable.ABSENT; // a frame that moved on since the lookup: the full path looks again
        }
        if (hinted) {
            FrameHeader.touch(headers, at); // as a lookup touches what it finds
        }
        if ((word & (FrameHeader.PENDING | FrameHeader.DRAINING)) != 0) {
            CacheFrame frame = frames[index];
            if (frame.clearStalePendingFlag()) {
                invalidations.servePendingIfIdle(frame);
            }
            return FrameTable.ABSENT; // the lease counts this acquisition: the full path
        }
        if (!FrameHeader.permits(FrameHeader.ownership(word), exclusive)) {
            return FrameTable.ABSENT; // a remote acquire: the full path
        }
        if (FrameHeader.tryLatchFrom(headers, at, word, exclusive) == 0) {
            return FrameTable.ABSENT; // busy, or the word moved: the full path looks again
        }
        return index;
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
        long stamp = latchAndInstall(frame, address);
        if (stamp == 0) {
            throw new IllegalStateException("a never-used GCL is already cached: " + GlobalAddress.toString(address));
        }
        counters.increment(Counter.CACHE_MISSES);
        try {
            remote.acquireFresh(frame);
        } catch (RuntimeException | Error e) {
            discard(frame, stamp);
            throw e;
        }
        return handle(frame, true, stamp);
    }

    /**
     * Plain loads of the frame's header (its tag and latch word, what a hit reads first) and of one word per
     * CPU cache line of the data range: they only bring lines into the cache.
     */
    @Override
    long prefetchFrame(int frameHint, int from, int to) {
        if (!isFrame(frameHint)) {
            return 0;
        }
        long sum = headers[FrameHeader.at(frameHint) + FrameHeader.TAG];
        long data = poolOffset(frameHint) + GclLayout.DATA_OFFSET;
        // Line-aligned (the pool and its lines are): every load is an aligned word inside this frame's line.
        for (long at = (data + from) & ~(CPU_CACHE_LINE - 1); at < data + to; at += CPU_CACHE_LINE) {
            sum += pool.get(ValueLayout.JAVA_LONG, at);
        }
        return sum;
    }

    /**
     * Binds the handle to the cached line without writing anything shared: the latch word's version is
     * read, and {@link #validateOptimistic} reads it again after the caller's reads (the seqlock pattern).
     */
    @Override
    boolean optimisticRead(long address, GclHandle handle, int frameHint) {
        boolean hinted = seam == null && isFrame(frameHint); // a test's seam sees every lookup
        int index = hinted ? frameHint : frameIndexOf(address);
        if (index == FrameTable.ABSENT) {
            return false;
        }
        int at = FrameHeader.at(index);
        long word = FrameHeader.word(headers, at);
        long stamp = FrameHeader.tryOptimisticRead(word);
        // Identity and ownership change only under the X latch, which the stamp's validation detects.
        if (FrameHeader.tag(headers, at) != address) {
            if (hinted) { // the guessed frame caches another line now: look the address up
                counters.increment(Counter.FRAME_HINT_MISSES);
                return optimisticRead(address, handle, NO_FRAME);
            }
            return false;
        }
        if (hinted) {
            FrameHeader.touch(headers, at);
        }
        if (stamp == 0 || !FrameHeader.permits(FrameHeader.ownership(word), false)) {
            return false;
        }
        handle.bindOptimistic(frames[index], pool, poolOffset(index), address, stamp);
        counters.increment(Counter.OPTIMISTIC_READS);
        return true;
    }

    @Override
    boolean validateOptimistic(GclHandle handle) {
        if (FrameHeader.validate(headers, headerOf(handle), handle.stamp)) {
            return true;
        }
        counters.increment(Counter.OPTIMISTIC_FAILURES);
        return false;
    }

    /** A handle for a frame held in X; a shared request converts the latch to S first. */
    private GclHandle handle(CacheFrame frame, boolean exclusive, long writeStamp) {
        long stamp = exclusive ? writeStamp : frame.tryConvertToReadLock(writeStamp);
        return handle(frame, null, pool, poolOffset(frame.index), frame.address(), exclusive, stamp);
    }

    /** Releases a held latch through the frame's header (the frame object only to wake or to serve). */
    @Override
    void release(GclHandle handle) {
        CacheFrame frame = handle.frame;
        if (handle.age != NO_AGE) {
            frame.agedHolders.remove(handle.age); // before the latch: a requester that then finds it busy must not see a gone holder's age
        }
        int at = headerOf(handle);
        long replaced;
        if (handle.exclusive) {
            if (handle.dirtyLow != CacheFrame.CLEAN) {
                FrameHeader.widenDirty(headers, at, handle.dirtyLow, handle.dirtyHigh);
            }
            replaced = FrameHeader.unlockWrite(headers, at);
        } else {
            replaced = FrameHeader.unlockRead(headers, at);
        }
        if (FrameHeader.wakes(replaced)) {
            frame.wakeParked();
        }
        // The flag as of the release itself: a request installed after it finds the latch as left here.
        if (FrameHeader.pendingSeen(replaced) && frame.pending() != null) {
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
                stamp = latchAndInstall(frame, address);
                if (stamp == 0) {
                    continue;
                }
            } else {
                stamp = frame.writeLock();
                if (frame.address() != address) {
                    frame.unlockWrite(stamp);
                    continue;
                }
                if (frame.ownership() != Ownership.INVALID) {
                    frame.unlockWrite(stamp);
                    throw new IllegalStateException("adopting a line this node holds: node=" + nodeId + " address="
                        + GlobalAddress.toString(address) + " ownership=" + frame.ownership());
                }
            }
            try {
                remote.adopt(frame, crashedNode);
            } catch (RuntimeException | Error e) {
                discard(frame, stamp);
                throw e;
            }
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

    /** Adds a WRITE of the frame's dirty bytes, if any, and counts the write-back. */
    void writeBackVerbs(VerbBatch batch, CacheFrame frame) {
        if (frame.isDirty()) {
            int length = frame.dirtyHigh() - frame.dirtyLow();
            batch.write(frame.address() + frame.dirtyLow(), frame.copy, frame.dirtyLow(), length);
            counters.increment(Counter.WRITE_BACKS);
            counters.add(Counter.WRITE_BACK_BYTES, length);
        }
    }

    // ================================================================ frames, eviction (5.2)

    /**
     * Latches a free frame X and installs it for {@code address}: its stamp, or 0 (the frame back on
     * the free list) if another thread installed the address first.
     */
    private long latchAndInstall(CacheFrame frame, long address) {
        long stamp = frame.writeLock(); // never 0
        FrameTable.Shard shard = table.shard(address);
        synchronized (shard) {
            if (shard.get(address) == FrameTable.ABSENT) {
                // A request that reached this frame while it was being evicted is stale now.
                InvalidationRequest stale = frame.takePending();
                if (stale != null) {
                    stale.dropIfPending();
                }
                frame.address(address);
                frame.ownership(Ownership.INVALID);
                frame.clearDirty();
                frame.resetLease();
                frame.readerHoldOff = false;
                frame.ownerPriority = 0;
                shard.insert(address, frame);
                return stamp;
            }
        }
        frame.unlockWrite(stamp);
        free.push(frame);
        return 0;
    }

    /**
     * Retires a frame held in X (an evicted one, or one whose remote acquire failed: it holds no
     * ownership), unlatches it and puts it on the free list. A request that found the frame before it
     * was retired and was kept on it meanwhile (retire took the one before) is answered first: serving
     * it finds the frame no longer caches the line and drops it, so its requester retries at once
     * instead of waiting for the frame's reuse or its own timeout.
     */
    void discard(CacheFrame frame, long stamp) {
        retire(frame);
        releaseFreed(frame, stamp);
        free.push(frame);
    }

    /**
     * Unlatches a frame held in X that caches nothing (retired, or latched by the evictor as it went to the
     * free list): a request kept on it meanwhile is answered, so its requester retries at once instead of
     * waiting for the frame's reuse.
     */
    void releaseFreed(CacheFrame frame, long stamp) {
        frame.unlockWrite(stamp);
        if (frame.pending() != null) {
            invalidations.servePendingIfIdle(frame);
        }
    }

    /** Removes a latched frame from the table and drops its pending request. */
    void retire(CacheFrame frame) {
        FrameTable.Shard shard = table.shard(frame.address());
        synchronized (shard) {
            shard.remove(frame.address());
        }
        InvalidationRequest pending = frame.takePending();
        if (pending != null) {
            pending.dropIfPending();
        }
        frame.address(CacheFrame.NO_ADDRESS);
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
            if (evictor.evict(Math.min(Evictor.BATCH, settings.freeListLowWater())) == 0) {
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

    /** Evicts every frame no thread holds, waiting for passing holds (see {@link Evictor#flush}). */
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
}
