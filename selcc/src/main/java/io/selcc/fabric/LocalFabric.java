package io.selcc.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerArray;
import io.selcc.threads.Waits;

/**
 * All nodes in one JVM. Memory nodes are off-heap {@link MemorySegment}s (any size, above 2 GB
 * included); verbs are direct accesses, atomics go through a {@link VarHandle} with volatile
 * semantics, so a release (WRITE then FAA) happens-before the next acquire (CAS/FAA then READ).
 *
 * <p>A message is delivered by running the receiver's handler on the sender's thread: there are no
 * polling threads, and handlers never block (see {@link MessageHandler}). A handler that keeps a request
 * answers it later from another thread through its {@link ReplyHandle}; the sender waits on the
 * {@link PendingReply}. With {@link #serializeMessages} every message crosses its codec.
 *
 * <p>Fencing ({@link #fence}): each thread marks itself inside a node's verb (or inside a handler of a
 * message to that node) by an atomic increment of its stripe of the node's in-flight counters, before
 * it reads the node's fence flag; the fencer sets the flag and then waits for every stripe of the node
 * to drop to zero. Either the thread sees the flag and does nothing, or the fencer sees the count and
 * waits for the verb: no verb of a fenced node lands after {@code fence} returns (Dekker's argument,
 * both sides volatile). Stripes, not a counter per thread: a counter per thread was kept for every
 * thread that ever called in, so many short-lived virtual threads grew the list for ever.
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
    /** Every message and reply goes through its codec (see {@link #serializeMessages}). */
    private volatile boolean serialize;

    /**
     * @param memoryNodeCount number of memory nodes
     * @param bytesPerMemoryNode capacity of each memory node (multiple of 8)
     * @param computeNodeCount number of compute nodes, at most {@link Fabric#MAX_COMPUTE_NODES}
     * @param latency latency model applied to every round trip ({@link LatencyModel#OFF} for none)
     */
    public LocalFabric(int memoryNodeCount, long bytesPerMemoryNode, int computeNodeCount, LatencyModel latency) {
        if (memoryNodeCount < 1 || memoryNodeCount > GlobalAddress.MAX_MEMORY_NODES) {
            throw new IllegalArgumentException("memory nodes must be in [1, " + GlobalAddress.MAX_MEMORY_NODES
                + "]: memoryNodes=" + memoryNodeCount);
        }
        if (computeNodeCount < 1 || computeNodeCount > MAX_COMPUTE_NODES) {
            throw new IllegalArgumentException("compute nodes must be in [1, " + MAX_COMPUTE_NODES
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

    /**
     * With {@code on}, every request and reply is encoded by its kind's {@link MessageCodec} and decoded
     * again before it is delivered, as on a network: tests run the protocol this way to show that no
     * message shares an in-JVM object between nodes. Off (the default) passes the objects themselves.
     */
    public void serializeMessages(boolean on) {
        this.serialize = on;
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
        for (int stripe = 0; stripe < IN_FLIGHT_STRIPES; stripe++) {
            while (endpoint.inFlight.get(stripe * STRIPE_SPACING) != 0) {
                // A verb or handler in flight, bounded by its own length (one round trip); its thread may be
                // a virtual thread that needs this carrier to finish.
                Waits.briefly();
            }
        }
        for (LocalReply reply : endpoint.outstanding) {
            endpoint.outstanding.remove(reply);
            reply.failIfOpen(); // its senders learn the node failed instead of waiting for ever
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

    /**
     * Registers each memory node's next {@code bytes} beyond its bump word (what compute nodes have taken so
     * far), as a memory node serving RDMA registers its memory with the NIC: registration pins, so faults in,
     * the pages, and a compute node's first write to them later does not wait for the kernel to find and zero
     * a page (docs/decisions.md, "Memory nodes register the memory a run will use"). Safe while compute nodes
     * run: the pages are faulted in without being written ({@link OffHeap#populateWritable}). The range
     * starts at the huge page that holds the bump word (a multiple of every page size) and ends at the node's
     * end at the latest; a full node registers nothing.
     *
     * @return the bytes registered over all memory nodes, counted from the bump words; -1 where the kernel
     *         refused (before Linux 5.14, a mapping that is not lazy, no native access), and the rest of the
     *         pages are then faulted in on first use, as without it
     */
    public long registerAhead(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes to register must be >= 0: bytes=" + bytes);
        }
        if (closed) {
            throw new IllegalStateException("the fabric is closed");
        }
        long registered = 0;
        for (MemorySegment node : memoryNodes) {
            long bump = Math.min(node.byteSize(), Math.max(0, (long) WORD.getVolatile(node, 0L))); // past the end once full
            long from = bump - bump % OffHeap.HUGE_PAGE; // a page boundary whatever the page size
            long to = bytes > node.byteSize() - bump ? node.byteSize() : bump + bytes;
            if (to > bump) {
                if (!OffHeap.populateWritable(node, from, to - from)) {
                    return -1;
                }
                registered += to - bump;
            }
        }
        return registered;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            arena.close();
        }
    }

    MemorySegment memoryNode(int id) {
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

    /** Stripes of a node's in-flight counters (a power of two; threads share one by their id). */
    private static final int IN_FLIGHT_STRIPES = 64;
    /** Ints between two stripes: each on a cache line of its own. */
    private static final int STRIPE_SPACING = 16;

    private final class LocalEndpoint implements FabricEndpoint {
        private final int nodeId;
        private final NodeCounters counters;
        private final MessageRegistry messages;
        /** Replies to requests this node kept and has not answered yet: failed when it is fenced. */
        private final java.util.Set<LocalReply> outstanding = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private volatile boolean fenced;
        /** Verbs and handlers of this node in flight, by stripe (see the class comment), for the fencer. */
        private final AtomicIntegerArray inFlight = new AtomicIntegerArray(IN_FLIGHT_STRIPES * STRIPE_SPACING);

        LocalEndpoint(int nodeId) {
            this.nodeId = nodeId;
            this.counters = new NodeCounters(nodeId);
            this.messages = new MessageRegistry(nodeId);
        }

        @Override
        public int nodeId() {
            return nodeId;
        }

        @Override
        public NodeCounters counters() {
            return counters;
        }

        /**
         * Marks this thread inside a verb of this node and returns its stripe for {@link #exit}; throws if
         * the node is fenced (see the class comment).
         */
        private int enter() {
            int stripe = (int) (Thread.currentThread().threadId() & (IN_FLIGHT_STRIPES - 1)) * STRIPE_SPACING;
            inFlight.getAndIncrement(stripe); // atomic, so ordered before the flag's read
            if (fenced) {
                inFlight.getAndDecrement(stripe);
                throw new NodeFailedException(nodeId, "compute node " + nodeId + " is fenced off the fabric");
            }
            return stripe;
        }

        private void exit(int stripe) {
            inFlight.getAndDecrement(stripe);
        }

        @Override
        public void remoteRead(long address, MemorySegment dst, long dstOffset, int length) {
            int m = enter();
            try {
                read(address, dst, dstOffset, length);
            } finally {
                exit(m);
            }
        }

        private void read(long address, MemorySegment dst, long dstOffset, int length) {
            long[] block = counters.threadBlock();
            copyOut(block, address, dst, dstOffset, length);
            roundTrip(block, length);
        }

        /** A READ verb's work: memory's bytes into {@code dst}, counted (the round trip is the caller's). */
        private void copyOut(long[] block, long address, MemorySegment dst, long dstOffset, int length) {
            MemorySegment node = target(address, length, false);
            MemorySegment.copy(node, GlobalAddress.offset(address), dst, dstOffset, length);
            NodeCounters.add(block, Counter.VERB_READ, 1);
            NodeCounters.add(block, Counter.BYTES_READ, length);
        }

        @Override
        public void remoteWrite(long address, MemorySegment src, long srcOffset, int length) {
            int m = enter();
            try {
                write(address, src, srcOffset, length);
            } finally {
                exit(m);
            }
        }

        private void write(long address, MemorySegment src, long srcOffset, int length) {
            long[] block = counters.threadBlock();
            copyIn(block, address, src, srcOffset, length);
            roundTrip(block, length);
        }

        /** A WRITE verb's work: {@code src}'s bytes into memory, published, counted (the round trip is the caller's). */
        private void copyIn(long[] block, long address, MemorySegment src, long srcOffset, int length) {
            MemorySegment node = target(address, length, false);
            MemorySegment.copy(src, srcOffset, node, GlobalAddress.offset(address), length);
            VarHandle.releaseFence();
            NodeCounters.add(block, Counter.VERB_WRITE, 1);
            NodeCounters.add(block, Counter.BYTES_WRITTEN, length);
        }

        @Override
        public void postFor(int beneficiary, VerbBatch batch) {
            LocalEndpoint b = (LocalEndpoint) endpoint(beneficiary);
            int stripe = b.enter();
            try {
                post(batch);
            } finally {
                b.exit(stripe);
            }
        }

        @Override
        public long remoteFaaFor(int beneficiary, long address, long delta) {
            LocalEndpoint b = (LocalEndpoint) endpoint(beneficiary);
            int stripe = b.enter();
            try {
                return remoteFaa(address, delta);
            } finally {
                b.exit(stripe);
            }
        }

        @Override
        public long remoteCas(long address, long expected, long update) {
            int m = enter();
            long[] block = counters.threadBlock();
            long previous;
            try {
                previous = cas(block, address, expected, update);
            } finally {
                exit(m);
            }
            roundTrip(block, 8);
            return previous;
        }

        @Override
        public long remoteFaa(long address, long delta) {
            int m = enter();
            long[] block = counters.threadBlock();
            long previous;
            try {
                previous = faa(block, address, delta);
            } finally {
                exit(m);
            }
            roundTrip(block, 8);
            return previous;
        }

        @Override
        public void post(VerbBatch batch) {
            int m = enter();
            long[] block = counters.threadBlock(); // one per-thread lookup for the batch's counts
            try {
                postVerbs(block, batch);
            } finally {
                exit(m);
            }
            if (batch.size > 0) {
                roundTrip(block, batch.payloadBytes());
            }
        }

        private void postVerbs(long[] block, VerbBatch batch) {
            for (int i = 0; i < batch.size; i++) {
                long address = batch.addresses[i];
                switch (batch.kinds[i]) {
                    case READ -> copyOut(block, address, batch.segments[i], batch.segmentOffsets[i], batch.lengths[i]);
                    case WRITE -> copyIn(block, address, batch.segments[i], batch.segmentOffsets[i], batch.lengths[i]);
                    case CAS -> batch.results[i] = cas(block, address, batch.operands[i], batch.updates[i]);
                    case FAA -> batch.results[i] = faa(block, address, batch.operands[i]);
                }
            }
        }

        private long cas(long[] block, long address, long expected, long update) {
            MemorySegment node = target(address, 8, true);
            long previous = (long) WORD.compareAndExchange(node, GlobalAddress.offset(address), expected, update);
            NodeCounters.add(block, Counter.VERB_CAS, 1);
            return previous;
        }

        private long faa(long[] block, long address, long delta) {
            MemorySegment node = target(address, 8, true);
            long previous = (long) WORD.getAndAdd(node, GlobalAddress.offset(address), delta);
            NodeCounters.add(block, Counter.VERB_FAA, 1);
            return previous;
        }

        /** Counts a round trip into the calling thread's {@code block} and waits out the latency model. */
        private void roundTrip(long[] block, long payloadBytes) {
            NodeCounters.add(block, Counter.ROUND_TRIPS, 1);
            latency.await(payloadBytes);
        }

        private void roundTrip(long payloadBytes) {
            roundTrip(counters.threadBlock(), payloadBytes);
        }

        @Override
        public void register(MessageKind kind, MessageCodec codec, MessageHandler handler) {
            messages.register(kind, codec, handler);
        }

        private PendingReply deliver(int toNode, MessageKind kind, Object request) {
            if (toNode == nodeId) {
                throw new IllegalArgumentException("message to self: node=" + nodeId + " kind=" + kind);
            }
            LocalEndpoint receiver = (LocalEndpoint) endpoint(toNode);
            // The handler runs as both nodes': fencing either waits for it, and refuses it once fenced. (A
            // request the receiver keeps and answers later grants through postFor/remoteFaaFor.)
            int s = enter();
            try {
                int m = receiver.enter();
                try {
                    counters.increment(Counter.MESSAGES_SENT);
                    MessageInterceptor faults = interceptor;
                    MessageInterceptor.Fate fate = faults == null ? MessageInterceptor.Fate.DELIVER
                        : faults.fate(nodeId, toNode, kind, request);
                    LocalReply reply = new LocalReply(receiver, serialize ? messages.codec(kind) : null);
                    if (fate == MessageInterceptor.Fate.LOSE_REQUEST) {
                        reply.reply(MessageLost.REPLY);
                        return reply;
                    }
                    MessageHandler handler = receiver.messages.handler(kind);
                    Object delivered = serialize ? copyThrough(receiver.messages.codec(kind), request) : request;
                    receiver.counters.increment(Counter.MESSAGES_RECEIVED);
                    if (fate == MessageInterceptor.Fate.DUPLICATE) {
                        handler.onMessage(nodeId, delivered, ignored -> false); // the first copy's reply is lost
                        receiver.counters.increment(Counter.MESSAGES_RECEIVED);
                    }
                    if (fate == MessageInterceptor.Fate.LOSE_REPLY) {
                        handler.onMessage(nodeId, delivered, ignored -> false);
                        reply.reply(MessageLost.REPLY);
                        return reply;
                    }
                    handler.onMessage(nodeId, delivered, reply);
                    if (!reply.isDone()) {
                        receiver.outstanding.add(reply); // kept pending: failed if the receiver is fenced first
                        if (reply.isDone() || receiver.fenced) {
                            receiver.outstanding.remove(reply);
                            reply.failIfOpen();
                        }
                    }
                    return reply;
                } finally {
                    receiver.exit(m);
                }
            } finally {
                exit(s);
            }
        }

        @Override
        public PendingReply send(int toNode, MessageKind kind, Object request) {
            PendingReply reply = deliver(toNode, kind, request);
            roundTrip(0);
            return reply;
        }

        @Override
        public void sendAll(int[] toNodes, int count, MessageKind kind, Object[] requests, PendingReply[] replies) {
            for (int i = 0; i < count; i++) {
                replies[i] = deliver(toNodes[i], kind, requests[i]);
            }
            if (count > 0) {
                roundTrip(0);
            }
        }

        @Override
        public long roundTripNanos() {
            return latency.rttNanos();
        }
    }

    /** A message through its codec and back, as it would cross a process boundary. */
    private static Object copyThrough(MessageCodec codec, Object message) {
        WireWriter out = new WireWriter();
        codec.encode(message, out);
        WireReader in = new WireReader(out.array(), 0, out.size());
        Object copy = codec.decode(in);
        in.expectEnd("message " + copy.getClass().getSimpleName());
        return copy;
    }

    /**
     * A request's one reply: the receiver completes it (on any thread), the sender waits on it. A receiver
     * fenced before answering fails it, so its sender does not wait for ever.
     */
    private static final class LocalReply implements PendingReply, ReplyHandle {
        private static final java.lang.invoke.VarHandle VALUE;

        static {
            try {
                VALUE = java.lang.invoke.MethodHandles.lookup().findVarHandle(LocalReply.class, "value", Object.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final LocalEndpoint receiver;
        /** Non-null when replies cross their codec (see {@link #serializeMessages}). */
        private final MessageCodec codec;
        private final Thread waiter = Thread.currentThread();
        @SuppressWarnings("unused") // through VALUE
        private volatile Object value;

        LocalReply(LocalEndpoint receiver, MessageCodec codec) {
            this.receiver = receiver;
            this.codec = codec;
        }

        @Override
        public boolean reply(Object reply) {
            if (reply == null) {
                throw new IllegalArgumentException("a reply must not be null");
            }
            Object carried = codec == null || reply == MessageLost.REPLY ? reply : copyThrough(codec, reply);
            if (!VALUE.compareAndSet(this, null, carried)) {
                return false;
            }
            receiver.outstanding.remove(this);
            java.util.concurrent.locks.LockSupport.unpark(waiter);
            return true;
        }

        void failIfOpen() {
            if (VALUE.compareAndSet(this, null, new NodeFailedException(receiver.nodeId,
                "compute node " + receiver.nodeId + " was fenced before it answered"))) {
                java.util.concurrent.locks.LockSupport.unpark(waiter);
            }
        }

        @Override
        public boolean isDone() {
            return value != null;
        }

        @Override
        public Object await(long nanos) {
            long deadline = System.nanoTime() + nanos;
            boolean interrupted = false; // kept for the caller: a set flag would make every park return at once
            try {
                while (true) {
                    Object v = value;
                    if (v != null) {
                        if (v instanceof NodeFailedException failed) {
                            throw new NodeFailedException(failed.node(), failed.getMessage());
                        }
                        return v;
                    }
                    long left = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(this, left);
                    interrupted |= Thread.interrupted();
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
