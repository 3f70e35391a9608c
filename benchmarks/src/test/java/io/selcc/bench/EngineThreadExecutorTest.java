package io.selcc.bench;

import io.selcc.threads.EngineThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JMH's tasks run on the engine's kinds of thread: an engine platform thread by default, a virtual one
 * on request, and nothing once shut down. Fails with the tasks on plain threads.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EngineThreadExecutorTest {
    @Test
    void tasksRunOnEngineThreads() throws Exception {
        EngineThreadExecutor executor = new EngineThreadExecutor(1, "jmh-worker");
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        executor.execute(() -> ranOn.complete(Thread.currentThread()));
        assertTrue(ranOn.get(10, TimeUnit.SECONDS) instanceof EngineThread, "an engine platform thread");
        executor.shutdown();
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
        assertThrows(RejectedExecutionException.class, () -> executor.execute(() -> { }));
    }

    @Test
    void virtualOnRequest() throws Exception {
        String before = System.getProperty("selcc.bench.virtual");
        System.setProperty("selcc.bench.virtual", "true");
        EngineThreadExecutor executor;
        try {
            executor = new EngineThreadExecutor(1, "jmh-worker");
        } finally {
            if (before == null) {
                System.clearProperty("selcc.bench.virtual");
            } else {
                System.setProperty("selcc.bench.virtual", before);
            }
        }
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        executor.execute(() -> ranOn.complete(Thread.currentThread()));
        Thread thread = ranOn.get(10, TimeUnit.SECONDS);
        assertTrue(thread.isVirtual(), "a virtual thread");
        assertFalse(thread instanceof EngineThread);
        executor.shutdown();
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
    }
}
