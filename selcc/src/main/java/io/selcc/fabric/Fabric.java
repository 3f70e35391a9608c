package io.selcc.fabric;

/**
 * The fabric SPI: passive memory nodes reachable by one-sided verbs, and compute nodes that reach
 * them and each other. Implementations: {@link LocalFabric} (in one JVM); tcp and rdma later.
 */
public interface Fabric extends AutoCloseable {
    int memoryNodeCount();

    /** Bytes in memory node {@code memoryNode}. */
    long memoryNodeCapacity(int memoryNode);

    int computeNodeCount();

    /** The endpoint of compute node {@code computeNode} (0-based). */
    FabricEndpoint endpoint(int computeNode);

    @Override
    void close();
}
