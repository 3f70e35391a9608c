package io.selcc.cli.micro;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Start, stop and failure signals between the driver thread and the workers of one run. */
final class RunControl {
    private final CountDownLatch start = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Read once per operation by every worker; volatile so the stop is seen within one operation. */
    private volatile boolean stop;

    void start() {
        start.countDown();
    }

    void awaitStart() throws InterruptedException {
        start.await();
    }

    boolean stopRequested() {
        return stop;
    }

    /** Stops the run; workers still waiting for the start see the stop at once. */
    void stop() {
        stop = true;
        start.countDown();
        stopped.countDown();
    }

    /** Records the first failure and stops the run. */
    void fail(Throwable t) {
        failure.compareAndSet(null, t);
        stop();
    }

    Throwable failure() {
        return failure.get();
    }

    /** Waits up to {@code nanos}; returns true if the run stopped (a worker failed) meanwhile. */
    boolean awaitStop(long nanos) throws InterruptedException {
        return stopped.await(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }
}
