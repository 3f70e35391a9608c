package io.selcc.cli.micro;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.RunSettings;

/**
 * Validated parameters of one micro-benchmark run.
 *
 * @param gcls GCLs allocated in total
 * @param readRatio percent of operations that read (ignored on nodes when {@code writerNodes > 0})
 * @param sharing percent of GCLs every node may access
 * @param theta Zipf skew, 0 = uniform
 * @param locality percent chance an operation reuses the thread's previous GCL
 * @param writerNodes when > 0, nodes below it only write and the others only read
 * @param inFlight operations in flight per thread: above 1, each thread is that many virtual-thread workers
 *                 sharing the carriers (a worker waiting on a round trip lets another run)
 */
record MicroConfig(ClusterSettings cluster, RunSettings run, int gcls, int readRatio, int sharing, double theta,
                   int locality, int writerNodes, int inFlight) {
    /** Cache frames per node without {@code --cache}: a quarter of all GCLs. */
    static final int DEFAULT_CACHE_PERCENT = 25;
    /** GCLs a compute node takes from a memory node per allocation round trip (set on the builder). */
    static final int ALLOCATION_CHUNK = 64;
    /** GCL-sized regions a memory node keeps from the allocator: its bump word, and on node 0 the catalog root. */
    static final int RESERVED_GCLS = 2;
    /** Head room per memory node beyond the GCLs themselves. */
    static final long MEMORY_SLACK_BYTES = 4L << 20;
    private static final int PERCENT = 100;
    private static final int WORD = 8;

    /** The same run with other cluster settings (a process's place in a cluster of processes). */
    MicroConfig withCluster(ClusterSettings settings) {
        return new MicroConfig(settings, run, gcls, readRatio, sharing, theta, locality, writerNodes, inFlight);
    }

    static long defaultCacheFrames(int gcls) {
        return Math.ceilDiv((long) Math.max(0, gcls) * DEFAULT_CACHE_PERCENT, PERCENT);
    }

    /** Workers per compute node: threads x operations in flight per thread. */
    int workersPerNode() {
        return cluster.threads() * inFlight;
    }

    /** Read percentage of compute node {@code node}'s threads. */
    int readPercent(int node) {
        if (writerNodes == 0) {
            return readRatio;
        }
        return node < writerNodes ? 0 : PERCENT;
    }

    /**
     * Bytes per memory node: its share of the GCLs, plus the regions the allocator reserves, plus one
     * partly used allocation chunk per compute node, plus slack; a multiple of 8.
     */
    long memoryPerNode() {
        long gclSize = cluster.gclSize();
        long share = Math.ceilDiv((long) gcls, cluster.memoryNodes()) * gclSize;
        long chunks = (long) cluster.computeNodes() * ALLOCATION_CHUNK * gclSize;
        long bytes = share + RESERVED_GCLS * gclSize + chunks + MEMORY_SLACK_BYTES;
        return Math.ceilDiv(bytes, WORD) * WORD;
    }
}
