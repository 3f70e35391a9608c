package io.selcc.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.selcc.threads.EngineThread;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NodeCounters} keeps a block per counting thread. Called from thousands of short-lived virtual
 * threads it must stay bounded by the live threads and lose no count. Planted bugs caught: a retired block
 * not folded into the total (the sum falls short), and a registry that never prunes (the live-block bound
 * fails).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NodeCountersThreadsTest {

    @Test
    void shortLivedVirtualThreadsLoseNoCountAndLeaveNoBlocks() throws Exception {
        NodeCounters counters = new NodeCounters(0);
        int waves = 20;
        int perWave = 500;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int wave = 0; wave < waves; wave++) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < perWave; t++) {
                Runnable count = () -> {
                    try {
                        counters.add(Counter.ROUND_TRIPS, 3);
                        Thread.yield();
                        counters.increment(Counter.MESSAGES_SENT);
                        assertEquals(3, counters.threadSnapshot().get(Counter.ROUND_TRIPS), "a thread's own counts");
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                };
                threads.add(t % 2 == 0 ? Thread.ofVirtual().start(count) : EngineThread.startVirtual("count-" + t, count));
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a counting thread failed", failure.get());
        }
        long threads = (long) waves * perWave;
        CounterSnapshot total = counters.snapshot();
        assertEquals(3 * threads, total.get(Counter.ROUND_TRIPS));
        assertEquals(threads, total.get(Counter.MESSAGES_SENT));
        // At most one wave alive at a time: the registry prunes once it doubled, so it stays near 2 x 500.
        assertTrue(counters.liveBlocks() <= 4 * perWave, "blocks=" + counters.liveBlocks() + " after " + threads + " threads");
    }
}
