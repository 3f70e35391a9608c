package io.selcc.threads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PerThread} must behave as a {@link ThreadLocal} on engine threads and on any other thread.
 * Planted bug that {@link #valuesSharingASlotKeepTheirOwn} catches: returning the slot's value without
 * comparing its owner (the second of two colliding values then reads the first one's value).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PerThreadTest {

    @Test
    void eachEngineThreadHasItsOwnValue() throws Exception {
        AtomicInteger created = new AtomicInteger();
        PerThread<int[]> counter = PerThread.withInitial(() -> {
            created.incrementAndGet();
            return new int[1];
        });
        int threads = 4;
        int increments = 10_000;
        List<int[]> seen = new ArrayList<>();
        onEngineThreads(threads, () -> {
            for (int i = 0; i < increments; i++) {
                counter.get()[0]++;
            }
            synchronized (seen) {
                seen.add(counter.get());
            }
        });
        assertEquals(threads, created.get(), "one initial value per thread");
        assertEquals(threads, seen.size());
        for (int[] value : seen) {
            assertEquals(increments, value[0], "no thread saw another's value");
        }
    }

    /**
     * Virtual engine threads share carriers: a value cached per carrier instead of per virtual thread
     * would be seen by every terminal on it. Each thread yields between increments, so many move between
     * carriers mid-count (planted bug caught: slots kept per carrier thread, not per virtual thread).
     */
    @Test
    void eachVirtualEngineThreadHasItsOwnValue() throws Exception {
        AtomicInteger created = new AtomicInteger();
        PerThread<int[]> counter = PerThread.withInitial(() -> {
            created.incrementAndGet();
            return new int[1];
        });
        int threads = 200;
        int increments = 200;
        List<int[]> seen = new ArrayList<>();
        onThreads(threads, true, () -> {
            for (int i = 0; i < increments; i++) {
                counter.get()[0]++;
                Thread.yield();
            }
            synchronized (seen) {
                seen.add(counter.get());
            }
        });
        assertEquals(threads, created.get(), "one initial value per virtual thread");
        for (int[] value : seen) {
            assertEquals(increments, value[0], "no virtual thread saw another's value");
        }
    }

    @Test
    void setAndRemoveAreSeenThroughAVirtualThreadsSlot() throws Exception {
        PerThread<String> value = PerThread.withInitial(() -> "initial");
        onThreads(1, true, () -> {
            assertEquals("initial", value.get());
            value.set("changed");
            assertEquals("changed", value.get());
            value.remove();
            assertEquals("initial", value.get());
        });
    }

    @Test
    void valuesSharingASlotKeepTheirOwn() throws Exception {
        // Ids are handed out in order (other tests may take some meanwhile): create values until one
        // shares the first one's slot.
        PerThread<String> first = PerThread.withInitial(() -> "first");
        PerThread<String> colliding = null;
        while (colliding == null) {
            PerThread<String> next = PerThread.withInitial(() -> "colliding");
            if (next.slotIndex() == first.slotIndex()) {
                colliding = next;
            }
        }
        PerThread<String> second = colliding;
        assertEquals(first.slotIndex(), second.slotIndex(), "the test needs two values in one slot");
        onEngineThreads(1, () -> {
            for (int round = 0; round < 3; round++) {
                assertEquals("first", first.get());
                assertEquals("colliding", second.get());
            }
        });
    }

    @Test
    void setAndRemoveAreSeenThroughTheSlot() throws Exception {
        PerThread<String> value = PerThread.withInitial(() -> "initial");
        onEngineThreads(1, () -> {
            assertEquals("initial", value.get());
            value.set("changed");
            assertEquals("changed", value.get());
            value.remove();
            assertEquals("initial", value.get());
        });
    }

    @Test
    void otherThreadsUseTheThreadLocalMap() throws Exception {
        PerThread<Object> value = PerThread.withInitial(Object::new);
        Object mine = value.get();
        assertSame(mine, value.get());
        AtomicReference<Object> theirs = new AtomicReference<>();
        Thread other = Thread.ofPlatform().start(() -> theirs.set(value.get()));
        other.join();
        assertNotSame(mine, theirs.get());
    }

    private static void onEngineThreads(int count, Runnable task) throws Exception {
        onThreads(count, false, task);
    }

    private static void onThreads(int count, boolean virtual, Runnable task) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            Runnable guarded = () -> {
                try {
                    task.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            };
            String name = "per-thread-test-" + t;
            threads.add(virtual ? EngineThread.startVirtual(name, guarded) : EngineThread.start(name, guarded));
        }
        for (Thread thread : threads) {
            thread.join();
            if (virtual) {
                assertTrue(thread.isVirtual());
            } else {
                assertEquals(EngineThread.class, thread.getClass());
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a worker failed", failure.get());
        }
    }
}
