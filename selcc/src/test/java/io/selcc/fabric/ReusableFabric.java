package io.selcc.fabric;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * For tests that look at what a closed cluster left in memory: a fabric whose memory outlives the
 * clusters built on it, as memory-node processes outlive a compute node's process. {@link #close} leaves
 * the delegate open (the test closes it), and each endpoint takes a later cluster's message handlers in
 * place of an earlier one's (the delegate takes one handler per node and kind).
 */
public final class ReusableFabric implements Fabric {
    private final Fabric delegate;
    private final Map<String, AtomicReference<MessageHandler>> handlers = new ConcurrentHashMap<>();

    public ReusableFabric(Fabric delegate) {
        this.delegate = delegate;
    }

    @Override
    public int memoryNodeCount() {
        return delegate.memoryNodeCount();
    }

    @Override
    public long memoryNodeCapacity(int memoryNode) {
        return delegate.memoryNodeCapacity(memoryNode);
    }

    @Override
    public int computeNodeCount() {
        return delegate.computeNodeCount();
    }

    @Override
    public boolean hosts(int computeNode) {
        return delegate.hosts(computeNode);
    }

    @Override
    public void fence(int computeNode) {
        delegate.fence(computeNode);
    }

    @Override
    public boolean fenced(int computeNode) {
        return delegate.fenced(computeNode);
    }

    /** Leaves the memory as the closing cluster left it. */
    @Override
    public void close() {
    }

    @Override
    public FabricEndpoint endpoint(int computeNode) {
        FabricEndpoint e = delegate.endpoint(computeNode);
        return new FabricEndpoint() {
            @Override
            public int nodeId() {
                return e.nodeId();
            }

            @Override
            public NodeCounters counters() {
                return e.counters();
            }

            @Override
            public void remoteRead(long address, MemorySegment dst, long dstOffset, int length) {
                e.remoteRead(address, dst, dstOffset, length);
            }

            @Override
            public void remoteWrite(long address, MemorySegment src, long srcOffset, int length) {
                e.remoteWrite(address, src, srcOffset, length);
            }

            @Override
            public long remoteCas(long address, long expected, long update) {
                return e.remoteCas(address, expected, update);
            }

            @Override
            public long remoteFaa(long address, long delta) {
                return e.remoteFaa(address, delta);
            }

            @Override
            public void post(VerbBatch batch) {
                e.post(batch);
            }

            @Override
            public PendingVerbs postAsync(VerbBatch batch) {
                return e.postAsync(batch);
            }

            @Override
            public void postFor(int beneficiary, VerbBatch batch) {
                e.postFor(beneficiary, batch);
            }

            @Override
            public long remoteFaaFor(int beneficiary, long address, long delta) {
                return e.remoteFaaFor(beneficiary, address, delta);
            }

            @Override
            public void register(MessageKind kind, MessageCodec codec, MessageHandler handler) {
                AtomicReference<MessageHandler> current = handlers.computeIfAbsent(computeNode + "/" + kind, k -> {
                    AtomicReference<MessageHandler> ref = new AtomicReference<>();
                    e.register(kind, codec, (from, request, reply) -> ref.get().onMessage(from, request, reply));
                    return ref;
                });
                current.set(handler);
            }

            @Override
            public PendingReply send(int toNode, MessageKind kind, Object request) {
                return e.send(toNode, kind, request);
            }

            @Override
            public void sendAll(int[] toNodes, int count, MessageKind kind, Object[] requests, PendingReply[] replies) {
                e.sendAll(toNodes, count, kind, requests, replies);
            }

            @Override
            public long roundTripNanos() {
                return e.roundTripNanos();
            }

            @Override
            public boolean reconnect(int toNode) {
                return e.reconnect(toNode);
            }

            @Override
            public boolean connectionsCanDrop() {
                return e.connectionsCanDrop();
            }
        };
    }
}
