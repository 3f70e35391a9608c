package io.selcc.cache;

import io.selcc.fabric.CounterSnapshot;
import io.selcc.fabric.Fabric;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.cache.GclLayout;
import io.selcc.fabric.GlobalAddress;
import io.selcc.cache.LatchWord;
import io.selcc.fabric.LatencyModel;
import io.selcc.fabric.LocalFabric;
import io.selcc.fabric.VerbBatch;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Compute nodes sharing memory nodes through one fabric: the composition root of the selcc module.
 * It builds the fabric (in-JVM by default), one {@link ComputeNode} per compute node in the chosen
 * {@link AccessMode}, and starts each SELCC node's eviction worker thread ({@code selcc-evict-N}).
 *
 * <pre>{@code
 * try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).build()) {
 *     ComputeNode a = cluster.node(0), b = cluster.node(1);
 *     long gcl = a.allocate();
 *     GclHandle h = a.xLock(gcl); h.putLong(0, 42); a.unlock(h);
 *     h = b.sLock(gcl); assert h.getLong(0) == 42; b.unlock(h);
 * }
 * }</pre>
 */
public final class SelccCluster implements AutoCloseable {
    private final Fabric fabric;
    private final Settings settings;
    private final AbstractComputeNode[] nodes;
    /** Each cached node's eviction worker: started once the cluster is built, stopped when it closes. */
    private final List<EvictionAgent> agents = new ArrayList<>();
    private volatile boolean closed;

    private SelccCluster(Fabric fabric, Settings settings) {
        this.fabric = fabric;
        this.settings = settings;
        long[] capacities = new long[fabric.memoryNodeCount()];
        for (int i = 0; i < capacities.length; i++) {
            capacities[i] = fabric.memoryNodeCapacity(i);
        }
        this.nodes = new AbstractComputeNode[fabric.computeNodeCount()];
        for (int i = 0; i < nodes.length; i++) {
            if (!fabric.hosts(i)) {
                continue; // a compute node in another process: its own cluster object runs it there
            }
            nodes[i] = settings.accessMode() == AccessMode.SELCC
                ? new SelccNode(settings, fabric.endpoint(i), capacities)
                : new SelNode(settings, fabric.endpoint(i), capacities);
        }
        for (AbstractComputeNode node : hosted()) {
            node.peers = nodes;
            node.fenceFailedPeer = this::fenceFailedPeer;
            node.remotePeerCrashed = fabric::fenced; // another process's node: gone once fenced (see crashed)
        }
        for (AbstractComputeNode node : hosted()) {
            if (node instanceof SelccNode selcc) {
                agents.add(new EvictionAgent(selcc));
            }
        }
    }

