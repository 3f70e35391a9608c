package io.selcc.bench;

import io.selcc.threads.EngineThread;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * JMH's benchmark threads as the engine runs its own: each task on a new {@link EngineThread}, a platform
 * thread whose per-thread values are one array load away, or with {@code -Dselcc.bench.virtual=true} on a
 * virtual thread started as TPC-C's terminals are ({@link EngineThread#startVirtual}). JMH's own threads are
 * plain platform threads, whose per-thread values (a hit's handle pool) go through the {@code ThreadLocal}
 * map, so the hit path measured there is not the engine's. Used through JMH's custom executor:
 *
 * <pre>
 * java -Djmh.executor=CUSTOM -Djmh.executor.class=io.selcc.bench.EngineThreadExecutor \
 *      -jar benchmarks/target/benchmarks.jar HitPath
 * </pre>
 *
 * JMH passes the launcher's {@code -D} options to its forks, where the executor is made.
 */
public final class EngineThreadExecutor extends AbstractExecutorService {
    private final String prefix;
    private final boolean virtual = Boolean.getBoolean("selcc.bench.virtual");
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile boolean shutdown;

    /** The constructor JMH calls: at most {@code maxThreads} tasks at once (one thread per task here). */
    public EngineThreadExecutor(int maxThreads, String prefix) {
        this.prefix = prefix;
    }

    @Override
    public void execute(Runnable task) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("executor shut down: " + prefix);
        }
        String name = prefix + "-" + threads.size();
        threads.add(virtual ? EngineThread.startVirtual(name, task) : EngineThread.start(name, true, task));
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && threads.stream().noneMatch(Thread::isAlive);
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !thread.join(java.time.Duration.ofNanos(left))) {
                return false;
            }
        }
        return isTerminated();
    }
}
