package io.selcc.cli;

import io.selcc.cache.AccessMode;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.LatencyModel;

/**
 * Validated cluster flags (see {@link ClusterOptions}).
 *
 * @param threads worker threads per compute node
 * @param cacheFrames cache frames per compute node
 * @param rttNanos simulated round trip, 0 = none
 * @param gbps simulated bandwidth, 0 = unlimited
 */
public record ClusterSettings(
    AccessMode access,
    int computeNodes,
    int memoryNodes,
    int threads,
    int gclSize,
    int cacheFrames,
    long rttNanos,
    double gbps,
    boolean fairness,
    FabricChoice fabric,
    io.selcc.fabric.tcp.ClusterMap clusterMap,
    int node) {

    /** Where the nodes run and how they reach each other (--fabric). */
    public enum FabricChoice {
        /** Every node in this JVM (LocalFabric). */
        LOCAL,
        /** Memory nodes as processes on localhost, over TCP (TcpFabric); compute nodes' messages over TCP. */
        TCP;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The settings of a local fabric. */
    public ClusterSettings(AccessMode access, int computeNodes, int memoryNodes, int threads, int gclSize,
                           int cacheFrames, long rttNanos, double gbps, boolean fairness) {
        this(access, computeNodes, memoryNodes, threads, gclSize, cacheFrames, rttNanos, gbps, fairness, FabricChoice.LOCAL,
            null, -1);
    }

    /** These settings as compute node {@code node} of the processes {@code map} lists. */
    public ClusterSettings inCluster(io.selcc.fabric.tcp.ClusterMap map, int node) {
        return new ClusterSettings(access, map.computeNodes().size(), map.memoryNodes().size(), threads, gclSize,
            cacheFrames, rttNanos, gbps, fairness, FabricChoice.TCP, map, node);
    }

    /** Whether each compute node is a process of its own ({@code --cluster}, or micro's {@code --fabric tcp}). */
    public boolean separateProcesses() {
        return clusterMap != null;
    }

    /**
     * Processes taking part in a run: every compute and memory node with separate processes; this one
     * plus each memory node's with {@code --fabric tcp} and the compute nodes here; 1 with local.
     */
    public int processes() {
        if (clusterMap != null) {
            return computeNodes + memoryNodes;
        }
        return fabric == FabricChoice.TCP ? 1 + memoryNodes : 1;
    }

    /**
     * With {@code --fabric tcp}: starts the memory-node processes ({@code bytesPerMemoryNode} each) and
     * gives {@code builder} a TCP fabric to them, which stops them when the cluster closes it. With
     * local: nothing (the builder makes its own in-JVM fabric).
     */
    public void applyFabric(SelccCluster.Builder builder, long bytesPerMemoryNode) {
        io.selcc.tpcc.run.ClusterSpec.FabricSource source = fabricSource();
        if (source != null) {
            builder.fabric(source.open(bytesPerMemoryNode));
        }
    }

    /** What opens the fabric of these settings: null for local (the cluster makes its own in-JVM fabric). */
    private io.selcc.tpcc.run.ClusterSpec.FabricSource fabricSource() {
        if (clusterMap != null) {
            return bytes -> io.selcc.fabric.tcp.TcpFabric.connect(clusterMap, java.util.Set.of(node), FabricLauncher.FABRIC_TIMEOUT);
        }
        return fabric == FabricChoice.TCP ? bytes -> FabricLauncher.launch(this, bytes) : null;
    }

    /**
     * These settings as a TPC-C run's cluster; {@code cacheGiven}: the cache is {@link #cacheFrames} as
     * given, else the run's default (which grows with the terminals).
     */
    public io.selcc.tpcc.run.ClusterSpec toSpec(boolean cacheGiven) {
        return new io.selcc.tpcc.run.ClusterSpec(access, computeNodes, memoryNodes, threads, gclSize,
            cacheGiven ? cacheFrames : 0, rttNanos, gbps, fairness,
            new io.selcc.tpcc.run.ClusterSpec.Placement(fabric.label(), processes(), node, fabricSource()));
    }

    public LatencyModel latency() {
        return rttNanos == 0 && gbps == 0 ? LatencyModel.OFF : LatencyModel.of(rttNanos, gbps);
    }

    /** These settings with {@code threadsPerNode} threads per compute node (TPC-C: its busiest node's terminals) and {@code frames} per cache. */
    public ClusterSettings withThreads(int threadsPerNode, int frames) {
        return new ClusterSettings(access, computeNodes, memoryNodes, threadsPerNode, gclSize, frames, rttNanos, gbps,
            fairness, fabric, clusterMap, node);
    }

    /** Worker threads over all compute nodes. */
    public int totalThreads() {
        return computeNodes * threads;
    }

    /**
     * True when the latency model spins (it does not sleep) on more threads than there are cores, so
     * throughput measures CPU contention rather than the simulated network.
     */
    public boolean latencyIsCpuBound() {
        return !latency().isOff() && totalThreads() > Runtime.getRuntime().availableProcessors();
    }

    /** A builder with every flag applied; the benchmark adds what it derives (memory per node). */
    public SelccCluster.Builder builder() {
        return SelccCluster.builder()
            .accessMode(access)
            .computeNodes(computeNodes)
            .memoryNodes(memoryNodes)
            .threadsPerNode(threads)
            .gclSize(gclSize)
            .cacheFrames(cacheFrames)
            .latency(latency())
            .fairness(fairness);
    }
}
