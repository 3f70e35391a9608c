package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.cache.GclLayout;
import io.selcc.cache.LatchWord;
import io.selcc.fabric.VerbBatch;
import io.selcc.threads.PerThread;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The SEL baseline: no cache. Every lock is a remote latch plus READ in one round trip, every unlock
 * a WRITE of the dirty bytes plus release (X) or a release (S). Shared holders are counted in the latch
 * word (see {@link LatchWord}); each handle has its own private copy.
 */
final class SelNode extends AbstractComputeNode {
    private final Arena arena = Arena.ofShared();
    /**
     * Each thread's spare copies, allocated from the node's arena and freed only when the node closes: a
     * thread that ended leaves its copies to the next new thread, or short-lived (virtual) threads would
     * each leave a transaction's worth of off-heap copies behind.
     */
    private final io.selcc.threads.ThreadRegistry<ArrayDeque<MemorySegment>> bufferSets =
        io.selcc.threads.ThreadRegistry.recycling();
    private final PerThread<ArrayDeque<MemorySegment>> buffers =
        PerThread.withInitial(() -> bufferSets.registerReused(ArrayDeque::new));
    private final PerThread<VerbBatch> batches = PerThread.withInitial(VerbBatch::new);

    SelNode(Settings settings, FabricEndpoint endpoint, long[] capacities) {
        super(settings, endpoint, capacities);
    }

    /** No cache frames, so no holders' ages: a busy latch is a die, as for no-wait. */
    @Override
    GclHandle waitOrDie(long address, boolean exclusive, long age) {
        GclHandle handle = lock(address, exclusive, true);
        if (handle == null) {
            endpoint.counters().increment(Counter.WAIT_DIE_DIES);
        }
        return handle;
    }

    @Override
    GclHandle lock(long address, boolean exclusive, boolean tryOnly) {
        MemorySegment copy = takeBuffer();
        VerbBatch batch = batches.get();
        long latch = latchOf(address);
        endpoint.counters().increment(Counter.CACHE_MISSES); // no cache: every access is a miss
        for (int retries = 0; ; ) {
            batch.clear();
            int atomic = exclusive
                ? batch.cas(latch, LatchWord.FREE, LatchWord.exclusive(nodeId))
                : batch.faa(latch, LatchWord.SEL_READER_UNIT);
            batch.read(address + GclLayout.COPY_OFFSET, copy, GclLayout.COPY_OFFSET, gclSize - GclLayout.COPY_OFFSET);
            endpoint.post(batch);
            long previous = batch.result(atomic);
            if (exclusive ? previous == LatchWord.FREE : !LatchWord.hasWriter(previous)) {
                return handle(null, copy, copy, 0, address, exclusive, 0);
            }
            if (!exclusive) {
                endpoint.remoteFaa(latch, -LatchWord.SEL_READER_UNIT);
            }
            retries++;
            endpoint.counters().increment(Counter.LATCH_RETRIES);
            if (tryOnly && retries > settings.tryLockRetries()) {
                endpoint.counters().increment(Counter.LATCH_GIVE_UPS);
                buffers.get().push(copy);
                return null;
            }
            Backoff.pause(settings.retryIntervalNanos(retries, endpoint.roundTripNanos()), settings.clock());
        }
    }

    @Override
    GclHandle adopt(long address, int crashedNode) {
        throw new UnsupportedOperationException("SEL mode cannot recover a crashed node (see SelccCluster#crash)");
    }

    @Override
    void writeThroughHeld(GclHandle[] handles) {
        VerbBatch batch = batches.get().clear();
        for (GclHandle handle : handles) {
            if (handle.dirtyLow == CacheFrame.CLEAN) {
                continue;
            }
            int length = handle.dirtyHigh - handle.dirtyLow;
            batch.write(handle.address + handle.dirtyLow, handle.copy(), handle.dirtyLow, length);
            endpoint.counters().increment(Counter.WRITE_BACKS);
            endpoint.counters().add(Counter.WRITE_BACK_BYTES, length);
            handle.dirtyLow = CacheFrame.CLEAN;
            handle.dirtyHigh = 0;
        }
        if (batch.size() > 0) {
            endpoint.post(batch);
        }
    }

    @Override
    void release(GclHandle handle) {
        long latch = latchOf(handle.address);
        if (!handle.exclusive) {
            endpoint.remoteFaa(latch, -LatchWord.SEL_READER_UNIT);
        } else if (handle.dirtyLow == CacheFrame.CLEAN) {
            endpoint.remoteFaa(latch, LatchWord.releaseExclusiveDelta(nodeId));
        } else {
            VerbBatch batch = batches.get().clear();
            int length = handle.dirtyHigh - handle.dirtyLow;
            batch.write(handle.address + handle.dirtyLow, handle.copy(), handle.dirtyLow, length);
            batch.faa(latch, LatchWord.releaseExclusiveDelta(nodeId));
            endpoint.post(batch);
            endpoint.counters().increment(Counter.WRITE_BACKS);
            endpoint.counters().add(Counter.WRITE_BACK_BYTES, length);
        }
        buffers.get().push(handle.copy());
    }

    private MemorySegment takeBuffer() {
        MemorySegment buffer = buffers.get().poll();
        return buffer != null ? buffer : arena.allocate(gclSize, 8);
    }

    @Override
    void close() {
        arena.close();
    }

    @Override
    boolean optimisticRead(long address, GclHandle handle, int frameHint) {
        return false; // nothing cached: every read is a latched remote read
    }

    @Override
    long prefetchFrame(int frameHint, int from, int to) {
        return 0; // nothing cached
    }

    @Override
    boolean validateOptimistic(GclHandle handle) {
        return false;
    }
}
