package io.selcc.cache;

/**
 * Every memory node is out of GCLs: an allocation cannot be served. Fatal for whatever needed the
 * GCL; the layers above turn it into a clean end (a transaction aborts having changed nothing, a
 * benchmark run stops with its results so far) and name the setting that sizes shared memory.
 */
public final class SharedMemoryFullException extends RuntimeException {
    public SharedMemoryFullException(String message) {
        super(message);
    }

    /** The same condition seen from a layer above, which adds what it was doing. */
    public SharedMemoryFullException(String message, SharedMemoryFullException cause) {
        super(message, cause);
    }
}
