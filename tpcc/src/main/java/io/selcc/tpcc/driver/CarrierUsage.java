package io.selcc.tpcc.driver;

import java.util.HashMap;
import java.util.Map;

/**
 * CPU time and heap allocation of the virtual-thread scheduler's carrier threads over the measured
 * interval. The JDK counts both per platform thread only ({@code -1} for a virtual thread), and a virtual
 * terminal runs on whichever carrier is free, so the carriers' totals stand for the terminals' (in a run,
 * only terminals run on virtual threads). A carrier that ends inside the interval takes its share with it,
 * and one that starts inside it counts from zero: the scheduler keeps its carriers while work arrives.
 */
final class CarrierUsage {
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    /** The JDK's carrier thread class (jdk.internal.misc): named, as it is not exported. */
    private static final String CARRIER_CLASS = "jdk.internal.misc.CarrierThread";

    private final Map<Long, long[]> atStart = new HashMap<>();
    private long cpuNanos;
    private long allocatedBytes;

    /** The carriers a run's virtual threads would run on, by default: the scheduler's parallelism. */
    static int carriers() {
        return Integer.getInteger("jdk.virtualThreadScheduler.parallelism", Runtime.getRuntime().availableProcessors());
    }

    void measureFrom() {
        atStart.clear();
        atStart.putAll(sample());
    }

    void measureTo() {
        cpuNanos = 0;
        allocatedBytes = 0;
        for (Map.Entry<Long, long[]> now : sample().entrySet()) {
            long[] then = atStart.getOrDefault(now.getKey(), new long[2]);
            cpuNanos += Math.max(0, now.getValue()[0] - then[0]);
            allocatedBytes += Math.max(0, now.getValue()[1] - then[1]);
        }
    }

    long cpuNanos() {
        return cpuNanos;
    }

    long allocatedBytes() {
        return allocatedBytes;
    }

    /** Carrier thread id -> {cpu nanos, allocated bytes} now. */
    private static Map<Long, long[]> sample() {
        Map<Long, long[]> usage = new HashMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (!thread.getClass().getName().equals(CARRIER_CLASS)) {
                continue;
            }
            long id = thread.threadId();
            long cpu = THREADS.isThreadCpuTimeSupported() ? THREADS.getThreadCpuTime(id) : 0;
            long allocated = THREADS.getThreadAllocatedBytes(id);
            if (cpu >= 0 && allocated >= 0) {
                usage.put(id, new long[] {cpu, allocated});
            }
        }
        return usage;
    }
}
