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
            next.run(); // a task's failure is its own: handle() logs and answers it
        }
    }
}
