package io.selcc.fabric;

/**
 * A compute node has been fenced off the fabric ({@link Fabric#fence}): thrown to the fenced node's
 * own threads on their next verb or message, and to any node that sends it a message. A network fabric
 * also throws it for a message whose connection was lost ({@link #connectionLost()}), since the sender
 * cannot tell at that point whether the node behind it still lives. A fault, not a
 * bug: the layers above turn it into an aborted transaction (a survivor) or a stopped thread (the
 * fenced node itself).
 */
public final class NodeFailedException extends RuntimeException {
    private final int node;
    private final boolean connectionLost;

    public NodeFailedException(int node, String message) {
        this(node, message, false);
    }

    /**
     * @param connectionLost the call failed because its connection to {@code node} was lost, which says
     *                       nothing about the node itself (see {@link FabricEndpoint#reconnect})
     */
    public NodeFailedException(int node, String message, boolean connectionLost) {
        super(message);
        this.node = node;
        this.connectionLost = connectionLost;
    }

    /**
     * Whether the call failed with the connection it went on (the node may well be alive), rather than
     * because the node is fenced, silent or unreachable.
     */
    public boolean connectionLost() {
        return connectionLost;
    }

    /** The compute node that failed. */
    public int node() {
        return node;
    }
}
