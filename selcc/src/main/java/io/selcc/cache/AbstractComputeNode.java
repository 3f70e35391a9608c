package io.selcc.cache;

import io.selcc.fabric.FabricEndpoint;
import io.selcc.cache.GclLayout;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.NodeCounters;
import io.selcc.fabric.VerbBatch;
import io.selcc.threads.PerThread;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What both access modes share: address checks, global atomics and GCL allocation.
 *
 * <p>Allocation is one-sided: offset 0 of each memory node holds a bump pointer that compute nodes
 * advance by FAA in chunks of {@code allocationChunk} GCLs (one round trip per chunk); the first GCL-sized
 * region of a memory node is reserved for it, so offset 0 is never a GCL; on memory node 0 the next GCL is the
 * {@linkplain #catalogRoot() catalog root}, never allocated. Freed GCLs go to this node's
 * local free list and are reused by this node only. Each GCL's allocation state lives in its header, so
 * a double free is caught even across nodes.
 *
 * <p>Over 600 lines on purpose: it is the one home of what SELCC and SEL must do identically (the
 * public latch API, snapshots and settling after a peer's crash, the atomics, the allocator, the address
 * checks), so the two modes cannot drift apart.
 */
abstract sealed class AbstractComputeNode implements ComputeNode permits SelccNode, SelNode {
    final Settings settings;
    final FabricEndpoint endpoint;
    final int nodeId;
    final int gclSize;
    private final long[] capacities;
    private final MemoryNodeChunk[] chunks;
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final PerThread<HandlePool> handlePools = PerThread.withInitial(() -> new HandlePool(counters().threadBlock()));

    AbstractComputeNode(Settings settings, FabricEndpoint endpoint, long[] memoryNodeCapacities) {
        this.settings = settings;
        this.endpoint = endpoint;
        this.nodeId = endpoint.nodeId();
        this.gclSize = settings.gclSize();
        this.capacities = memoryNodeCapacities.clone();
        this.chunks = new MemoryNodeChunk[capacities.length];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = new MemoryNodeChunk();
        }
        // Start each node's round robin at a different memory node so nodes spread their allocations.
        roundRobin.set(nodeId);
    }

    @Override
    public final int nodeId() {
        return nodeId;
    }

    @Override
    public final AccessMode accessMode() {
        return settings.accessMode();
    }

    @Override
    public final int gclSize() {
        return gclSize;
    }

    @Override
    public final int dataSize() {
        return GclLayout.dataSize(gclSize);
    }

    @Override
    public final long catalogRoot() {
        return GlobalAddress.of(0, gclSize);
    }

    @Override
    public final NodeCounters counters() {
        return endpoint.counters();
    }

    /** Locks; with {@code tryOnly}, gives up (null) on a busy local latch or after bounded remote retries. */
    abstract GclHandle lock(long address, boolean exclusive, boolean tryOnly);

    /**
     * X-latches a GCL the allocator just took from never-used memory (all zeros, and no other node can
     * know its address yet). By default the same as {@link #lock} for X.
     */
    GclHandle lockFresh(long address) {
        return lock(address, true, false);
    }

    @Override
    public final GclHandle sLock(long address) {
        return lock(checkGcl(address), false, false);
    }

    @Override
    public final GclHandle xLock(long address) {
        return lock(checkGcl(address), true, false);
    }

    @Override
    public final GclHandle trySLock(long address) {
        return lock(checkGcl(address), false, true);
    }

    @Override
    public final GclHandle tryXLock(long address) {
        return lock(checkGcl(address), true, true);
    }

    @Override
    public final GclHandle tryLock(long address, boolean exclusive, int frameHint) {
        return lockHinted(checkGcl(address), exclusive, frameHint);
    }

    @Override
    public final GclHandle keptHandle() {
        return new GclHandle(this, handlePool());
    }

    @Override
    public final GclHandle tryLock(GclHandle spare, long address, boolean exclusive, int frameHint) {
        long checked = checkGcl(address);
        if (spare == null || spare.owner != this || !spare.kept) {
            throw new IllegalArgumentException("not a kept handle of this node: handle=" + spare + " node=" + nodeId);
        }
        if (spare.pool.owner != Thread.currentThread()) {
            // Another thread's handle (its counts, its state): a pooled handle of this thread instead,
            // whatever the owner is doing with it.
            return lockHinted(checked, exclusive, frameHint);
        }
        if (!spare.released) {
            throw new IllegalStateException("kept handle still latched: " + spare);
        }
        return lockInto(spare, checked, exclusive, frameHint);
    }

    /**
     * {@link #tryLock(GclHandle, long, boolean, int)} for the spare's own thread: by default the latch of
     * {@link #lockHinted}, moved into the spare.
     */
    GclHandle lockInto(GclHandle spare, long address, boolean exclusive, int frameHint) {
        GclHandle latched = lockHinted(address, exclusive, frameHint);
        return latched == null ? null : moveInto(spare, latched);
    }

    /** Moves the latch {@code latched} holds into {@code spare}, and {@code latched} back to its pool. */
    final GclHandle moveInto(GclHandle spare, GclHandle latched) {
        spare.takeOver(latched);
        if (latched.pool != null && !latched.kept) {
            latched.pool.giveBack(latched);
        }
        return spare;
    }

    /** {@link #tryLock}: a node without frames has nothing to guess at. */
    GclHandle lockHinted(long address, boolean exclusive, int frameHint) {
        return lock(address, exclusive, true);
    }

    @Override
    public final GclHandle lockOrDie(long address, boolean exclusive, long age) {
        if (age == NO_AGE) {
            throw new IllegalArgumentException("a wait-die acquire needs an age: address=" + GlobalAddress.toString(address));
        }
        return waitOrDie(checkGcl(address), exclusive, age);
    }

    /** See {@link #lockOrDie}. */
    abstract GclHandle waitOrDie(long address, boolean exclusive, long age);

    @Override
    public final GclHandle optimisticHandle() {
        return new GclHandle(this);
    }

    @Override
    public final boolean tryOptimisticRead(long address, GclHandle handle) {
        return tryOptimisticRead(address, handle, NO_FRAME);
    }

    @Override
    public final boolean tryOptimisticRead(long address, GclHandle handle, int frameHint) {
        checkOptimistic(handle);
        handle.released = true;
        return optimisticRead(checkGcl(address), handle, frameHint);
    }

    @Override
    public final boolean validate(GclHandle handle) {
        checkOptimistic(handle);
        if (handle.frame == null) {
            throw new IllegalArgumentException("a snapshot is read from memory, never validated: " + handle);
        }
        if (handle.released) {
            return false;
        }
        handle.released = true; // one validation per read: re-reading needs a new tryOptimisticRead
        return validateOptimistic(handle);
    }

    private void checkOptimistic(GclHandle handle) {
        if (handle.owner != this || !handle.optimistic) {
            throw new IllegalArgumentException("not an optimistic handle of this node: handle=" + handle + " node=" + nodeId);
        }
    }

    /** Binds the handle to a readable cached copy of the line without latching it; false if there is none. */
    abstract boolean optimisticRead(long address, GclHandle handle, int frameHint);

    @Override
    public final long prefetch(long address, int frameHint, int offset, int length) {
        int from = Math.max(0, offset);
        int to = (int) Math.min(dataSize(), (long) from + Math.max(0, length));
        return from < to ? prefetchFrame(frameHint, from, to) : 0;
    }

    /** See {@link #prefetch}: data offsets {@code from < to} within the data region, the hint unchecked. */
    abstract long prefetchFrame(int frameHint, int from, int to);

    /** The frame whose copy starts at {@code base} in the pool (see {@link GclHandle#frameIndex()}). */
    final int frameAt(long base) {
        return (int) (base >>> Integer.numberOfTrailingZeros(gclSize));
    }

    /** True if no writer latched the handle's frame since it was bound. */
    abstract boolean validateOptimistic(GclHandle handle);

    /**
     * A handle for a latch just taken: one this thread's earlier unlocks gave back, else a new one.
     * A row access then allocates no handle (issue 8). A caller that keeps a pooled handle past its
     * unlock breaks the contract anyway (a handle to keep is a {@link #keptHandle}); reuse only means
     * such a bug is caught until the handle's next latch ("used after unlock") instead of for ever.
     */
    final GclHandle handle(CacheFrame frame, MemorySegment copy, MemorySegment memory, long base, long address,
                           boolean exclusive, long stamp) {
        return handle(handlePools.get(), frame, copy, memory, base, address, exclusive, stamp);
    }

    /** The calling thread's handle pool, which also holds its counter block (see {@link HandlePool#counts}). */
    final HandlePool handlePool() {
        return handlePools.get();
    }

    /** {@link #handle} from a pool the caller already looked up. */
    final GclHandle handle(HandlePool pool, CacheFrame frame, MemorySegment copy, MemorySegment memory, long base,
                           long address, boolean exclusive, long stamp) {
        GclHandle h;
        if (pool.count == 0) {
            h = new GclHandle(this, frame, copy, memory, base, address, exclusive, stamp);
        } else {
            h = pool.handles[--pool.count];
            pool.handles[pool.count] = null;
            h.rebind(frame, copy, memory, base, address, exclusive, stamp);
        }
        h.pool = pool;
        return h;
    }

    /**
     * One thread's handles, given out by its latches and taken back when that same thread unlocks them;
     * bounded. It keeps the thread's counter block too, so a hit looks up one per-thread object, not two,
     * and an unlock none: the handle names the pool it came from (a handle unlocked by another thread is
     * left to the garbage collector, as the pool is its owner's alone).
     */
    static final class HandlePool {
        private static final int CAPACITY = 256;
        final GclHandle[] handles = new GclHandle[CAPACITY];
        int count;
        /** The thread's counts on this node ({@link NodeCounters#threadBlock}). */
        final long[] counts;
        /** The only thread that takes handles from this pool or puts them back. */
        final Thread owner = Thread.currentThread();

        HandlePool(long[] counts) {
            this.counts = counts;
        }

        /** Takes {@code handle} back if the caller is this pool's thread and there is room. */
        void giveBack(GclHandle handle) {
            if (owner == Thread.currentThread() && count < CAPACITY) {
                handles[count++] = handle;
            }
        }
    }

    @Override
    public final void unlock(GclHandle handle) {
        if (handle.optimistic) {
            throw new IllegalArgumentException("an optimistic handle is validated, never unlocked: " + handle);
        }
        if (handle.image) {
            throw new IllegalArgumentException("an image is published, never unlocked: " + handle);
        }
        if (handle.owner != this) {
            throw new IllegalArgumentException("handle belongs to another compute node: handle=" + handle
                + " node=" + nodeId);
        }
        if (handle.released) {
            throw new IllegalStateException("unlock of a latch not held (already released): " + handle);
        }
        handle.released = true;
        release(handle);
        HandlePool pool = handle.pool;
        if (pool != null && !handle.kept) {
            pool.giveBack(handle);
        }
    }

    abstract void release(GclHandle handle);

    @Override
    public final void writeThrough(GclHandle... handles) {
        for (GclHandle handle : handles) {
            if (handle.owner != this || handle.optimistic || handle.image || handle.released || !handle.exclusive) {
                throw new IllegalArgumentException("write-through needs an exclusive handle this node holds: handle="
                    + handle);
            }
        }
        writeThroughHeld(handles);
    }

    /**
     * Writes held exclusive handles' dirty bytes (and, cached, their frames') to memory now, in one batch
     * in the order given; the latches stay.
     */
    abstract void writeThroughHeld(GclHandle[] handles);

    /** Set by {@link SelccCluster#crash}: every later latch call of this node throws. */
    volatile boolean crashed;
    /** Every compute node of the cluster, this one included (null: one in another process); set once by the cluster. */
    AbstractComputeNode[] peers = new AbstractComputeNode[0];

    /**
     * Whether a compute node of another process has crashed: the fabric fenced it (once fenced nothing of it
     * lands, so none of its transactions commits any more). Set by the cluster; the default knows nothing.
     */
    volatile java.util.function.IntPredicate remotePeerCrashed = node -> false;

    @Override
    public final boolean peerCrashed(int computeNode) {
        AbstractComputeNode[] all = peers;
        if (computeNode < 0 || computeNode >= all.length) {
            return false;
        }
        AbstractComputeNode peer = all[computeNode];
        return peer != null ? peer.crashed : remotePeerCrashed.test(computeNode);
    }

    @Override
    public final boolean anyPeerCrashed() {
        AbstractComputeNode[] all = peers;
        for (int i = 0; i < all.length; i++) {
            if (all[i] != null ? all[i].crashed : remotePeerCrashed.test(i)) {
                return true;
            }
        }
        return false;
    }
    /** Crashed nodes whose repair failed, with the reason (see {@link SelccCluster#repairFailed}). */
    final java.util.Map<Integer, String> failedRepairs = new java.util.concurrent.ConcurrentHashMap<>();
    /** Told the id of a peer that a message could not reach (it was fenced); set by the cluster. */
    volatile java.util.function.IntConsumer peerFailures = node -> { };
    /**
     * Makes sure a peer that failed to answer lands nothing any more, and says whether it does not: another
     * process's node is fenced here (idempotent), a node of this process is fenced by its crash (false if it
     * has not crashed). Set by the cluster; the default knows nothing.
     */
    volatile java.util.function.IntPredicate fenceFailedPeer = node -> false;

    @Override
    public final GclHandle snapshot(long address) {
        checkGcl(address);
        // A write-back may land while the line is read: read until two reads in a row agree, so no half
        // written row (a slot being reused) is taken for a whole one.
        int length = gclSize - GclLayout.COPY_OFFSET;
        MemorySegment copy = MemorySegment.ofArray(new long[gclSize / Long.BYTES]);
        MemorySegment again = MemorySegment.ofArray(new long[gclSize / Long.BYTES]);
        endpoint.remoteRead(address + GclLayout.COPY_OFFSET, copy, GclLayout.COPY_OFFSET, length);
        while (true) {
            endpoint.remoteRead(address + GclLayout.COPY_OFFSET, again, GclLayout.COPY_OFFSET, length);
            if (copy.mismatch(again) < 0) {
                break;
            }
            MemorySegment swap = copy;
            copy = again;
            again = swap;
        }
        GclHandle handle = new GclHandle(this);
        handle.bindSnapshot(copy, address);
        return handle;
    }

    /** Bytes of lines a batch of reads ({@link #snapshots}, {@link SelccCluster#forEachGclInMemory}) asks for at most. */
    static final int BATCH_BYTES = 1 << 20;

    @Override
    public final GclHandle[] snapshots(long[] addresses) {
        return settle(addresses, null);
    }

    /**
     * {@link #snapshots}, where {@code firstReads}, if not null, holds each line's first read already
     * (gclSize bytes, the data from {@link GclLayout#COPY_OFFSET}; kept by the handle): each line is then
     * read once more to confirm it, not twice ({@link SelccCluster#forEachGclInMemory} read it in its sweep).
     */
    final GclHandle[] settle(long[] addresses, MemorySegment[] firstReads) {
        int length = gclSize - GclLayout.COPY_OFFSET;
        GclHandle[] handles = new GclHandle[addresses.length];
        VerbBatch batch = new VerbBatch();
        int perBatch = Math.max(1, Math.min(SNAPSHOT_BATCH, BATCH_BYTES / gclSize)); // large GCLs: fewer per batch
        MemorySegment[] copies = new MemorySegment[Math.min(perBatch, addresses.length)];
        MemorySegment[] agains = new MemorySegment[copies.length];
        for (int i = 0; i < copies.length; i++) {
            agains[i] = MemorySegment.ofArray(new long[gclSize / Long.BYTES]);
        }
        int[] unsettled = new int[copies.length];
        for (int from = 0; from < addresses.length; from += perBatch) {
            int count = Math.min(perBatch, addresses.length - from);
            batch.clear();
            for (int i = 0; i < count; i++) {
                long address = addresses[from + i];
                checkGcl(address);
                if (firstReads != null) {
                    copies[i] = firstReads[from + i];
                } else {
                    copies[i] = MemorySegment.ofArray(new long[gclSize / Long.BYTES]); // kept by the handle
                    batch.read(address + GclLayout.COPY_OFFSET, copies[i], GclLayout.COPY_OFFSET, length);
                }
            }
            if (batch.size() > 0) {
                endpoint.post(batch);
            }
            for (int i = 0; i < count; i++) {
                unsettled[i] = i;
            }
            // A write-back may land while a line is read: each is read again until two reads in a row agree.
            for (int left = count; left > 0; ) {
                batch.clear();
                for (int k = 0; k < left; k++) {
                    int i = unsettled[k];
                    batch.read(addresses[from + i] + GclLayout.COPY_OFFSET, agains[i], GclLayout.COPY_OFFSET, length);
                }
                endpoint.post(batch);
                int still = 0;
                for (int k = 0; k < left; k++) {
                    int i = unsettled[k];
                    if (copies[i].mismatch(agains[i]) >= 0) {
                        MemorySegment swap = copies[i];
                        copies[i] = agains[i];
                        agains[i] = swap;
                        unsettled[still++] = i;
                    }
                }
                left = still;
            }
            for (int i = 0; i < count; i++) {
                GclHandle handle = new GclHandle(this);
                handle.bindSnapshot(copies[i], addresses[from + i]);
                handles[from + i] = handle;
            }
        }
        return handles;
    }

    @Override
    public final GclHandle adoptCrashedLine(long address, int crashedNode) {
        checkGcl(address);
        if (crashedNode == nodeId) {
            throw new IllegalArgumentException("a node cannot adopt its own lines: node=" + nodeId);
        }
        return adopt(address, crashedNode);
    }

    /** See {@link #adoptCrashedLine}. */
    abstract GclHandle adopt(long address, int crashedNode);

    @Override
    public final long faa(long address, long delta) {
        return endpoint.remoteFaa(checkWord(address), delta);
    }

    @Override
    public final long cas(long address, long expected, long update) {
        return endpoint.remoteCas(checkWord(address), expected, update);
    }

    @Override
    public final void postWords(io.selcc.fabric.VerbBatch batch) {
        for (int i = 0; i < batch.size(); i++) {
            long first = checkWord(batch.address(i));
            int length = batch.length(i);
            long last = checkWord(first + Math.max(8, length) - 8);
            if ((length & 7) != 0 || GlobalAddress.offset(first) / gclSize != GlobalAddress.offset(last) / gclSize) {
                throw new IllegalArgumentException("not whole words of one GCL's data region: address="
                    + GlobalAddress.toString(first) + " length=" + length);
            }
        }
        endpoint.post(batch);
    }

    // ---------------------------------------------------------------- allocation

    @Override
    public final long allocate() {
        long taken = take();
        long address = taken & ~REUSED;
        initialize(address, (taken & REUSED) != 0);
        return address;
    }

    @Override
    public final GclHandle allocateImage(MemorySegment image) {
        if (image.byteSize() != gclSize || image.isReadOnly()) {
            throw new IllegalArgumentException("an image must be a writable buffer of one GCL: bytes=" + image.byteSize()
                + " gclSize=" + gclSize);
        }
        long taken = take();
        long address = taken & ~REUSED;
        if ((taken & REUSED) != 0) { // it may still be cached somewhere: through the protocol
            initialize(address, true);
            return xLock(address);
        }
        image.fill((byte) 0);
        image.set(ValueLayout.JAVA_INT_UNALIGNED, GclLayout.STATE_OFFSET, GclLayout.STATE_ALLOCATED);
        GclHandle handle = new GclHandle(this, image, address);
        handle.markHeaderDirty(GclLayout.STATE_OFFSET, 4);
        return handle;
    }

    @Override
    public final void publish(GclHandle handle) {
        if (!handle.image) {
            unlock(handle);
            return;
        }
        if (handle.owner != this) {
            throw new IllegalArgumentException("handle belongs to another compute node: handle=" + handle + " node=" + nodeId);
        }
        if (handle.released) {
            throw new IllegalStateException("publish of an image already published: " + handle);
        }
        handle.released = true;
        // Memory holds zeros past the last byte written: a never-used line is zero.
        endpoint.remoteWrite(handle.address + GclLayout.COPY_OFFSET, handle.copy(), GclLayout.COPY_OFFSET,
            handle.dirtyHigh - GclLayout.COPY_OFFSET);
    }

    @Override
    public final void publishAll(GclHandle[] handles, int count) {
        io.selcc.fabric.VerbBatch batch = new io.selcc.fabric.VerbBatch(); // one per run of pages: not a hot path
        for (int i = 0; i < count; i++) {
            GclHandle handle = handles[i];
            if (!handle.image) {
                continue; // a reused GCL, latched in the cache: unlocked below, after the images are in memory
            }
            if (handle.owner != this) {
                throw new IllegalArgumentException("handle belongs to another compute node: handle=" + handle + " node=" + nodeId);
            }
            if (handle.released) {
                throw new IllegalStateException("publish of an image already published: " + handle);
            }
            handle.released = true; // a handle twice in the batch fails above
            batch.write(handle.address + GclLayout.COPY_OFFSET, handle.copy(), GclLayout.COPY_OFFSET,
                handle.dirtyHigh - GclLayout.COPY_OFFSET);
        }
        endpoint.post(batch);
        for (int i = 0; i < count; i++) {
            if (!handles[i].image) {
                unlock(handles[i]);
            }
        }
    }

    /** Marks an address {@link #take} took from the free list (GCL addresses are aligned, so bit 0 is free). */
    private static final long REUSED = 1L;

    /**
     * A GCL address, round-robin over memory nodes: a freed one of this node's if it has one there, else
     * a fresh one, with {@link #REUSED} set for a freed one.
     */
    private long take() {
        int memoryNodes = capacities.length;
        for (int attempt = 0; attempt < memoryNodes; attempt++) {
            int memoryNode = Math.floorMod(roundRobin.getAndIncrement(), memoryNodes);
            MemoryNodeChunk chunk = chunks[memoryNode];
            long address;
            boolean reused;
            synchronized (chunk) {
                reused = chunk.freeCount > 0;
                address = reused ? chunk.popFree() : chunk.next(memoryNode);
            }
            if (address != GlobalAddress.NULL) {
                return reused ? address | REUSED : address;
            }
        }
        throw new SharedMemoryFullException("shared memory is full: every memory node is out of GCLs: memoryNodes="
            + memoryNodes + " bytesPerMemoryNode=" + capacities[0] + " gclSize=" + gclSize);
    }

    private void initialize(long address, boolean reused) {
        GclHandle handle = reused ? xLock(address) : lockFresh(checkGcl(address));
        int state = handle.copy().get(ValueLayout.JAVA_INT_UNALIGNED, GclLayout.STATE_OFFSET);
        int expected = reused ? GclLayout.STATE_FREE : 0;
        if (state != expected) {
            unlock(handle);
            throw new IllegalStateException("allocator found a GCL in use: address=" + GlobalAddress.toString(address)
                + " state=0x" + Integer.toHexString(state));
        }
        handle.copy().set(ValueLayout.JAVA_INT_UNALIGNED, GclLayout.STATE_OFFSET, GclLayout.STATE_ALLOCATED);
        handle.markHeaderDirty(GclLayout.STATE_OFFSET, 4);
        if (reused) {
            handle.copy().asSlice(GclLayout.DATA_OFFSET).fill((byte) 0);
            handle.markDirty(0, dataSize());
        }
        unlock(handle);
    }

    @Override
    public final void free(long address) {
        checkGcl(address);
        GclHandle handle = xLock(address);
        int state = handle.copy().get(ValueLayout.JAVA_INT_UNALIGNED, GclLayout.STATE_OFFSET);
        if (state != GclLayout.STATE_ALLOCATED) {
            unlock(handle);
            throw new IllegalStateException((state == GclLayout.STATE_FREE ? "double free" : "free of a GCL never allocated")
                + ": address=" + GlobalAddress.toString(address));
        }
        handle.copy().set(ValueLayout.JAVA_INT_UNALIGNED, GclLayout.STATE_OFFSET, GclLayout.STATE_FREE);
        handle.markHeaderDirty(GclLayout.STATE_OFFSET, 4);
        unlock(handle);
        MemoryNodeChunk chunk = chunks[GlobalAddress.memoryNode(address)];
        synchronized (chunk) {
            chunk.pushFree(address);
        }
    }

    @Override
    public final long roundTripNanos() {
        return endpoint.roundTripNanos();
    }

    @Override
    public final long takenGcls() {
        long gcls = 0;
        for (int memoryNode = 0; memoryNode < capacities.length; memoryNode++) {
            long bumped = endpoint.remoteFaa(GlobalAddress.of(memoryNode, 0), 0);
            long usable = usableEnd(memoryNode) - reservedBytes(memoryNode);
            gcls += Math.min(bumped, usable) / gclSize; // the bump word runs past the end once a node is full
        }
        return gcls;
    }

    @Override
    public final long idleGcls() {
        long gcls = 0;
        for (MemoryNodeChunk chunk : chunks) {
            synchronized (chunk) {
                gcls += Math.max(0, chunk.end - chunk.next) / gclSize + chunk.freeCount;
            }
        }
        return gcls;
    }

    /** Bytes before a memory node's first allocatable GCL: the bump word's GCL, and on node 0 the catalog root. */
    private long reservedBytes(int memoryNode) {
        return gclSize * (memoryNode == 0 ? 2L : 1L);
    }

    /** Where a memory node's last whole GCL ends. */
    private long usableEnd(int memoryNode) {
        long capacity = capacities[memoryNode];
        return capacity - capacity % gclSize;
    }

    /** This node's allocation state for one memory node; guarded by its monitor. */
    private final class MemoryNodeChunk {
        long next;
        long end;
        boolean full;
        long[] free = new long[16];
        int freeCount;

        long popFree() {
            return free[--freeCount];
        }

        void pushFree(long address) {
            if (freeCount == free.length) {
                free = java.util.Arrays.copyOf(free, free.length * 2);
            }
            free[freeCount++] = address;
        }

        /** The next fresh GCL, refilling the chunk by one FAA on the memory node's bump word when empty. */
        long next(int memoryNode) {
            if (next + gclSize > end) {
                if (full) {
                    return GlobalAddress.NULL;
                }
                long chunkBytes = (long) settings.allocationChunk() * gclSize;
                long previous = endpoint.remoteFaa(GlobalAddress.of(memoryNode, 0), chunkBytes);
                long start = reservedBytes(memoryNode) + previous;
                next = start;
                end = Math.min(start + chunkBytes, usableEnd(memoryNode));
                if (start + gclSize > end) {
                    full = true;
                    return GlobalAddress.NULL;
                }
            }
            long offset = next;
            next += gclSize;
            return GlobalAddress.of(memoryNode, offset);
        }
    }

    // ---------------------------------------------------------------- checks

    final long checkGcl(long address) {
        if (crashed) {
            throw new io.selcc.fabric.NodeFailedException(nodeId, "compute node " + nodeId + " has crashed");
        }
        int memoryNode = GlobalAddress.memoryNode(address);
        long offset = GlobalAddress.offset(address);
        if (memoryNode >= capacities.length) {
            throw new IllegalArgumentException("no such memory node: address=" + GlobalAddress.toString(address)
                + " memoryNodes=" + capacities.length);
        }
        if ((offset & (gclSize - 1)) != 0) { // a power of two (GclLayout.sizeProblem): a mask, not a 64-bit division per latch
            throw new IllegalArgumentException("misaligned GCL address: address=" + GlobalAddress.toString(address)
                + " gclSize=" + gclSize);
        }
        if (offset < gclSize || offset + gclSize > capacities[memoryNode]) {
            throw new IllegalArgumentException("GCL address out of range: address=" + GlobalAddress.toString(address)
                + " valid offsets=[" + gclSize + ", " + (capacities[memoryNode] - gclSize) + "]");
        }
        return address;
    }

    final long checkWord(long address) {
        int memoryNode = GlobalAddress.memoryNode(address);
        long offset = GlobalAddress.offset(address);
        if (memoryNode >= capacities.length || offset < gclSize || offset + 8 > capacities[memoryNode]) {
            throw new IllegalArgumentException("atomic address out of range: address=" + GlobalAddress.toString(address));
        }
        if ((offset & 7) != 0) {
            throw new IllegalArgumentException("misaligned atomic address: address=" + GlobalAddress.toString(address)
                + " (must be 8-byte aligned)");
        }
        if ((offset & (gclSize - 1)) < GclLayout.DATA_OFFSET) {
            throw new IllegalArgumentException("atomic on a GCL latch or header word: address="
                + GlobalAddress.toString(address) + " (use a word in the data region)");
        }
        return address;
    }

    /** Address of the latch word of the GCL at {@code gcl}. */
    static long latchOf(long gcl) {
        return gcl + GclLayout.LATCH_OFFSET;
    }

    void close() {
    }
}
