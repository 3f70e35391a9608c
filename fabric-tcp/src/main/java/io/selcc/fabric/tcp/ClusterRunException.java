package io.selcc.fabric.tcp;

/**
 * A run whose compute nodes are processes ({@link ClusterRun}) could not go on together: a process did not
 * join in time, failed before it answered, or compute node 0 went away. An expected condition of a
 * distributed run, reported in one line naming the node.
 */
public final class ClusterRunException extends RuntimeException {
    public ClusterRunException(String message, Throwable cause) {
        super(message, cause);
    }

    public ClusterRunException(String message) {
        super(message);
    }
}
