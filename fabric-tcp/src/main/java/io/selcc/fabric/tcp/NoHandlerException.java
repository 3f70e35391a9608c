package io.selcc.fabric.tcp;

/**
 * A compute node has no handler for a message's kind: it is still starting (it registers its handlers
 * after it connects), or it runs a program that does not take that kind.
 */
public final class NoHandlerException extends IllegalStateException {
    private final int node;

    public NoHandlerException(int node, String message) {
        super(message);
        this.node = node;
    }

    /** The compute node that had no handler. */
    public int node() {
        return node;
    }
}
