package io.selcc.cli;

import io.selcc.cache.AccessMode;
import io.selcc.cache.SelccCluster;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.time.Duration;

/**
 * Flags that shape the simulated cluster; a mixin for every subcommand that builds one. Validated once
 * into {@link ClusterSettings}, which maps them onto {@link io.selcc.cache.SelccCluster.Builder}.
 */
public final class ClusterOptions {
    /**
     * Frames each front-end thread may need at once: the one it holds plus one being installed. Fewer
     * and a node can run out of unlatched frames to evict.
     */
    public static final int MIN_CACHE_FRAMES_PER_THREAD = 2;

    @Option(names = "--access", paramLabel = "selcc|sel", defaultValue = "selcc",
        converter = Converters.AccessModeConverter.class,
        description = "Access mode: selcc (coherent cache) or sel (no cache). Default: ${DEFAULT-VALUE}.")
    private AccessMode access;

    @Option(names = "--fabric", paramLabel = "local|tcp", defaultValue = "local",
        converter = Converters.FabricConverter.class,
        description = "local: every node in this process, verbs and messages in memory; tcp: each memory node a"
            + " process of its own on localhost (started and stopped by this command), reached over TCP; micro and"
            + " tpcc run also run compute nodes 1..N-1 as processes of their own (tpcc run keeps them in this one"
            + " with --mode partitioned, --data-dir or --crash-node, tpcc load and check always do), every node"
            + " talking over TCP. Default: ${DEFAULT-VALUE}.")
    private ClusterSettings.FabricChoice fabric;

    @Option(names = "--cluster", paramLabel = "FILE",
        description = "Run as one compute node (--node) of a cluster of processes: FILE lists memory.N=host:port and"
            + " compute.N=host:port, ids from 0 without gaps. Memory nodes must be running (selcc memory-node,"
            + " started afresh for each command); node 0 coordinates and reports. micro and tpcc load, run and"
            + " check; not with --data-dir, and tpcc run not with --mode partitioned or --crash-node (kill a"
            + " compute node's process instead); a tpcc run with a log (--wal) needs --log-dir.")
    private java.nio.file.Path clusterFile;

    @Option(names = "--node", paramLabel = "ID", description = "With --cluster: which compute node this process is.")
    private Integer node;

    @Option(names = "--compute-nodes", paramLabel = "N", defaultValue = "2",
        description = "Compute nodes (with --cluster: the file's). Default: ${DEFAULT-VALUE}.")
    private int computeNodes;

