package io.selcc.fabric.tcp;

import java.util.concurrent.atomic.LongAdder;

/**
 * Thread hand-offs inside one process of the TCP fabric (issue 27): every time work a round trip needs
 * moves from one thread to another here. The two crossings of the wire (request, reply) are not
 * counted: every round trip has them. Exact once the threads that count are quiescent.
 */
public final class HandOffs {
    private final LongAdder loopTasks = new LongAdder();
    private final LongAdder handlerTasks = new LongAdder();
    private final LongAdder callerWakeUps = new LongAdder();
    private final LongAdder flushes = new LongAdder();

    /** A thread outside an event loop handed it a write to do (a task on the loop, and a wake-up of it). */
    void loopTask() {
        loopTasks.increment();
    }

    /** An event loop handed a received message to a handler thread. */
    void handlerTask() {
        handlerTasks.increment();
    }

    /** An event loop woke the thread waiting for a reply it decoded. */
    void callerWakeUp() {
        callerWakeUps.increment();
    }

    /** A flush: one write to a socket, of one or more frames. */
    void flush() {
        flushes.increment();
    }

    public long loopTasks() {
        return loopTasks.sum();
    }

    public long handlerTasks() {
        return handlerTasks.sum();
    }

    public long callerWakeUps() {
        return callerWakeUps.sum();
    }

    public long flushes() {
        return flushes.sum();
    }

    /** Hand-offs between threads of this process: loop tasks, handler tasks and caller wake-ups. */
    public long total() {
        return loopTasks() + handlerTasks() + callerWakeUps();
    }

    @Override
    public String toString() {
        return "loopTasks=" + loopTasks() + " handlerTasks=" + handlerTasks() + " callerWakeUps=" + callerWakeUps()
            + " flushes=" + flushes();
    }
}
