package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads waiting for a held local latch park until the release wakes them: they do not look again
 * while the holder keeps it. With the wait's safety net at 1 ms, each of the hundred waiters here
 * parked about two hundred times during the 200 ms hold (this test failed: ~20,000 parks), and two
 * hundred virtual threads of a contract test polling that way kept the carriers from the holders they
 * waited for, so its waves stood still (the transfers hang of issue 30's cache core).
 */
class ParkedWaitersTest {
    private static final int WAITERS = 100;
    /** How long the holder keeps the latch once every waiter parked: the scenario, not a synchronisation. */
    private static final long HOLD_MILLIS = 200;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void waitersParkOnceUntilTheReleaseWakesThem() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(1).cacheFrames(16).build()) {
            ComputeNode node = cluster.node(0);
            long line = node.allocate();
            GclHandle held = node.xLock(line);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                waiters.add(Thread.ofVirtual().start(() -> {
                    try {
                        node.unlock(node.sLock(line));
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (cluster.counters(0).get(Counter.LATCH_PARKS) < WAITERS && failure.get() == null) {
                assertTrue(System.nanoTime() < deadline, "the waiters never all parked: "
                    + cluster.counters(0).get(Counter.LATCH_PARKS) + " parks of " + WAITERS);
                Thread.onSpinWait();
            }
            Thread.sleep(HOLD_MILLIS);
            node.unlock(held);
            for (Thread waiter : waiters) {
                assertTrue(waiter.join(java.time.Duration.ofSeconds(30)), "a waiter was never woken");
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            long parks = cluster.counters(0).get(Counter.LATCH_PARKS);
            assertFalse(parks > 2L * WAITERS, parks + " parks of " + WAITERS + " waiters during one "
                + HOLD_MILLIS + " ms hold: parked waiters look again without a release");
        }
    }
}
