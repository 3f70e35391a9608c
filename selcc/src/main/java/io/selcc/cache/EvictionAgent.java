package io.selcc.cache;

import io.selcc.threads.EngineThread;

/**
 * A compute node's eviction worker as an agent: its duty cycle ({@link Evictor#runWorker})
 * keeps the free list above its low-water mark; the owner (the cluster) starts it once the cluster is
 * built and stops it, waiting for it to end, before the node closes.
 */
final class EvictionAgent implements AutoCloseable {
    private final SelccNode node;
    private Thread thread;

    EvictionAgent(SelccNode node) {
        this.node = node;
    }

    /** Starts the duty cycle on a daemon thread of its own. */
    synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("eviction agent of node " + node.nodeId() + " started already");
        }
        thread = EngineThread.start("selcc-evict-" + node.nodeId(), true, node.evictor::runWorker);
    }

    /** Stops the duty cycle and waits until it ended; nothing if it never started. */
    @Override
    public synchronized void close() {
        if (thread == null) {
            return;
        }
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
