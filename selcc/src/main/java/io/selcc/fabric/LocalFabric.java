package io.selcc.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import io.selcc.threads.PerThread;

/**
 * All nodes in one JVM. Memory nodes are off-heap {@link MemorySegment}s (any size, above 2 GB
 * included); verbs are direct accesses, atomics go through a {@link VarHandle} with volatile
 * semantics, so a release (WRITE then FAA) happens-before the next acquire (CAS/FAA then READ).
 *
 * <p>A message is delivered by running the receiver's handler on the sender's thread: there are no
 * polling threads, and handlers never block (see {@link MessageHandler}).
 *
 * <p>Fencing ({@link #fence}): each thread marks itself inside a node's verb (or inside a handler of a
 * message to that node) in a counter of its own, a volatile write before it reads the node's fence flag;
 * the fencer sets the flag and then waits for every marker of the node to drop to zero. Either the
 * thread sees the flag and does nothing, or the fencer sees the marker and waits for the verb: no verb
 * of a fenced node lands after {@code fence} returns (Dekker's argument, both sides volatile).
 */
public final class LocalFabric implements Fabric {
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] memoryNodes;
    private final LocalEndpoint[] endpoints;
    private final LatencyModel latency;
    private volatile boolean closed;
    /** Fault injection for messages; null delivers every message once. */
    private volatile MessageInterceptor interceptor;

    /**
     * @param memoryNodeCount number of memory nodes
     * @param bytesPerMemoryNode capacity of each memory node (multiple of 8)
     * @param computeNodeCount number of compute nodes, at most {@link LatchWord#MAX_COMPUTE_NODES}
     * @param latency latency model applied to every round trip ({@link LatencyModel#OFF} for none)
     */
    public LocalFabric(int memoryNodeCount, long bytesPerMemoryNode, int computeNodeCount, LatencyModel latency) {
        if (memoryNodeCount < 1 || memoryNodeCount > GlobalAddress.MAX_MEMORY_NODES) {
            throw new IllegalArgumentException("memory nodes must be in [1, " + GlobalAddress.MAX_MEMORY_NODES
                + "]: memoryNodes=" + memoryNodeCount);
        }
        if (computeNodeCount < 1 || computeNodeCount > LatchWord.MAX_COMPUTE_NODES) {
            throw new IllegalArgumentException("compute nodes must be in [1, " + LatchWord.MAX_COMPUTE_NODES
                + "] (the latch word has one reader bit per node): computeNodes=" + computeNodeCount);
        }
        if (bytesPerMemoryNode < 4096 || bytesPerMemoryNode % 8 != 0 || bytesPerMemoryNode > GlobalAddress.OFFSET_MASK) {
            throw new IllegalArgumentException(
                "memory per node must be a multiple of 8 in [4096, 2^48): bytesPerMemoryNode=" + bytesPerMemoryNode);
        }
        this.latency = latency;
        this.memoryNodes = new MemorySegment[memoryNodeCount];
        for (int i = 0; i < memoryNodeCount; i++) {
            memoryNodes[i] = OffHeap.zeroed(arena, bytesPerMemoryNode, 4096); // resident only where touched
        }
        this.endpoints = new LocalEndpoint[computeNodeCount];
        for (int i = 0; i < computeNodeCount; i++) {
            endpoints[i] = new LocalEndpoint(i);
        }
    }

    /**
     * Installs (or with null removes) the fault injector that decides each message's fate from now on:
     * lost requests and replies come back as {@link MessageLost#REPLY}, duplicates run the receiver's
     * handler twice. Counters count what the network carried (a lost request was still sent).
     */
    public void interceptMessages(MessageInterceptor interceptor) {
        this.interceptor = interceptor;
    }

    @Override
    public int memoryNodeCount() {
        return memoryNodes.length;
    }

    @Override
    public long memoryNodeCapacity(int memoryNode) {
        return memoryNode(memoryNode).byteSize();
    }

    @Override
    public int computeNodeCount() {
        return endpoints.length;
    }

    @Override
    public void fence(int computeNode) {
        LocalEndpoint endpoint = (LocalEndpoint) endpoint(computeNode);
        endpoint.fenced = true;
        for (VerbMarker marker : endpoint.markers) {
            while (marker.depth != 0) {
                Thread.onSpinWait(); // a verb or handler in flight: bounded by its own length
            }
        }
    }

    @Override
    public boolean fenced(int computeNode) {
        return ((LocalEndpoint) endpoint(computeNode)).fenced;
    }

    @Override
    public FabricEndpoint endpoint(int computeNode) {
        if (computeNode < 0 || computeNode >= endpoints.length) {
            throw new IllegalArgumentException(
                "no such compute node: computeNode=" + computeNode + " computeNodes=" + endpoints.length);
        }
        return endpoints[computeNode];
    }

    public LatencyModel latency() {
        return latency;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            arena.close();
        }
    }

    private MemorySegment memoryNode(int id) {
        if (id < 0 || id >= memoryNodes.length) {
            throw new IllegalArgumentException(
                "no such memory node: memoryNode=" + id + " memoryNodes=" + memoryNodes.length);
        }
        return memoryNodes[id];
    }

    /** Resolves a global address to its memory node, checking bounds (and alignment for atomics). */
    private MemorySegment target(long address, long length, boolean atomic) {
        if (closed) {
            throw new IllegalStateException("fabric is closed: address=" + GlobalAddress.toString(address));
        }
        MemorySegment node = memoryNode(GlobalAddress.memoryNode(address));
        long offset = GlobalAddress.offset(address);
        if (offset + length > node.byteSize() || length < 0) {
            throw new IllegalArgumentException("address out of range: address=" + GlobalAddress.toString(address)
                + " length=" + length + " memoryNodeBytes=" + node.byteSize());
        }
        if (atomic && (offset & 7) != 0) {
            throw new IllegalArgumentException(
                "atomic verb on a misaligned word: address=" + GlobalAddress.toString(address) + " (must be 8-byte aligned)");
        }
        return node;
    }

    /** One thread's nesting depth inside one node's verbs and handlers (see the class comment). */
    private static final class VerbMarker {
        volatile int depth;
    }

    private final class LocalEndpoint implements FabricEndpoint {
        private final int nodeId;
        private final NodeCounters counters;
        private final Map<MessageKind, MessageHandler> handlers = new EnumMap<>(MessageKind.class);
        private volatile boolean fenced;
        /** Every thread's marker for this node, for the fencer to wait on. */
        private final CopyOnWriteArrayList<VerbMarker> markers = new CopyOnWriteArrayList<>();
        private final PerThread<VerbMarker> marker = PerThread.withInitial(() -> {
            VerbMarker m = new VerbMarker();
            markers.add(m);
            return m;
        });

        LocalEndpoint(int nodeId) {
            this.nodeId = nodeId;
            this.counters = new NodeCounters(nodeId);
        }

        @Override
        public int nodeId() {
            return nodeId;
        }

        @Override
        public NodeCounters counters() {
            return counters;
        }

        /** Marks this thread inside a verb of this node; throws if the node is fenced (see the class comment). */
        private VerbMarker enter() {
            VerbMarker m = marker.get();
            m.depth = m.depth + 1; // only this thread writes it; volatile: ordered before the flag's read
            if (fenced) {
                m.depth = m.depth - 1;
                throw new NodeFailedException(nodeId, "compute node " + nodeId + " is fenced off the fabric");
            }
            return m;
        }

        private static void exit(VerbMarker m) {
            m.depth = m.depth - 1;
        }

        @Override
        public void remoteRead(long address, MemorySegment dst, long dstOffset, int length) {
            VerbMarker m = enter();
            try {
                read(address, dst, dstOffset, length);
            } finally {
                exit(m);
            }
        }

        private void read(long address, MemorySegment dst, long dstOffset, int length) {
            MemorySegment node = target(address, length, false);
            MemorySegment.copy(node, GlobalAddress.offset(address), dst, dstOffset, length);
            counters.increment(Counter.VERB_READ);
            counters.add(Counter.BYTES_READ, length);
            roundTrip(length);
        }

        @Override
        public void remoteWrite(long address, MemorySegment src, long srcOffset, int length) {
            VerbMarker m = enter();
            try {
                write(address, src, srcOffset, length);
            } finally {
                exit(m);
            }
        }

        private void write(long address, MemorySegment src, long srcOffset, int length) {
            MemorySegment node = target(address, length, false);
            MemorySegment.copy(src, srcOffset, node, GlobalAddress.offset(address), length);
            VarHandle.releaseFence();
            counters.increment(Counter.VERB_WRITE);
            counters.add(Counter.BYTES_WRITTEN, length);
            roundTrip(length);
        }

        @Override
        public void postFor(int beneficiary, VerbBatch batch) {
            VerbMarker b = ((LocalEndpoint) endpoint(beneficiary)).enter();
            try {
                post(batch);
            } finally {
                exit(b);
            }
        }

        @Override
        public long remoteFaaFor(int beneficiary, long address, long delta) {
            VerbMarker b = ((LocalEndpoint) endpoint(beneficiary)).enter();
            try {
                return remoteFaa(address, delta);
            } finally {
                exit(b);
            }
        }

        @Override
        public long remoteCas(long address, long expected, long update) {
            VerbMarker m = enter();
            long previous;
            try {
                previous = cas(address, expected, update);
            } finally {
                exit(m);
            }
            roundTrip(8);
            return previous;
        }

        @Override
        public long remoteFaa(long address, long delta) {
            VerbMarker m = enter();
            long previous;
            try {
                previous = faa(address, delta);
            } finally {
                exit(m);
            }
            roundTrip(8);
            return previous;
        }

        @Override
        public void post(VerbBatch batch) {
            VerbMarker m = enter();
            try {
                postVerbs(batch);
            } finally {
                exit(m);
            }
            if (batch.size > 0) {
                roundTrip(batch.payloadBytes());
            }
        }

        private void postVerbs(VerbBatch batch) {
            for (int i = 0; i < batch.size; i++) {
                long address = batch.addresses[i];
                switch (batch.kinds[i]) {
                    case READ -> {
                        int length = batch.lengths[i];
                        MemorySegment node = target(address, length, false);
                        MemorySegment.copy(node, GlobalAddress.offset(address), batch.segments[i], batch.segmentOffsets[i], length);
                        counters.increment(Counter.VERB_READ);
                        counters.add(Counter.BYTES_READ, length);
                    }
                    case WRITE -> {
                        int length = batch.lengths[i];
                        MemorySegment node = target(address, length, false);
                        MemorySegment.copy(batch.segments[i], batch.segmentOffsets[i], node, GlobalAddress.offset(address), length);
                        VarHandle.releaseFence();
                        counters.increment(Counter.VERB_WRITE);
                        counters.add(Counter.BYTES_WRITTEN, length);
                    }
                    case CAS -> batch.results[i] = cas(address, batch.operands[i], batch.updates[i]);
                    case FAA -> batch.results[i] = faa(address, batch.operands[i]);
                }
            }
        }

        private long cas(long address, long expected, long update) {
            MemorySegment node = target(address, 8, true);
            long previous = (long) WORD.compareAndExchange(node, GlobalAddress.offset(address), expected, update);
            counters.increment(Counter.VERB_CAS);
            return previous;
        }

        private long faa(long address, long delta) {
            MemorySegment node = target(address, 8, true);
            long previous = (long) WORD.getAndAdd(node, GlobalAddress.offset(address), delta);
            counters.increment(Counter.VERB_FAA);
            return previous;
        }

        private void roundTrip(long payloadBytes) {
            counters.increment(Counter.ROUND_TRIPS);
            latency.await(payloadBytes);
        }

        @Override
        public synchronized void register(MessageKind kind, MessageHandler handler) {
            if (handlers.putIfAbsent(kind, handler) != null) {
                throw new IllegalStateException("handler already registered: node=" + nodeId + " kind=" + kind);
            }
        }

        private MessageHandler handler(MessageKind kind) {
            MessageHandler handler;
            synchronized (this) {
                handler = handlers.get(kind);
            }
            if (handler == null) {
                throw new IllegalStateException("no handler for message: node=" + nodeId + " kind=" + kind);
            }
            return handler;
        }

        private Object deliver(int toNode, MessageKind kind, Object request) {
            if (toNode == nodeId) {
                throw new IllegalArgumentException("message to self: node=" + nodeId + " kind=" + kind);
            }
            LocalEndpoint receiver = (LocalEndpoint) endpoint(toNode);
            // The handler runs as both nodes': fencing either waits for it, and refuses it once fenced. (A
            // request the receiver keeps pending and serves later grants through postFor/remoteFaaFor.)
            VerbMarker s = enter();
            try {
                VerbMarker m = receiver.enter();
                try {
                    counters.increment(Counter.MESSAGES_SENT);
                    MessageInterceptor faults = interceptor;
                    MessageInterceptor.Fate fate = faults == null ? MessageInterceptor.Fate.DELIVER
                        : faults.fate(nodeId, toNode, kind, request);
                    if (fate == MessageInterceptor.Fate.LOSE_REQUEST) {
                        return MessageLost.REPLY;
                    }
                    receiver.counters.increment(Counter.MESSAGES_RECEIVED);
                    MessageHandler handler = receiver.handler(kind);
                    Object reply = handler.onMessage(nodeId, request);
                    if (fate == MessageInterceptor.Fate.DUPLICATE) {
                        receiver.counters.increment(Counter.MESSAGES_RECEIVED);
                        reply = handler.onMessage(nodeId, request);
                    }
                    return fate == MessageInterceptor.Fate.LOSE_REPLY ? MessageLost.REPLY : reply;
                } finally {
                    exit(m);
                }
            } finally {
                exit(s);
            }
        }

        @Override
        public Object call(int toNode, MessageKind kind, Object request) {
            Object reply = deliver(toNode, kind, request);
            roundTrip(0);
            return reply;
        }

        @Override
        public void callAll(int[] toNodes, int count, MessageKind kind, Object[] requests, Object[] replies) {
            for (int i = 0; i < count; i++) {
                replies[i] = deliver(toNodes[i], kind, requests[i]);
            }
            if (count > 0) {
                roundTrip(0);
            }
        }
    }
}
