package io.selcc.cache;

/**
 * The repair of a crashed compute node failed, so its lines will never be freed: a survivor that needs one
 * of them cannot go on (a fatal condition for its work). A type of its own so that a caller (the command
 * line) tells it from other failures without reading the message.
 */
public final class RepairFailedException extends IllegalStateException {
    private final int crashedNode;

    public RepairFailedException(int crashedNode, String reason, Throwable cause) {
        super("the repair of crashed compute node " + crashedNode + " failed: " + reason, cause);
        this.crashedNode = crashedNode;
    }

    /** The compute node whose repair failed. */
    public int crashedNode() {
        return crashedNode;
    }
}
