package io.selcc.cache;

/** The free list of cache frames: a bounded stack under its monitor. */
final class FreeFrames {
    private final CacheFrame[] stack;
    private volatile int size;

    FreeFrames(int capacity) {
        stack = new CacheFrame[capacity];
    }

    int size() {
        return size;
    }

    synchronized void push(CacheFrame frame) {
        stack[size] = frame;
        size = size + 1;
    }

    synchronized CacheFrame pop() {
        int n = size;
        if (n == 0) {
            return null;
        }
        CacheFrame frame = stack[n - 1];
        stack[n - 1] = null;
        size = n - 1;
        return frame;
    }
}
