package io.selcc.threads;

/**
 * A platform thread with a small direct-mapped cache of its {@link PerThread} values. The engine's
 * own threads (loaders, evictors, micro-benchmark workers) are started here; any other thread works
 * too, it only reads its per-thread values through the {@link ThreadLocal} map. Virtual threads cannot
 * be subclassed: {@link #startVirtual} gives one the same cache through a {@link ScopedValue} bound
 * around its task (TPC-C terminals run that way).
 *
 * <p>Why: one probe of the {@code ThreadLocal} map on every counter increment and latch took 11.5%
 * of a TPC-C run's samples (docs/benchmarks.md, issue 8); a field load and an identity compare do
 * the same job.
 */
public final class EngineThread extends Thread {
    /** Slots, a power of two: per-thread values in use at once must rarely share one (a two-node TPC-C
     * run creates about a hundred: tables, trees, counters and batches per node; 143 slot misses in a
     * whole run, each a first use). */
    static final int SLOTS = 1024;

    /** Interleaved {owner, value} pairs, indexed by {@code 2 * (PerThread.id & (SLOTS - 1))}. */
    final Object[] slots = new Object[2 * SLOTS];

    /** The slot array of a virtual thread started by {@link #startVirtual} (unbound elsewhere). */
    static final ScopedValue<Object[]> VIRTUAL_SLOTS = ScopedValue.newInstance();

    private EngineThread(Runnable task, String name) {
        super(null, task, name);
    }

    /** Starts a non-daemon engine thread. */
    public static Thread start(String name, Runnable task) {
        return start(name, false, task);
    }

    /**
     * Waits until {@code thread} (if any) has ended, also when interrupted meanwhile; the interrupt is
     * passed on afterwards. For an owner stopping its agent: the agent must be gone before what it uses.
     */
    public static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread != null && thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Starts a virtual thread whose {@link PerThread} values are cached as an engine thread's are. Its
     * values are its own (they live and die with it), like any thread's.
     */
    public static Thread startVirtual(String name, Runnable task) {
        return Thread.ofVirtual().name(name).start(() -> ScopedValue.where(VIRTUAL_SLOTS, new Object[2 * SLOTS]).run(task));
    }

    /** Starts an engine thread; a daemon does not keep the JVM alive. */
    public static Thread start(String name, boolean daemon, Runnable task) {
        EngineThread thread = new EngineThread(task, name);
        thread.setDaemon(daemon);
        thread.start();
        return thread;
    }
}
