package io.selcc.fabric;

/**
 * The fabric SPI: passive memory nodes reachable by one-sided verbs, and compute nodes that reach
 * them and each other. Implementations: {@link LocalFabric} (in one JVM); tcp and rdma later.
 */
public interface Fabric extends AutoCloseable {
    /**
     * Compute nodes a fabric serves at most: the cache's latch word has one reader bit per compute node
     * (and a writer tag), in 64 bits.
     */
    int MAX_COMPUTE_NODES = 56;

    int memoryNodeCount();

    /** Bytes in memory node {@code memoryNode}. */
    long memoryNodeCapacity(int memoryNode);

    int computeNodeCount();

    /**
     * The endpoint of compute node {@code computeNode} (0-based); only for a node this process
     * {@linkplain #hosts hosts}.
     */
    FabricEndpoint endpoint(int computeNode);

    /**
     * Whether compute node {@code computeNode} runs in this process (has an endpoint here). The in-JVM
     * fabric hosts every node; a network fabric may host some, the others being processes of their own.
     */
    default boolean hosts(int computeNode) {
        return computeNode >= 0 && computeNode < computeNodeCount();
    }

    /**
     * Fences compute node {@code computeNode} off the fabric, as a memory node revoking a dead node's
     * access would: once this returns, none of its verbs takes effect any more (every verb it had in
     * flight has completed), and its verbs and its messages, and messages sent to it, throw
     * {@link NodeFailedException}. Irreversible.
     */
    void fence(int computeNode);

    /** Whether {@code computeNode} has been {@linkplain #fence fenced}. */
    boolean fenced(int computeNode);

    /**
     * From now on tells {@code lost} (once per node, on a thread of the fabric: it must not block) of every
     * compute node hosted by another process that this fabric learns is gone without anyone asking it for
     * anything: a network fabric keeps a connection to each such node, and one that closes (its process
     * died) means the node is gone. {@code null} stops watching (an orderly end: nodes that stop then are
     * not dead). A fabric whose compute nodes all live in this process has nothing to watch.
     */
    default void watchComputeNodes(java.util.function.IntConsumer lost) {
    }

    @Override
    void close();
}
