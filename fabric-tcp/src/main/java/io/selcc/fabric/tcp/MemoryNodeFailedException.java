package io.selcc.fabric.tcp;

/**
 * A memory node's process is gone or stopped answering. Its memory is lost with it: nothing a compute
 * node does brings it back, so the run ends with this error.
 */
public final class MemoryNodeFailedException extends RuntimeException {
    private final int memoryNode;

    public MemoryNodeFailedException(int memoryNode, String message) {
        super(message);
        this.memoryNode = memoryNode;
    }

    public int memoryNode() {
        return memoryNode;
    }
}
