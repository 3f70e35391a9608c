package io.selcc.fabric.tcp;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** Runs its tasks one at a time, in submission order, on a shared executor's threads. */
final class SerialLane implements Executor {
    private final Executor threads;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    SerialLane(Executor threads) {
        this.threads = threads;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (queue) {
            queue.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        threads.execute(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (Throwable t) { // a task's failure must not stop the lane: later requests still need answers
                System.getLogger(SerialLane.class.getName()).log(System.Logger.Level.ERROR, "a message handler failed", t);
            }
        }
    }
}
