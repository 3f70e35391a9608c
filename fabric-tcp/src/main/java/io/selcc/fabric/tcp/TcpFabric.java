package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.selcc.fabric.Counter;
import io.selcc.fabric.Fabric;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.MessageHandler;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeCounters;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.PendingVerbs;
import io.selcc.fabric.VerbBatch;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fabric over TCP: memory nodes are {@link MemoryNodeServer} processes, and the compute nodes this
 * process hosts talk to them, and to every other compute node, over connections of their own (frames in
 * {@link Frame}). One process may host one compute node (a cluster of processes) or all of them (one
 * process, still over loopback TCP). A compute node hosted elsewhere has no endpoint here.
 *
 * <p>Failures: a memory node that is gone or silent for the timeout throws
 * {@link MemoryNodeFailedException} (its memory is lost); a compute node that is gone, silent or fenced
 * throws {@link NodeFailedException} to whoever sends it a message, and so does a lost connection to one
 * ({@link NodeFailedException#connectionLost()}): the next message, or {@link FabricEndpoint#reconnect},
 * opens a fresh one, which the node accepts once it has given up the lost one (see {@link ComputeNodeServer}).
 *
 * <p>Over 600 lines on purpose: connecting, fencing and reconnecting memory and compute nodes share one
 * failure model, which reads best in one place; framing, links and servers are classes of their own.
 */
public final class TcpFabric implements Fabric {
    /** The largest message (or reply) one frame carries, in encoded bytes. */
    public static final int MAX_MESSAGE_BYTES = Frame.MAX_LENGTH - Frame.HEADER_AFTER_LENGTH - 1;

    private final ClusterMap cluster;
    private final long timeoutNanos;
    private final EventLoopGroup loops;
    private final Link[] memoryLinks;
    private final long[] capacities;
    private final TcpEndpoint[] hosted;
    /**
     * Bit n: compute node n is fenced (at most {@link Fabric#MAX_COMPUTE_NODES} nodes: one long, read without
     * a lock: TO asks it for every write intent it meets, see {@code ComputeNode.peerCrashed}).
     */
    private final java.util.concurrent.atomic.AtomicLong fencedNodes = new java.util.concurrent.atomic.AtomicLong();
    /** Told of a compute node of another process whose connection closed; null: not watching. */
    private volatile java.util.function.IntConsumer lostComputeNodes;
    /** Nodes {@link #lostComputeNodes} was told of (once each). */
    private final Set<Integer> toldLost = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicInteger closedLinksChecked = new java.util.concurrent.atomic.AtomicInteger();
    private final Map<Long, Link> peerLinks = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final List<Runnable> afterClose = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final HandOffs handOffs = new HandOffs();

    private TcpFabric(ClusterMap cluster, Set<Integer> hostedNodes, Duration timeout) {
        if (cluster.computeNodes().size() > Fabric.MAX_COMPUTE_NODES) {
            throw new IllegalArgumentException("at most " + Fabric.MAX_COMPUTE_NODES + " compute nodes: "
                + cluster.computeNodes().size());
        }
        this.cluster = cluster;
        this.timeoutNanos = timeout.toNanos();
        this.loops = EventLoops.create("selcc-tcp", 2);
        int m = cluster.memoryNodes().size();
        this.memoryLinks = new Link[m];
        this.capacities = new long[m];
        this.hosted = new TcpEndpoint[cluster.computeNodes().size()];
        try {
            for (int j = 0; j < m; j++) {
                int memoryNode = j;
                InetSocketAddress address = cluster.memoryNodes().get(j);
                String name = "memory node " + j + " (" + address.getHostString() + ":" + address.getPort() + ")";
                long[] greeting = new long[2];
                memoryLinks[j] = Link.connect(loops, address, name, -1, timeoutNanos, (why, lost) -> new MemoryNodeFailedException(
                    memoryNode, name + ": " + why + "; its memory is lost, the run cannot go on"), greeting, handOffs);
                if (greeting[0] != Frame.ROLE_MEMORY) {
                    throw new IllegalStateException(name + " is not a memory node (it answered as role " + greeting[0] + ")");
                }
                capacities[j] = greeting[1];
            }
            for (int i : new TreeSet<>(hostedNodes)) {
                if (i < 0 || i >= hosted.length) {
                    throw new IllegalArgumentException("no such compute node to host: " + i + " (the cluster has "
                        + hosted.length + ")");
                }
                NodeCounters counters = new NodeCounters(i);
                hosted[i] = new TcpEndpoint(i, new ComputeNodeServer(i, counters, cluster.computeNodes().get(i), loops, handOffs), counters);
            }
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /**
     * Connects to every memory node of {@code cluster} and starts the compute nodes {@code hostedNodes}
     * (each listening on its address in the map). {@code timeout} bounds a connect and every wait for an
     * answer.
     */
    public static TcpFabric connect(ClusterMap cluster, Set<Integer> hostedNodes, Duration timeout) {
        return new TcpFabric(cluster, hostedNodes, timeout);
    }

    /** Thread hand-offs of this process's side of the fabric (its links and compute-node servers). */
    public HandOffs handOffs() {
        return handOffs;
    }

    /** Where hosted compute node {@code node} listens (its port, if the map said 0). */
    public InetSocketAddress listenAddress(int node) {
        return hostedEndpoint(node).server.address();
    }

    @Override
    public int memoryNodeCount() {
        return memoryLinks.length;
    }

    @Override
    public long memoryNodeCapacity(int memoryNode) {
        if (memoryNode < 0 || memoryNode >= capacities.length) {
            throw new IllegalArgumentException("no such memory node: memoryNode=" + memoryNode + " memoryNodes=" + capacities.length);
        }
        return capacities[memoryNode];
    }

    @Override
    public int computeNodeCount() {
        return hosted.length;
    }

    /** Whether compute node {@code node} runs in this process. */
    @Override
    public boolean hosts(int node) {
        return node >= 0 && node < hosted.length && hosted[node] != null;
    }

    @Override
    public FabricEndpoint endpoint(int computeNode) {
        return hostedEndpoint(computeNode);
    }

    private TcpEndpoint hostedEndpoint(int computeNode) {
        if (computeNode < 0 || computeNode >= hosted.length) {
            throw new IllegalArgumentException("no such compute node: computeNode=" + computeNode + " computeNodes=" + hosted.length);
        }
        TcpEndpoint endpoint = hosted[computeNode];
        if (endpoint == null) {
            throw new IllegalArgumentException("compute node " + computeNode + " runs in another process: no endpoint here");
        }
        return endpoint;
    }

    /**
     * Fences the node off every memory node (each confirms that none of its verbs lands from now on), then
     * fails the messages in flight to it and refuses new ones.
     */
    @Override
    public void fence(int computeNode) {
        if (computeNode < 0 || computeNode >= hosted.length) {
            throw new IllegalArgumentException("no such compute node: computeNode=" + computeNode);
        }
        for (Link memory : memoryLinks) {
            Link.Call call = memory.send(Frame.FENCE, out -> out.writeInt(computeNode));
            memory.await(call, timeoutNanos, Frame.FENCE_OK).release();
        }
        fencedNodes.getAndUpdate(nodes -> nodes | 1L << computeNode);
        if (hosted[computeNode] != null) {
            hosted[computeNode].server.fence();
        }
        for (Map.Entry<Long, Link> e : peerLinks.entrySet()) {
            if ((int) (e.getKey() & 0xFFFF_FFFFL) == computeNode) {
                e.getValue().broke("compute node " + computeNode + " was fenced", false);
            }
        }
    }

    @Override
    public boolean fenced(int computeNode) {
        return computeNode >= 0 && computeNode < Long.SIZE && (fencedNodes.get() & (1L << computeNode)) != 0;
    }

    /**
     * Keeps a connection from this process to every compute node of another process (opening those not
     * open yet) and tells {@code lost} of each one whose connection closes: its process died (a kill -9
     * closes its sockets at once; a machine that vanishes without closing them is noticed only when a
     * request to it times out). A node that cannot be connected to now is lost too.
     */
    @Override
    public void watchComputeNodes(java.util.function.IntConsumer lost) {
        lostComputeNodes = lost;
        if (lost == null || closed) {
            return;
        }
        int from = -1;
        for (int i = 0; i < hosted.length && from < 0; i++) {
            from = hosted[i] != null ? i : -1;
        }
        if (from < 0) {
            return;
        }
        for (int to = 0; to < hosted.length; to++) {
            if (hosted[to] == null && !fenced(to)) {
                try {
                    peerLink(from, to); // its close (whenClosed, set there) tells lost
                } catch (NodeFailedException e) {
                    computeNodeLost(to);
                }
            }
        }
    }

    /**
     * A connection from {@code from} to {@code to} closed: the node may have died, or only the connection.
     * While nodes are watched, one that a fresh connection reaches lives and is not reported (before, a
     * connection lost between live processes had the watcher fence and repair a live node); one that cannot
     * be reached is. Off the event loop (the connect waits for a reply that an event loop delivers).
     */
    private void linkClosed(int from, int to) {
        if (lostComputeNodes == null || closed || hosted[to] != null || fenced(to)) {
            return;
        }
        Thread.ofVirtual().name("selcc-tcp-reconnect-" + from + "-" + to).start(() -> {
            try {
                peerLink(from, to);
            } catch (RuntimeException unreachable) {
                computeNodeLost(to);
            } finally {
                closedLinksChecked.incrementAndGet();
            }
        });
    }

    /** Closed links to watched nodes that {@link #linkClosed} has looked into (tests wait for it). */
    int closedLinksChecked() {
        return closedLinksChecked.get();
    }

    /** A connection to compute node {@code node} (of another process) closed: tells the watcher, once. */
    private void computeNodeLost(int node) {
        java.util.function.IntConsumer lost = lostComputeNodes;
        if (lost != null && !closed && hosted[node] == null && toldLost.add(node)) {
            lost.accept(node);
        }
    }

    /** Runs {@code action} once this fabric has closed (a launcher stops the processes it runs on). */
    public void whenClosed(Runnable action) {
        afterClose.add(action);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            closeConnections();
        } finally {
            afterClose.forEach(Runnable::run);
        }
    }

    private void closeConnections() {
        for (Link link : peerLinks.values()) {
            link.close();
        }
        for (TcpEndpoint endpoint : hosted) {
            if (endpoint != null) {
                endpoint.server.close();
            }
        }
        for (Link link : memoryLinks) {
            if (link != null) {
                link.close();
            }
        }
        loops.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private Link peerLink(int from, int to) {
        long key = ((long) from << 32) | to;
        Link link = peerLinks.get(key);
        if (link != null && !link.broken()) {
            return link;
        }
        synchronized (peerLinks) {
            link = peerLinks.get(key);
            if (link != null && !link.broken()) {
                return link;
            }
            // A node hosted here listens where it bound (the map may say port 0); others where the map says.
            InetSocketAddress address = hosted[to] != null ? hosted[to].server.address() : cluster.computeNodes().get(to);
            String name = "compute node " + to + " (" + address.getHostString() + ":" + address.getPort() + ")";
            Link fresh = Link.connect(loops, address, name, from, timeoutNanos,
                (why, lost) -> new NodeFailedException(to, name + ": " + why, lost), new long[2], handOffs);
            peerLinks.put(key, fresh);
            fresh.whenClosed(() -> linkClosed(from, to));
            return fresh;
        }
    }

    /**
     * Test seam: breaks the connection from compute node {@code from} to {@code to} as a network failure
     * would. The calls waiting on it fail at once with the connection lost, and the next message opens a
     * fresh one. With {@code receiverNotices} the socket is closed (the receiver sees it close, as after a
     * reset); without, the receiver's side stays open, as across a partition that only the sender noticed.
     * False if there was no connection. Production code never calls it.
     */
    boolean dropConnection(int from, int to, boolean receiverNotices) {
        Link link = peerLinks.get(((long) from << 32) | to);
        if (link == null || link.broken()) {
            return false;
        }
        link.broke("the connection to compute node " + to + " was dropped (test)", true);
        if (receiverNotices) {
            link.close();
        }
        return true;
    }

    /** HELLOs hosted node {@code node} answered only after retiring an older connection from the same node (tests). */
    int hellosHeldForRetirement(int node) {
        return hostedEndpoint(node).server.hellosHeld.get();
    }

    /** A frame's request or reply bytes at most, for a batch split into frames (well under {@link Frame#MAX_LENGTH}). */
    static final int CHUNK_BYTES = 4 << 20;
    /** A verb's kind and address in a VERBS frame. */
    private static final int VERB_HEADER_BYTES = 1 + 8;

    /** One hosted compute node's attachment. */
    private final class TcpEndpoint implements FabricEndpoint {
        private final int nodeId;
        private final ComputeNodeServer server;
        private final NodeCounters counters;
        private final ThreadLocal<VerbBatch> single = ThreadLocal.withInitial(VerbBatch::new);
        /** Exponentially weighted mean of measured verb round trips. */
        private volatile long roundTripNanos;

        TcpEndpoint(int nodeId, ComputeNodeServer server, NodeCounters counters) {
            this.nodeId = nodeId;
            this.server = server;
            this.counters = counters;
        }

        @Override
        public int nodeId() {
            return nodeId;
        }

        @Override
        public NodeCounters counters() {
            return counters;
        }

        private void checkNotFenced(int node) {
            if (fenced(node)) {
                throw new NodeFailedException(node, "compute node " + node + " is fenced off the fabric");
            }
        }

        @Override
        public void remoteRead(long address, MemorySegment dst, long dstOffset, int length) {
            VerbBatch b = single.get().clear();
            b.read(address, dst, dstOffset, length);
            post(b);
            b.clear();
        }

        @Override
        public void remoteWrite(long address, MemorySegment src, long srcOffset, int length) {
            VerbBatch b = single.get().clear();
            b.write(address, src, srcOffset, length);
            post(b);
            b.clear();
        }

        @Override
        public long remoteCas(long address, long expected, long update) {
            VerbBatch b = single.get().clear();
            int i = b.cas(address, expected, update);
            post(b);
            return b.result(i);
        }

        @Override
        public long remoteFaa(long address, long delta) {
            VerbBatch b = single.get().clear();
            int i = b.faa(address, delta);
            post(b);
            return b.result(i);
        }

        @Override
        public long remoteFaaFor(int beneficiary, long address, long delta) {
            VerbBatch b = single.get().clear();
            int i = b.faa(address, delta);
            postFor(beneficiary, b);
            return b.result(i);
        }

        @Override
        public void post(VerbBatch batch) {
            postAsync(batch, -1).await();
        }

        @Override
        public void postFor(int beneficiary, VerbBatch batch) {
            checkNotFenced(beneficiary);
            postAsync(batch, beneficiary).await();
        }

        @Override
        public PendingVerbs postAsync(VerbBatch batch) {
            return postAsync(batch, -1);
        }

        /**
         * Adds {@code verbs} (one memory node's, in the batch's order) to {@code groups} as runs whose request
         * and reply each stay within {@link #CHUNK_BYTES}: a cache written back at the end of a long run is
         * one batch of tens of MiB, over the frame limit. The runs go out in order on the node's one
         * connection, whose frames the memory node executes in arrival order, so the ordering rule holds.
         */
        private static void chunk(VerbBatch batch, List<Integer> verbs, List<int[]> groups) {
            List<Integer> run = new ArrayList<>();
            long request = 0;
            long reply = 0;
            for (int i : verbs) {
                long in = VERB_HEADER_BYTES + switch (batch.kind(i)) {
                    case READ -> 4;
                    case WRITE -> 4 + batch.length(i);
                    case CAS -> 16;
                    case FAA -> 8;
                };
                long out = switch (batch.kind(i)) {
                    case READ -> batch.length(i);
                    case WRITE -> 0;
                    case CAS, FAA -> 8;
                };
                if (!run.isEmpty() && (request + in > CHUNK_BYTES || reply + out > CHUNK_BYTES)) {
                    groups.add(run.stream().mapToInt(Integer::intValue).toArray());
                    run.clear();
                    request = 0;
                    reply = 0;
                }
                run.add(i);
                request += in;
                reply += out;
            }
            if (!run.isEmpty()) {
                groups.add(run.stream().mapToInt(Integer::intValue).toArray());
            }
        }

        /**
         * Sends one frame per memory node the batch touches (in the batch's order within each; more than
         * one when a node's share is large, see {@link #chunk}), all at once.
         */
        private PendingVerbs postAsync(VerbBatch batch, int beneficiary) {
            checkNotFenced(nodeId);
            int size = batch.size();
            if (size == 0) {
                return PendingVerbs.DONE;
            }
            int first = GlobalAddress.memoryNode(batch.address(0));
            boolean oneNode = true;
            for (int i = 1; i < size && oneNode; i++) {
                oneNode = GlobalAddress.memoryNode(batch.address(i)) == first;
            }
            List<int[]> groups = new ArrayList<>(1);
            if (oneNode && size <= 4096 && batch.payloadBytes() <= CHUNK_BYTES / 2) {
                int[] all = new int[size];
                for (int i = 0; i < size; i++) {
                    all[i] = i;
                }
                groups.add(all);
            } else {
                Map<Integer, List<Integer>> byNode = new java.util.TreeMap<>();
                for (int i = 0; i < size; i++) {
                    byNode.computeIfAbsent(GlobalAddress.memoryNode(batch.address(i)), k -> new ArrayList<>()).add(i);
                }
                for (List<Integer> g : byNode.values()) {
                    chunk(batch, g, groups);
                }
            }
            Link[] links = new Link[groups.size()];
            Link.Call[] calls = new Link.Call[groups.size()];
            for (int g = 0; g < groups.size(); g++) {
                int[] verbs = groups.get(g);
                links[g] = memoryLink(GlobalAddress.memoryNode(batch.address(verbs[0])), batch.address(verbs[0]));
                calls[g] = links[g].send(Frame.VERBS, out -> writeVerbs(out, batch, verbs, beneficiary));
            }
            long sentAt = System.nanoTime();
            return () -> {
                RuntimeException failed = null;
                for (int g = 0; g < calls.length; g++) { // every group's reply is read (or released), even after a failure
                    try {
                        ByteBuf reply = links[g].await(calls[g], timeoutNanos, Frame.VERBS_OK);
                        try {
                            if (failed == null) {
                                readResults(reply, batch, groups.get(g));
                            }
                        } finally {
                            reply.release();
                        }
                    } catch (RuntimeException e) {
                        if (failed == null) {
                            failed = e;
                        }
                    }
                }
                if (failed != null) {
                    throw failed;
                }
                long rtt = System.nanoTime() - sentAt;
                long mean = roundTripNanos;
                roundTripNanos = mean == 0 ? rtt : (7 * mean + rtt) / 8;
                counters.increment(Counter.ROUND_TRIPS);
            };
        }

        private Link memoryLink(int memoryNode, long address) {
            if (memoryNode < 0 || memoryNode >= memoryLinks.length) {
                throw new IllegalArgumentException("no such memory node: address=" + GlobalAddress.toString(address)
                    + " memoryNodes=" + memoryLinks.length);
            }
            return memoryLinks[memoryNode];
        }

        /**
         * Copies {@code src} into {@code out}: through its buffer view where it has one (off-heap frames,
         * byte arrays), else through a copy (a segment over a long[] has no buffer view).
         */
        private static void writeSegment(ByteBuf out, MemorySegment src) {
            if (hasBufferView(src)) {
                out.writeBytes(src.asByteBuffer());
            } else {
                out.writeBytes(src.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            }
        }

        /** Fills {@code dst} from {@code in} (see {@link #writeSegment}). */
        private static void readSegment(ByteBuf in, MemorySegment dst) {
            if (hasBufferView(dst)) {
                in.readBytes(dst.asByteBuffer());
            } else {
                byte[] bytes = new byte[(int) dst.byteSize()];
                in.readBytes(bytes);
                MemorySegment.copy(MemorySegment.ofArray(bytes), 0, dst, 0, bytes.length);
            }
        }

        private static boolean hasBufferView(MemorySegment segment) {
            return segment.isNative() || segment.heapBase().map(base -> base instanceof byte[]).orElse(false);
        }

        private void writeVerbs(ByteBuf out, VerbBatch batch, int[] verbs, int beneficiary) {
            out.writeInt(nodeId).writeInt(beneficiary).writeInt(verbs.length);
            for (int i : verbs) {
                VerbBatch.Kind kind = batch.kind(i);
                out.writeByte(kind.ordinal()).writeLong(batch.address(i));
                switch (kind) {
                    case READ -> out.writeInt(batch.length(i));
                    case WRITE -> {
                        int length = batch.length(i);
                        out.writeInt(length);
                        writeSegment(out, batch.segment(i).asSlice(batch.segmentOffset(i), length));
                    }
                    case CAS -> out.writeLong(batch.operand(i)).writeLong(batch.update(i));
                    case FAA -> out.writeLong(batch.operand(i));
                }
            }
        }

        private void readResults(ByteBuf reply, VerbBatch batch, int[] verbs) {
            for (int i : verbs) {
                switch (batch.kind(i)) {
                    case READ -> {
                        int length = batch.length(i);
                        readSegment(reply, batch.segment(i).asSlice(batch.segmentOffset(i), length));
                        counters.increment(Counter.VERB_READ);
                        counters.add(Counter.BYTES_READ, length);
                    }
                    case WRITE -> {
                        counters.increment(Counter.VERB_WRITE);
                        counters.add(Counter.BYTES_WRITTEN, batch.length(i));
                    }
                    case CAS -> {
                        batch.complete(i, reply.readLong());
                        counters.increment(Counter.VERB_CAS);
                    }
                    case FAA -> {
                        batch.complete(i, reply.readLong());
                        counters.increment(Counter.VERB_FAA);
                    }
                }
            }
        }

        @Override
        public void register(MessageKind kind, MessageCodec codec, MessageHandler handler) {
            server.register(kind, codec, handler);
        }

        @Override
        public PendingReply send(int toNode, MessageKind kind, Object request) {
            PendingReply reply = start(toNode, kind, request);
            counters.increment(Counter.ROUND_TRIPS);
            return reply;
        }

        @Override
        public void sendAll(int[] toNodes, int count, MessageKind kind, Object[] requests, PendingReply[] replies) {
            for (int i = 0; i < count; i++) {
                replies[i] = start(toNodes[i], kind, requests[i]);
            }
            if (count > 0) {
                counters.increment(Counter.ROUND_TRIPS);
            }
        }

        private PendingReply start(int toNode, MessageKind kind, Object request) {
            if (toNode == nodeId) {
                throw new IllegalArgumentException("message to self: node=" + nodeId + " kind=" + kind);
            }
            if (toNode < 0 || toNode >= hosted.length) {
                throw new IllegalArgumentException("no such compute node: computeNode=" + toNode + " computeNodes=" + hosted.length);
            }
            checkNotFenced(nodeId);
            checkNotFenced(toNode);
            MessageCodec codec = server.codec(kind);
            WireWriter body = new WireWriter();
            codec.encode(request, body);
            Link link = peerLink(nodeId, toNode);
            Link.Call call = link.send(Frame.MESSAGE, out -> out.writeByte(kind.ordinal()).writeBytes(body.array(), 0, body.size()));
            call.decodeWith(reply -> {
                byte[] bytes = new byte[reply.readableBytes()];
                reply.readBytes(bytes);
                WireReader in = new WireReader(bytes);
                Object decoded = codec.decode(in);
                in.expectEnd(kind + " reply");
                return decoded;
            });
            counters.increment(Counter.MESSAGES_SENT);
            return call;
        }

        @Override
        public long roundTripNanos() {
            return roundTripNanos;
        }

        /** A fresh connection's HELLO is answered only once the node has retired the older ones (ComputeNodeServer). */
        @Override
        public boolean reconnect(int toNode) {
            if (toNode == nodeId || toNode < 0 || toNode >= hosted.length || fenced(toNode) || fenced(nodeId)) {
                return false;
            }
            try {
                peerLink(nodeId, toNode); // a link that is not broken came after the lost one, so after its retirement
                return true;
            } catch (NodeFailedException e) {
                return false;
            }
        }

        @Override
        public boolean connectionsCanDrop() {
            return true;
        }
    }
}
