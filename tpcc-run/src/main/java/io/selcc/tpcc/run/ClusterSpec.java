package io.selcc.tpcc.run;

import io.selcc.cache.AccessMode;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.Fabric;
import io.selcc.fabric.LatencyModel;

/**
 * The cluster a run builds: its nodes, the cache, the latency model, and where the nodes run.
 *
 * @param loaderThreads threads per compute node that load the population (the run's terminals are placed
 *                      by {@link RunSpec#terminalsPerWarehouse})
 * @param cacheFrames   frames per compute node's cache; 0: the default for the warehouses, raised to what
 *                      the busiest node's terminals need
 * @param rttNanos      simulated round trip, 0 = none
 * @param gbps          simulated bandwidth, 0 = unlimited
 * @param fabric        where the nodes run: {@link Placement#inProcess()} for every node in this JVM
 */
public record ClusterSpec(AccessMode access, int computeNodes, int memoryNodes, int loaderThreads, int gclSize,
                          int cacheFrames, long rttNanos, double gbps, boolean fairness, Placement fabric) {

    /**
     * Where the nodes run. {@code source} opens the fabric to memory nodes elsewhere (null: an in-JVM
     * fabric); {@code node} is the compute node this process is when each compute node is a process of
     * its own (-1: this process hosts every compute node).
     *
     * @param label     how reports name the fabric ({@code local}, {@code tcp})
     * @param processes the processes taking part in the run, this one included
     */
    public record Placement(String label, int processes, int node, FabricSource source) {
        /** Every node in this JVM, verbs and messages in memory. */
        public static Placement inProcess() {
            return new Placement("local", 1, -1, null);
        }

        /** Whether each compute node is a process of its own, this process being {@link #node}. */
        public boolean separateProcesses() {
            return node >= 0;
        }
    }

    /** Opens the fabric of a run whose memory nodes live elsewhere. */
    @FunctionalInterface
    public interface FabricSource {
        /** A fabric to the run's memory nodes, which hold {@code bytesPerMemoryNode} each. */
        Fabric open(long bytesPerMemoryNode);
    }

    /** {@code computeNodes} compute nodes and one memory node in this JVM, SELCC's cache sized by default. */
    public static ClusterSpec inProcess(int computeNodes) {
        return new ClusterSpec(AccessMode.SELCC, computeNodes, 1, 1, 2048, 0, 0, 0, true, Placement.inProcess());
    }

    /** These settings with {@code frames} cache frames per compute node. */
    public ClusterSpec withCacheFrames(int frames) {
        return new ClusterSpec(access, computeNodes, memoryNodes, loaderThreads, gclSize, frames, rttNanos, gbps,
            fairness, fabric);
    }

    /** These settings with the nodes placed as {@code fabric} says. */
    public ClusterSpec withFabric(Placement fabric) {
        return new ClusterSpec(access, computeNodes, memoryNodes, loaderThreads, gclSize, cacheFrames, rttNanos, gbps,
            fairness, fabric);
    }

    /** These settings with {@code access} (SELCC's cache, or SEL without one). */
    public ClusterSpec withAccess(AccessMode access) {
        return new ClusterSpec(access, computeNodes, memoryNodes, loaderThreads, gclSize, cacheFrames, rttNanos, gbps,
            fairness, fabric);
    }

    public LatencyModel latency() {
        return rttNanos == 0 && gbps == 0 ? LatencyModel.OFF : LatencyModel.of(rttNanos, gbps);
    }

    /** Applies these settings, with {@code threadsPerNode} and {@code frames}, to a database's cluster. */
    void apply(SelccCluster.Builder builder, int threadsPerNode, int frames, long bytesPerMemoryNode) {
        builder.accessMode(access)
            .computeNodes(computeNodes)
            .memoryNodes(memoryNodes)
            .threadsPerNode(threadsPerNode)
            .gclSize(gclSize)
            .cacheFrames(frames)
            .latency(latency())
            .fairness(fairness)
            .memoryPerNode(bytesPerMemoryNode);
        if (fabric.source() != null) {
            builder.fabric(fabric.source().open(bytesPerMemoryNode));
        }
    }
}
