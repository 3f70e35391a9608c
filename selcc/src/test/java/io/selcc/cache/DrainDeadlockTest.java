package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two threads of node 1 each hold S on one line and then ask for S on the other's, while writers on
 * node 0 wait for both lines at a starving priority (lease 0). Both leases expire at once. When a
 * drain queued for the write latch, each thread waited for the other's S for ever (this test timed
 * out); now a drainer waits for the holders a bounded time and then lets go, so both go on.
 */
class DrainDeadlockTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void crossedSharedAcquiresWithExpiredLeasesDoNotDeadlock() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).threadsPerNode(2)
            .starvationPriority(1).pendingWaitNanos(200_000_000).build()) {
            ComputeNode writerNode = cluster.node(0);
            ComputeNode readerNode = cluster.node(1);
            long g1 = writerNode.allocate();
            long g2 = writerNode.allocate();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch bothHold = new CountDownLatch(2);
            CountDownLatch requestsPending = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            long[][] pairs = {{g1, g2}, {g2, g1}};
            for (long[] pair : pairs) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        GclHandle mine = readerNode.sLock(pair[0]);
                        bothHold.countDown();
                        requestsPending.await();
                        GclHandle theirs = readerNode.sLock(pair[1]);
                        readerNode.unlock(theirs);
                        readerNode.unlock(mine);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            bothHold.await();
            for (long g : new long[] {g1, g2}) {
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        writerNode.unlock(writerNode.xLock(g));
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            while (cluster.counters(1).get(Counter.INVALIDATIONS_PENDING) < 2 && failure.get() == null) {
                Thread.onSpinWait();
            }
            requestsPending.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(50));
                assertTrue(!t.isAlive(), "a thread is stuck: crossed shared acquires deadlocked");
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            long drains = cluster.counters(1).get(Counter.LEASE_EXPIRIES) + cluster.counters(1).get(Counter.DRAIN_TIMEOUTS);
            assertTrue(drains >= 1, "no lease expired: the test proves nothing");
        }
    }
}
