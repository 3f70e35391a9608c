package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A thread finds the frame for line A, but before it latches the frame the frame is evicted and
 * reused for line B; while the thread holds the latch (only to find that the frame now caches B), a
 * remote writer's invalidation for B arrives and is kept pending. The thread lets go after the
 * address re-check, and it must serve that request then: nobody else may touch the frame for a long
 * time. Shown failing (timeout) with the serve after the re-check removed: the request stays pending
 * until the requester gives up, an hour here. Four frames keep the eviction worker asleep: an
 * eviction of the moved frame would also answer the request and hide the bug.
 */
class MovedFrameTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRequestThatArrivesWhileTheFrameMovedIsServedByTheThreadThatLetsGo() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(4).freeListLowWater(1)
            .pendingWaitNanos(TimeUnit.HOURS.toNanos(1)).build()) {
            SelccNode local = (SelccNode) cluster.node(0);
            ComputeNode remote = cluster.node(1);
            // Allocate through node 1: allocating initializes a line through the cache, and node 0's two
            // frames must stay untouched (no eviction worker) until the test moves one on purpose.
            long lineA = remote.allocate();
            long[] candidates = new long[8];
            for (int i = 0; i < candidates.length; i++) {
                candidates[i] = remote.allocate();
            }
            java.util.concurrent.atomic.AtomicLong moved = new java.util.concurrent.atomic.AtomicLong(-1);
            local.unlock(local.xLock(lineA));
            CacheFrame frame = local.cachedFrame(lineA);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] remoteWriter = new Thread[1];
            Thread locker = Thread.ofPlatform().unstarted(() -> {
                try {
                    GclHandle h = local.sLock(lineA);
                    local.unlock(h);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            local.seam = new SelccNode.LockSeam() {
                @Override
                public void beforeLocalLatch(CacheFrame found) {
                    if (Thread.currentThread() != locker || found != frame || found.address() != lineA) {
                        return;
                    }
                    // Move the frame to another line B: evict everything and install lines until one lands in it.
                    for (long line : candidates) {
                        local.flush();
                        local.unlock(local.xLock(line)); // node 0 keeps the global X latch (lazy release)
                        if (local.cachedFrame(line) == frame) {
                            moved.set(line);
                            break;
                        }
                    }
                    assertNull(local.cachedFrame(lineA));
                }

                @Override
                public void beforeAddressCheck(CacheFrame latched) {
                    if (Thread.currentThread() != locker || latched != frame || latched.address() != moved.get()) {
                        return;
                    }
                    long pendingBefore = cluster.counters(0).get(Counter.INVALIDATIONS_PENDING);
                    remoteWriter[0] = Thread.ofPlatform().start(() -> {
                        try {
                            GclHandle x = remote.xLock(moved.get());
                            x.putLong(0, 7);
                            remote.unlock(x);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    });
                    // Hold the latch until the request is kept pending on this frame (counted, not timed).
                    while (cluster.counters(0).get(Counter.INVALIDATIONS_PENDING) == pendingBefore
                        && remoteWriter[0].isAlive()) {
                        Thread.onSpinWait();
                    }
                }
            };
            locker.start();
            locker.join();
            local.seam = null;
            if (remoteWriter[0] == null) {
                throw new AssertionError("the frame never moved under the locker: moved=" + moved.get() + " frame now caches " + frame.address(), failure.get());
            }
            remoteWriter[0].join(); // hangs (test timeout) if nobody serves the pending request
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(1, cluster.counters(0).get(Counter.INVALIDATIONS_PENDING), "the request was kept pending");
            assertEquals(7, SequentialConsistencyTest.read(local, moved.get()), "the remote writer's write");
        }
    }
}
