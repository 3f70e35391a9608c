package io.selcc.fabric;

/**
 * A compute node has been fenced off the fabric ({@link Fabric#fence}): thrown to the fenced node's
 * own threads on their next verb or message, and to any node that sends it a message. A fault, not a
 * bug: the layers above turn it into an aborted transaction (a survivor) or a stopped thread (the
 * fenced node itself).
 */
public final class NodeFailedException extends RuntimeException {
    private final int node;

    public NodeFailedException(int node, String message) {
        super(message);
        this.node = node;
    }

    /** The compute node that failed. */
    public int node() {
        return node;
    }
}