    /** Starts every node's agents (their eviction workers); {@link Builder#build} calls it once. */
    private void startAgents() {
        for (EvictionAgent agent : agents) {
            agent.start();
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public ComputeNode node(int computeNode) {
        return nodes[checkNode(computeNode)];
    }

    /** Whether compute node {@code computeNode} runs in this process (see {@link Fabric#hosts}). */
    public boolean hosts(int computeNode) {
        return computeNode >= 0 && computeNode < nodes.length && nodes[computeNode] != null;
    }

    /** The compute nodes this process runs, in id order. */
    private List<AbstractComputeNode> hosted() {
        List<AbstractComputeNode> list = new ArrayList<>(nodes.length);
        for (AbstractComputeNode node : nodes) {
            if (node != null) {
                list.add(node);
            }
        }
        return list;
    }

    public int computeNodeCount() {
        return nodes.length;
    }

    public AccessMode accessMode() {
        return settings.accessMode();
    }

    public LatencyModel latency() {
        return settings.latency();
    }

    public int cacheFrames() {
        return settings.cacheFrames();
    }

    public Fabric fabric() {
        return fabric;
    }

    /** Counters of one compute node since its last reset. */
    public CounterSnapshot counters(int computeNode) {
        return node(computeNode).counters().snapshot();
    }

    /**
     * GCLs in use across the cluster: taken from the memory nodes, less what compute nodes hold idle
     * (chunk remainders, freed GCLs). Times the GCL size, the shared memory the data occupies. (Nodes in
     * other processes count their idle GCLs as in use here.)
     */
    public long gclsInUse() {
        long idle = 0;
        for (AbstractComputeNode node : hosted()) {
            idle += node.idleGcls();
        }
        return nodes[liveNode()].takenGcls() - idle;
    }

    /** Counters summed over the compute nodes this process runs (all of them on the in-JVM fabric). */
    public CounterSnapshot totalCounters() {
        CounterSnapshot sum = CounterSnapshot.zero();
        for (AbstractComputeNode node : hosted()) {
            sum = sum.plus(node.counters().snapshot());
        }
        return sum;
    }

    public void resetCounters() {
        for (AbstractComputeNode node : hosted()) {
            node.counters().reset();
        }
    }

    /**
     * Evicts every cached frame no thread holds, on every node: dirty data reaches memory and global
     * latches are released. Call on a quiescent cluster (for example before checking memory contents).
     */
    public void flushCaches() {
        for (AbstractComputeNode node : hosted()) {
            if (node instanceof SelccNode selcc && !selcc.crashed) { // a crashed cache is lost, not written back
                selcc.flush();
            }
        }
    }

    /**
     * The global latch words that are not FREE, over every GCL handed out so far on every memory node
     * (the catalog root included), as "address=latch word" strings; at most {@code limit} of them.
     * On a quiescent cluster after {@link #flushCaches()} there must be none: a reader bit or writer
     * tag left behind is a leak. A check for tests and tools; it reads each word with an FAA of 0
     * through compute node 0's endpoint (its counters count those round trips).
     */
    public List<String> busyLatchWords(int limit) {
        FabricEndpoint probe = fabric.endpoint(liveNode());
        int gclSize = settings.gclSize();
        List<String> busy = new ArrayList<>();
        for (int memoryNode = 0; memoryNode < fabric.memoryNodeCount(); memoryNode++) {
            long handedOut = probe.remoteFaa(GlobalAddress.of(memoryNode, 0), 0);
            long capacity = fabric.memoryNodeCapacity(memoryNode);
            long first = gclSize; // offset 0 holds the bump word; node 0's next GCL is the catalog root
            long end = Math.min(capacity - capacity % gclSize, gclSize * (memoryNode == 0 ? 2L : 1L) + handedOut);
            for (long offset = first; offset + gclSize <= end && busy.size() < limit; offset += gclSize) {
                long address = GlobalAddress.of(memoryNode, offset);
                long word = probe.remoteFaa(address, 0);
                if (word != LatchWord.FREE) {
                    // With the raw word: a bit the decoded form does not show is what a flake left behind.
                    busy.add(GlobalAddress.toString(address) + "=" + LatchWord.toString(word) + " (0x"
                        + Long.toHexString(word) + ")");
                }
            }
        }
        return busy;
    }

    /**
     * Crashes compute node {@code computeNode} abruptly, for fault tests: it is fenced off the fabric
     * (none of its verbs lands from now on, see {@link Fabric#fence}), its cache is given up unwritten,
     * its latch bits and writer tags stay in the memory nodes, and every later call on it throws
     * {@link io.selcc.fabric.NodeFailedException}, so its threads stop at their next latch. Survivors that
     * ask it for a line wait for it (see {@link ComputeNode}); {@link #claimLinesOf} then lists what it held
     * for the repair to adopt.
     *
     * @throws IllegalStateException in SEL mode: its latch words count readers, so a dead node's shared
     *                               latches could not be told apart from the survivors'
     */
    public void crash(int computeNode) {
        if (settings.accessMode() != AccessMode.SELCC) {
            throw new IllegalStateException("a crashed compute node can be recovered from only in SELCC mode (SEL latch"
                + " words count readers, not name them): accessMode=" + settings.accessMode());
        }
        stop(computeNode);
    }

    /**
     * Stops compute node {@code computeNode} of this process where it stands, as {@link #crash} does, in
     * either access mode, without the promise that it can be repaired: for a node that met a fault it
     * cannot take back. Its latches stay in memory (in SEL mode for good: nobody can tell its reader
     * bits from others').
     */
    public void stop(int computeNode) {
        AbstractComputeNode node = nodes[checkNode(computeNode)];
        node.crashed = true;
        fabric.fence(computeNode);
        if (node instanceof SelccNode selcc) {
            selcc.stopEvictionWorker();
        }
    }

    /**
     * Whether {@link #crash} was called for {@code computeNode}; for a node in another process, whether
     * the fabric fenced it.
     */
    public boolean crashed(int computeNode) {
        if (computeNode >= 0 && computeNode < nodes.length && nodes[computeNode] == null) {
            return fabric.fenced(computeNode);
        }
        return nodes[checkNode(computeNode)].crashed;
    }

    /**
     * A compute node in another process is gone (its connection broke, or it stopped answering): fences
     * it off the fabric, so none of its verbs lands any more even if it still runs, and from then on it
     * counts as {@link #crashed}. Blocks for a round trip to each memory node; idempotent.
     *
     * @throws IllegalArgumentException if the node runs in this process ({@link #crash} is for those)
     */
    public void fenceGone(int computeNode) {
        if (computeNode < 0 || computeNode >= nodes.length || nodes[computeNode] != null) {
            throw new IllegalArgumentException("not a compute node of another process: computeNode=" + computeNode);
        }
        if (!fabric.fenced(computeNode)) {
            fabric.fence(computeNode);
        }
    }

    /**
     * For a node whose request to {@code computeNode} failed (see {@link RemoteAcquire}'s lost grants): fences
     * another process's node (as {@link #fenceGone}); for a node of this process, true only once it crashed,
     * after fencing again, which returns once its verbs in flight are done ({@link #crash} sets the fence flag
     * before it waits for them). True: nothing of the node lands from now on.
     */
    private boolean fenceFailedPeer(int computeNode) {
        if (computeNode < 0 || computeNode >= nodes.length) {
            return false;
        }
        if (nodes[computeNode] == null) {
            fenceGone(computeNode);
            return true;
        }
        if (!nodes[computeNode].crashed) {
            return false;
        }
        fabric.fence(computeNode);
        return true;
    }

    /**
     * Why a cluster cannot have {@code n} compute nodes, or null: one for each reader bit of the latch
     * word. The rules of a cluster's shape are here once; a command line maps them to its flags.
     */
    public static String computeNodesProblem(int n) {
        return n < 1 || n > Fabric.MAX_COMPUTE_NODES
            ? "must be in [1, " + Fabric.MAX_COMPUTE_NODES + "]: the latch word has one reader bit per compute node" : null;
    }

    /** Why a cluster cannot have {@code n} memory nodes (the node's share of a global address), or null. */
    public static String memoryNodesProblem(int n) {
        return n < 1 || n > io.selcc.fabric.GlobalAddress.MAX_MEMORY_NODES
            ? "must be in [1, " + io.selcc.fabric.GlobalAddress.MAX_MEMORY_NODES + "]" : null;
    }

    /** Why {@code bytes} cannot be the GCL size, or null. */
    public static String gclSizeProblem(int bytes) {
        return GclLayout.sizeProblem(bytes);
    }

    /** Latch words read per round trip by {@link #claimLinesOf}. */
    private static final int SCAN_BATCH = 512;

    /**
     * After {@link #crash}: scans every latch word (the paper's section 6.5 scan) through the endpoint of
     * {@code survivor}, removes the crashed node's reader bits, and returns the GCLs it holds exclusive,
     * ascending. Their writer tags stay: a tag of a fenced node is what keeps every survivor off the line
     * (they wait, see {@link ComputeNode}) until the repair adopts it with
     * {@link ComputeNode#adoptCrashedLine}, because memory's copy of such a line is what was last written
     * back, and whatever the crashed cache held on top (its own commits, and others' handed over to it)
     * must be restored first. Safe while survivors run: a reader bit of a fenced node is set by no one.
     */
    public long[] claimLinesOf(int crashedNode, int survivor) {
        if (crashedNode < 0 || crashedNode >= nodes.length) {
            throw new IllegalArgumentException("no such compute node: computeNode=" + crashedNode);
        }
        if (!crashed(crashedNode)) {
            throw new IllegalStateException("compute node " + crashedNode + " has not crashed: its latches are its own");
        }
        if (nodes[checkNode(survivor)].crashed) {
            throw new IllegalArgumentException("the scan must run on a live node: survivor=" + survivor + " crashed");
        }
        FabricEndpoint probe = fabric.endpoint(survivor);
        int gclSize = settings.gclSize();
        long readerBit = LatchWord.readerBit(crashedNode);
        long[] lost = new long[64];
        int lostCount = 0;
        for (int memoryNode = 0; memoryNode < fabric.memoryNodeCount(); memoryNode++) {
            long handedOut = probe.remoteFaa(GlobalAddress.of(memoryNode, 0), 0);
            long capacity = fabric.memoryNodeCapacity(memoryNode);
            long end = Math.min(capacity - capacity % gclSize, gclSize * (memoryNode == 0 ? 2L : 1L) + handedOut);
            // The latch words are read in batches of atomic reads (FAA of 0): one round trip per batch, which
            // over a network fabric is what the scan costs (one per GCL took seconds for a TPC-C warehouse).
            VerbBatch batch = new VerbBatch();
            for (long first = gclSize; first + gclSize <= end; first += (long) SCAN_BATCH * gclSize) {
                batch.clear();
                for (long offset = first; offset + gclSize <= end && batch.size() < SCAN_BATCH; offset += gclSize) {
                    batch.faa(GlobalAddress.of(memoryNode, offset), 0);
                }
                probe.post(batch);
                for (int i = 0; i < batch.size(); i++) {
                    long address = batch.address(i);
                    long word = batch.result(i);
                    if (LatchWord.writer(word) == crashedNode) {
                        if (lostCount == lost.length) {
                            lost = java.util.Arrays.copyOf(lost, 2 * lostCount);
                        }
                        lost[lostCount++] = address;
                    }
                    if ((word & readerBit) != 0) {
                        probe.remoteFaa(address, LatchWord.releaseSharedDelta(crashedNode));
                    }
                }
            }
        }
        return java.util.Arrays.copyOf(lost, lostCount);
    }

    /**
     * Crash repair: reads every GCL handed out so far on every memory node (the data, not the latch word),
     * without a latch, through the endpoint of {@code reader} (a node of this process that has not crashed),
     * many per round trip; hands {@code visitor} each line that {@code wanted} accepts, read again until two
     * reads in a row agree (as {@link ComputeNode#snapshot}) and accepted again. {@code wanted} sees each
     * line's first read, valid only during the call; the visitor's images are its own. For finding what a
     * walk along links would find one round trip per line (a table's pages): over a network fabric the walk
     * took seconds per table, the sweep reads memory at the link's bandwidth.
     */
    public void forEachGclInMemory(int reader, java.util.function.Predicate<GclHandle> wanted,
                                   java.util.function.Consumer<GclHandle> visitor) {
        AbstractComputeNode node = nodes[checkNode(reader)];
        if (node == null || node.crashed) {
            throw new IllegalArgumentException("the sweep must run on a live node of this process: reader=" + reader);
        }
        FabricEndpoint probe = fabric.endpoint(reader);
        int gclSize = settings.gclSize();
        int length = gclSize - GclLayout.COPY_OFFSET;
        int perBatch = Math.max(1, Math.min(SCAN_BATCH, AbstractComputeNode.BATCH_BYTES / gclSize));
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment lines = arena.allocate((long) perBatch * gclSize, Long.BYTES);
            GclHandle view = new GclHandle(node);
            VerbBatch batch = new VerbBatch();
            long[] chosen = new long[perBatch];
            java.lang.foreign.MemorySegment[] firstReads = new java.lang.foreign.MemorySegment[perBatch];
            for (int memoryNode = 0; memoryNode < fabric.memoryNodeCount(); memoryNode++) {
                long handedOut = probe.remoteFaa(GlobalAddress.of(memoryNode, 0), 0);
                long capacity = fabric.memoryNodeCapacity(memoryNode);
                long end = Math.min(capacity - capacity % gclSize, gclSize * (memoryNode == 0 ? 2L : 1L) + handedOut);
                for (long first = gclSize; first + gclSize <= end; first += (long) perBatch * gclSize) {
                    batch.clear();
                    for (long offset = first; offset + gclSize <= end && batch.size() < perBatch; offset += gclSize) {
                        batch.read(GlobalAddress.of(memoryNode, offset) + GclLayout.COPY_OFFSET, lines,
                            (long) batch.size() * gclSize + GclLayout.COPY_OFFSET, length);
                    }
                    probe.post(batch);
                    int count = 0;
                    for (int i = 0; i < batch.size(); i++) {
                        long address = batch.address(i) - GclLayout.COPY_OFFSET;
                        view.bindSnapshot(lines.asSlice((long) i * gclSize, gclSize), address);
                        if (wanted.test(view)) {
                            // This read is the first of the two that must agree (see ComputeNode.snapshot).
                            firstReads[count] = java.lang.foreign.MemorySegment.ofArray(new long[gclSize / Long.BYTES]);
                            java.lang.foreign.MemorySegment.copy(lines, (long) i * gclSize, firstReads[count], 0, gclSize);
                            chosen[count++] = address;
                        }
                    }
                    if (count > 0) {
                        for (GclHandle settled : node.settle(java.util.Arrays.copyOf(chosen, count),
                            java.util.Arrays.copyOf(firstReads, count))) {
                            if (wanted.test(settled)) {
                                visitor.accept(settled);
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Sets what to do when a node learns that a peer it asked for a line is fenced (called on that node's
     * thread, possibly many times per crash; it must not block). One listener: a database on this cluster
     * sets its own (starting the repair), and a later call replaces it.
     */
    public void onPeerFailure(java.util.function.IntConsumer listener) {
        java.util.Objects.requireNonNull(listener, "listener");
        for (AbstractComputeNode node : hosted()) {
            node.peerFailures = listener;
        }
    }

    /** The lowest compute node that has not crashed (a probe for cluster-wide reads). */
    public int liveNode() {
        for (AbstractComputeNode node : hosted()) {
            if (!node.crashed) {
                return node.nodeId();
            }
        }
        throw new IllegalStateException("every compute node has crashed");
    }

    /**
     * The repair of crashed node {@code crashedNode} failed: from now on a survivor that meets one of its
     * lines throws {@link RepairFailedException} with {@code reason} instead of waiting for ever.
     */
    public void repairFailed(int crashedNode, String reason) {
        for (AbstractComputeNode node : hosted()) {
            node.failedRepairs.put(crashedNode, reason);
        }
    }

    private int checkNode(int computeNode) {
        if (computeNode < 0 || computeNode >= nodes.length) {
            throw new IllegalArgumentException("no such compute node: computeNode=" + computeNode
                + " computeNodes=" + nodes.length);
        }
        if (nodes[computeNode] == null) {
            throw new IllegalArgumentException("compute node " + computeNode + " runs in another process");
        }
        return computeNode;
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (EvictionAgent agent : agents) {
            agent.close();
        }
        for (AbstractComputeNode node : hosted()) {
            node.close();
        }
        fabric.close();
    }

    /** Configuration with defaults, validated once in {@link #build()}. */
    public static final class Builder {
        private int computeNodes = 2;
        private int memoryNodes = 1;
        private long memoryPerNode = 64L << 20;
        private int gclSize = 2048;
        private int cacheFrames = 4096;
        private AccessMode accessMode = AccessMode.SELCC;
        private LatencyModel latency = LatencyModel.OFF;
        private LongSupplier clock = System::nanoTime;
        private int shards = 64;
        private int tryLockRetries = 8;
        private int upgradeAttempts = 4;
        private long pendingWaitNanos = 200_000;
        private long backoffConstant = 4;
        private boolean fairness = true;
        private int lease = 256;
        private int threadsPerNode = 1;
        private int starvationPriority = 8;
        private long readerWindowBaseNanos = 10_000;
        private int freeListLowWater = -1;
        private int allocationChunk = 64;
        private Fabric fabric;

        public Builder computeNodes(int n) { this.computeNodes = n; return this; }
        public Builder memoryNodes(int n) { this.memoryNodes = n; return this; }
        /** Bytes per memory node; sizes above 2 GB are fine. */
        public Builder memoryPerNode(long bytes) { this.memoryPerNode = bytes; return this; }
        /** GCL size in bytes: a power of two from 512 to 64 KiB (default 2048). */
        public Builder gclSize(int bytes) { this.gclSize = bytes; return this; }
        /** Cache frames per compute node (SELCC mode). */
        public Builder cacheFrames(int frames) { this.cacheFrames = frames; return this; }
        public Builder accessMode(AccessMode mode) { this.accessMode = mode; return this; }
        public Builder latency(LatencyModel model) { this.latency = model; return this; }
        /** Clock for backoff, reader spin windows and pending waits (nanoseconds). */
        public Builder clock(LongSupplier nanoClock) { this.clock = nanoClock; return this; }
        public Builder shards(int n) { this.shards = n; return this; }
        /** Remote latch retries tryXLock/trySLock make before answering busy. */
        public Builder tryLockRetries(int n) { this.tryLockRetries = n; return this; }
        /** Failed S->X upgrade CASes before falling back to release-then-acquire. */
        public Builder upgradeAttempts(int n) { this.upgradeAttempts = n; return this; }
        /** How long a requester waits on a pending invalidation before it cancels and retries. */
        public Builder pendingWaitNanos(long nanos) { this.pendingWaitNanos = nanos; return this; }
        /** C in the retry interval T = C x RTT / Nr (paper 5.1.2). */
        public Builder backoffConstant(long c) { this.backoffConstant = c; return this; }
        /**
         * Fairness mechanisms of paper 5.3 (pending requests, lease, priority matching, reader spin
         * windows). Off: busy frames drop every invalidation. For experiments only.
         */
        public Builder fairness(boolean on) { this.fairness = on; return this; }
        /** Lease: local waits (Rc/P + Wc) tolerated while a remote request is pending (default 256). */
        public Builder lease(int accesses) { this.lease = accesses; return this; }
        /** P in the lease formula: front-end threads per compute node. */
        public Builder threadsPerNode(int p) { this.threadsPerNode = p; return this; }
        /** Retry count from which a writer counts as starving (reader spin windows, priority matching). */
        public Builder starvationPriority(int retries) { this.starvationPriority = retries; return this; }
        /** Reader window at the starvation threshold; it doubles per further writer retry (5.3.2). */
        public Builder readerWindowBaseNanos(long nanos) { this.readerWindowBaseNanos = nanos; return this; }
        /** Free-list length under which the eviction worker refills, to twice it (default cacheFrames/16 in 1..64, or cacheFrames/64 up to 512 where that is more). */
        public Builder freeListLowWater(int frames) { this.freeListLowWater = frames; return this; }
        /** GCLs taken from a memory node per allocation round trip. */
        public Builder allocationChunk(int gcls) { this.allocationChunk = gcls; return this; }
        /** Use this fabric instead of a new {@link LocalFabric}; the cluster closes it. */
        public Builder fabric(Fabric f) { this.fabric = f; return this; }

        public SelccCluster build() {
            require(gclSizeProblem(gclSize), "gclSize", gclSize);
            require(computeNodesProblem(computeNodes), "computeNodes", computeNodes);
            require(memoryNodesProblem(memoryNodes), "memoryNodes", memoryNodes);
            require(cacheFrames >= 2, "cache must hold at least 2 frames: cacheFrames=" + cacheFrames);
            require(shards >= 1, "shards must be >= 1: shards=" + shards);
            require(tryLockRetries >= 0, "tryLockRetries must be >= 0: tryLockRetries=" + tryLockRetries);
            require(upgradeAttempts >= 1, "upgradeAttempts must be >= 1: upgradeAttempts=" + upgradeAttempts);
            require(pendingWaitNanos >= 0, "pendingWaitNanos must be >= 0: pendingWaitNanos=" + pendingWaitNanos);
            require(backoffConstant >= 0, "backoffConstant must be >= 0: backoffConstant=" + backoffConstant);
            require(lease >= 1, "lease must be >= 1: lease=" + lease);
            require(threadsPerNode >= 1, "threadsPerNode must be >= 1: threadsPerNode=" + threadsPerNode);
            require(starvationPriority >= 1, "starvationPriority must be >= 1: starvationPriority=" + starvationPriority);
            require(readerWindowBaseNanos >= 0, "readerWindowBaseNanos must be >= 0: readerWindowBaseNanos="
                + readerWindowBaseNanos);
            require(allocationChunk >= 1, "allocationChunk must be >= 1: allocationChunk=" + allocationChunk);
            require(memoryPerNode >= 2L * gclSize, "memory per node must hold at least two GCLs: memoryPerNode="
                + memoryPerNode + " gclSize=" + gclSize);
            // A 64th of a large cache (at most 512 frames) and a 16th of a small one (at most 64): see Evictor.runWorker.
            int lowWater = freeListLowWater > 0 ? freeListLowWater
                : Math.max(Math.max(1, Math.min(64, cacheFrames / 16)), Math.min(512, cacheFrames / 64));
            require(lowWater < cacheFrames, "freeListLowWater must be below cacheFrames: freeListLowWater="
                + lowWater + " cacheFrames=" + cacheFrames);
            Fabric f = fabric != null ? fabric : new LocalFabric(memoryNodes, memoryPerNode, computeNodes, latency);
            Settings settings = new Settings(accessMode, gclSize, cacheFrames, shards, latency, clock, tryLockRetries,
                upgradeAttempts, pendingWaitNanos, backoffConstant, fairness, lease, threadsPerNode, starvationPriority,
                readerWindowBaseNanos, lowWater, allocationChunk);
            SelccCluster cluster = new SelccCluster(f, settings);
            cluster.startAgents();
            return cluster;
        }

        private static void require(String problem, String setting, long value) {
            if (problem != null) {
                throw new IllegalArgumentException(setting + " " + problem + ": " + setting + "=" + value);
            }
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