    @Option(names = "--memory-nodes", paramLabel = "N", defaultValue = "1",
        description = "Memory nodes (with --cluster: the file's). Default: ${DEFAULT-VALUE}.")
    private int memoryNodes;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "1",
        description = "Worker threads per compute node (micro; the loaders of tpcc load and check; tpcc run refuses it"
            + " and places its terminals with --terminals instead). Default: ${DEFAULT-VALUE}.")
    private int threads;

    @Option(names = "--gcl-size", paramLabel = "BYTES", defaultValue = "2048",
        description = "GCL size in bytes, a power of two in [512, 65536]. Default: ${DEFAULT-VALUE}.")
    private int gclSize;

    @Option(names = "--cache", paramLabel = "FRAMES|SIZE", converter = Converters.CacheSizeConverter.class,
        description = "Cache per compute node: frames (25000) or bytes with a unit (64MB, 64MiB, 1GB, 512KB)."
            + " Default: micro 25%% of --gcls; tpcc 40960 frames per warehouse (at least 16384), tpcc load and"
            + " check at least 1024 per --threads loader, tpcc run at least 1024 per terminal of the busiest"
            + " compute node.")
    private CacheSize cache;

    @Option(names = "--rtt", paramLabel = "DURATION", defaultValue = "0", converter = Converters.DurationConverter.class,
        description = "Simulated round-trip time (2us, 500ns); 0 = no latency model; not with --fabric tcp or"
            + " --cluster, whose network is real. Default: ${DEFAULT-VALUE}.")
    private Duration rtt;

    @Option(names = "--gbps", paramLabel = "GBPS", defaultValue = "0",
        description = "Simulated bandwidth in Gbit/s; 0 = unlimited; not with --fabric tcp or --cluster."
            + " Default: ${DEFAULT-VALUE}.")
    private double gbps;

    @Option(names = "--fairness", paramLabel = "on|off", defaultValue = "on", arity = "1",
        converter = Converters.OnOffConverter.class,
        description = "Fairness mechanisms of paper 5.3 (SELCC mode). Default: ${DEFAULT-VALUE}.")
    private boolean fairness;

    public int computeNodes() {
        return computeNodes;
    }

    public int threads() {
        return threads;
    }

    /**
     * Validates the flags.
     *
     * @param cl the command, for error messages
     * @param defaultCacheFrames frames per node when {@code --cache} is absent (raised to the minimum)
     * @throws CommandLine.ParameterException naming the flag and value on bad input
     */
    private static void requireNo(String problem, CommandLine cl, String flag, Object value) {
        Flags.require(problem == null, cl, flag, value, problem);
    }

    public ClusterSettings settings(CommandLine cl, long defaultCacheFrames) {
        // The cluster's rules, named by its builder's checks; here each is mapped to its flag.
        requireNo(SelccCluster.computeNodesProblem(computeNodes), cl, "--compute-nodes", computeNodes);
        requireNo(SelccCluster.memoryNodesProblem(memoryNodes), cl, "--memory-nodes", memoryNodes);
        Flags.require(threads >= 1, cl, "--threads", threads, "must be >= 1");
        requireNo(SelccCluster.gclSizeProblem(gclSize), cl, "--gcl-size", gclSize);
        Flags.require(Double.isFinite(gbps) && gbps >= 0, cl, "--gbps", gbps, "must be a number >= 0; 0 = unlimited");
        long minFrames = (long) MIN_CACHE_FRAMES_PER_THREAD * threads;
        long frames;
        if (cache == null) {
            frames = Math.max(defaultCacheFrames, minFrames);
        } else {
            frames = cache.frames(gclSize);
            Flags.require(frames >= minFrames, cl, "--cache", cache, "holds " + frames + " frames of " + gclSize
                + " B; needs at least " + MIN_CACHE_FRAMES_PER_THREAD + " per thread = " + minFrames);
        }
        Flags.require(frames <= Integer.MAX_VALUE, cl, "--cache", cache != null ? cache : frames,
            "at most " + Integer.MAX_VALUE + " frames");
        Flags.require(fabric == ClusterSettings.FabricChoice.LOCAL || (rtt.isZero() && gbps == 0), cl, "--fabric", "tcp",
            "the latency model (--rtt, --gbps) simulates a network; with tcp the network is real");
        ClusterSettings settings = new ClusterSettings(access, computeNodes, memoryNodes, threads, gclSize, (int) frames,
            rtt.toNanos(), gbps, fairness, fabric, null, -1);
        if (clusterFile == null) {
            Flags.require(node == null, cl, "--node", node, "only with --cluster");
            return settings;
        }
        io.selcc.fabric.tcp.ClusterMap map;
        try {
            map = io.selcc.fabric.tcp.ClusterMap.load(clusterFile);
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--cluster", clusterFile, e.getMessage());
        }
        Flags.require(node != null, cl, "--cluster", clusterFile, "needs --node ID: which compute node this process is");
        Flags.require(node >= 0 && node < map.computeNodes().size(), cl, "--node", node,
            "the cluster file lists compute nodes 0-" + (map.computeNodes().size() - 1));
        Flags.require(!cl.getParseResult().hasMatchedOption("--fabric") || fabric == ClusterSettings.FabricChoice.TCP, cl,
            "--fabric", fabric.label(), "a cluster of processes talks over tcp");
        Flags.require(!cl.getParseResult().hasMatchedOption("--compute-nodes") || computeNodes == map.computeNodes().size(),
            cl, "--compute-nodes", computeNodes, "the cluster file lists " + map.computeNodes().size());
        Flags.require(!cl.getParseResult().hasMatchedOption("--memory-nodes") || memoryNodes == map.memoryNodes().size(),
            cl, "--memory-nodes", memoryNodes, "the cluster file lists " + map.memoryNodes().size());
        Flags.require(rtt.isZero() && gbps == 0, cl, "--cluster", clusterFile,
            "the latency model (--rtt, --gbps) simulates a network; between processes the network is real");
        return settings.inCluster(map, node);
    }
}
