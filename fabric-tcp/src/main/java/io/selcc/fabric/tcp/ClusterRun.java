package io.selcc.fabric.tcp;

import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.ReplyHandle;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How the compute-node processes of one run work together ({@code --cluster FILE --node ID}), over the
 * fabric's {@code CONTROL} messages. Node 0 coordinates: it waits until every other node says READY,
 * prepares the shared data, sends GO (with what the others need) and runs its own share; each other node
 * runs its share on GO and answers it, when done, with its results; node 0 gathers them into the one
 * report and then sends STOP, which each node answers once its cache is written back.
 *
 * <p>A benchmark whose nodes must all be set up before any starts has node 0 send PREPARE first, which
 * each node answers once set up.
 *
 * <p>Messages (layouts, big-endian, after a one-byte tag): 1 READY node int | 2 GO payload bytes |
 * 3 DONE payload bytes | 4 STOP | 5 ACK | 6 PREPARE payload bytes | 7 PREPARED payload bytes. Payloads
 * are the benchmark's own (see its class).
 */
public final class ClusterRun {
    /** How long node 0 waits for the others to come up, and the others for node 0. */
    public static final Duration JOIN_TIMEOUT = Duration.ofSeconds(120);

    private record Ready(int node) {
    }

    private record Go(byte[] payload) {
    }

    private record Done(byte[] payload) {
    }

    private record Prepare(byte[] payload) {
    }

    private record Prepared(byte[] payload) {
    }

    private enum Stop { STOP }

    private enum Ack { ACK }

    static final MessageCodec CODEC = new MessageCodec() {
        @Override
        public void encode(Object message, WireWriter out) {
            switch (message) {
                case Ready r -> out.putByte(1).putInt(r.node());
                case Go g -> out.putByte(2).putBytes(g.payload());
                case Done d -> out.putByte(3).putBytes(d.payload());
                case Stop s -> out.putByte(4);
                case Ack a -> out.putByte(5);
                case Prepare p -> out.putByte(6).putBytes(p.payload());
                case Prepared p -> out.putByte(7).putBytes(p.payload());
                default -> throw new IllegalArgumentException("not a control message: " + message.getClass().getName());
            }
        }

        @Override
        public Object decode(WireReader in) {
            int tag = in.getByte();
            return switch (tag) {
                case 1 -> new Ready(in.getInt());
                case 2 -> new Go(in.getBytes());
                case 3 -> new Done(in.getBytes());
                case 4 -> Stop.STOP;
                case 5 -> Ack.ACK;
                case 6 -> new Prepare(in.getBytes());
                case 7 -> new Prepared(in.getBytes());
                default -> throw new MalformedMessageException("unknown control message type " + tag);
            };
        }
    };

    private final FabricEndpoint endpoint;
    private final int computeNodes;
    private final ConcurrentHashMap<Integer, Boolean> ready = new ConcurrentHashMap<>();
    private final CompletableFuture<GoRequest> go = new CompletableFuture<>();
    private final CompletableFuture<Request> prepare = new CompletableFuture<>();
    private final CompletableFuture<ReplyHandle> stop = new CompletableFuture<>();

    private ClusterRun(FabricEndpoint endpoint, int computeNodes) {
        this.endpoint = endpoint;
        this.computeNodes = computeNodes;
        endpoint.register(MessageKind.CONTROL, CODEC, this::onMessage);
    }

    /** Joins the run as compute node {@code endpoint.nodeId()} of {@code computeNodes}. */
    public static ClusterRun join(FabricEndpoint endpoint, int computeNodes) {
        return new ClusterRun(endpoint, computeNodes);
    }

    private void onMessage(int from, Object message, ReplyHandle reply) {
        switch (message) {
            case Ready r -> {
                ready.put(r.node(), Boolean.TRUE);
                synchronized (ready) {
                    ready.notifyAll();
                }
                reply.reply(Ack.ACK);
            }
            case Go g -> {
                if (!go.complete(new GoRequest(g.payload(), reply))) {
                    reply.reply(new Done(new byte[0])); // a second GO: nothing to run
                }
            }
            case Prepare p -> {
                if (!prepare.complete(new Request(p.payload(), reply))) {
                    reply.reply(new Prepared(new byte[0])); // a second PREPARE: prepared already
                }
            }
            case Stop s -> stop.complete(reply);
            default -> throw new IllegalArgumentException("unexpected control message from node " + from + ": " + message);
        }
    }

    /** A GO this node received, and where its results go. */
    public record GoRequest(byte[] payload, ReplyHandle reply) {
        public void done(byte[] results) {
            reply.reply(new Done(results));
        }
    }

    /** A PREPARE this node received; {@link #prepared} answers it once this node is ready to run. */
    public record Request(byte[] payload, ReplyHandle reply) {
        public void prepared(byte[] answer) {
            reply.reply(new Prepared(answer));
        }
    }

    // ---------------------------------------------------------------- node 0

    /**
     * Node 0, for a benchmark that needs every node set up before any starts (TPC-C: each opens its node
     * and starts its log before the first commit): sends PREPARE with {@code payload} to every other node
     * and waits until each answered; returns their answers by node (index 0 empty).
     */
    public byte[][] prepareOthers(byte[] payload) {
        byte[][] answers = new byte[computeNodes][];
        answers[0] = new byte[0];
        for (int n = 1; n < computeNodes; n++) {
            try {
                answers[n] = ((Prepared) endpoint.call(n, MessageKind.CONTROL, new Prepare(payload))).payload();
            } catch (NodeFailedException e) {
                throw new ClusterRunException("compute node " + n + " failed while it prepared: " + e.getMessage(), e);
            }
        }
        return answers;
    }

    /** Node 0: waits until every other compute node said READY; fails naming those that did not. */
    public void awaitOthers() throws InterruptedException {
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        synchronized (ready) {
            while (ready.size() < computeNodes - 1) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    List<Integer> missing = new ArrayList<>();
                    for (int n = 1; n < computeNodes; n++) {
                        if (!ready.containsKey(n)) {
                            missing.add(n);
                        }
                    }
                    throw new ClusterRunException("compute node(s) " + missing + " did not join within " + JOIN_TIMEOUT.toSeconds()
                        + " s (started with --cluster and their --node?)");
                }
                TimeUnit.NANOSECONDS.timedWait(ready, left);
            }
        }
    }

    /** Node 0: sends GO with {@code payload} to every other node; returns their pending results. */
    public PendingReply[] go(byte[] payload) {
        int others = computeNodes - 1;
        int[] to = new int[others];
        Object[] requests = new Object[others];
        for (int i = 0; i < others; i++) {
            to[i] = i + 1;
            requests[i] = new Go(payload);
        }
        PendingReply[] replies = new PendingReply[others];
        endpoint.sendAll(to, others, MessageKind.CONTROL, requests, replies);
        return replies;
    }

    /** Node 0: the results node {@code i + 1} answered GO with. */
    public static byte[] results(PendingReply reply, int node) {
        try {
            return awaitResults(reply);
        } catch (NodeFailedException e) {
            throw new ClusterRunException("compute node " + node + " failed before it sent its results: " + e.getMessage(), e);
        }
    }

    /**
     * Node 0: the results a node answered GO with.
     *
     * @throws NodeFailedException if the node failed before it answered
     */
    public static byte[] awaitResults(PendingReply reply) {
        return ((Done) reply.await()).payload();
    }

    /** Node 0: tells every other node to write back and stop, and waits until each did. */
    public void stopOthers() {
        stopOthers(java.util.Set.of());
    }

    /** {@link #stopOthers()}, but not the nodes in {@code gone} (their processes died during the run). */
    public void stopOthers(java.util.Set<Integer> gone) {
        for (int n = 1; n < computeNodes; n++) {
            if (gone.contains(n)) {
                continue;
            }
            try {
                endpoint.call(n, MessageKind.CONTROL, Stop.STOP);
            } catch (NodeFailedException e) {
                throw new ClusterRunException("compute node " + n + " failed before it stopped: " + e.getMessage(), e);
            }
        }
    }

    // ---------------------------------------------------------------- other nodes

    /** Another node: tells node 0 it is up, retrying while node 0 is not listening yet. */
    public void sayReady() throws InterruptedException {
        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        while (true) {
            try {
                endpoint.call(0, MessageKind.CONTROL, new Ready(endpoint.nodeId()));
                return;
            } catch (NodeFailedException | NoHandlerException e) { // not listening, or not ready
                if (System.nanoTime() - deadline > 0) {
                    throw new ClusterRunException("compute node 0 did not answer within " + JOIN_TIMEOUT.toSeconds() + " s: "
                        + e.getMessage(), e);
                }
                Thread.sleep(200); // node 0 is still starting: not a synchronisation between our threads
            }
        }
    }

    /** Another node: waits for node 0's PREPARE. */
    public Request awaitPrepare() throws InterruptedException {
        return await(prepare, "PREPARE");
    }

    /** Another node: waits for node 0's GO. */
    public GoRequest awaitGo() throws InterruptedException {
        return await(go, "GO");
    }

    /** Another node: waits for node 0's STOP; returns the handle to acknowledge it with {@link #acknowledge}. */
    public ReplyHandle awaitStop() throws InterruptedException {
        return await(stop, "STOP");
    }

    public static void acknowledge(ReplyHandle stop) {
        stop.reply(Ack.ACK);
    }

    /** Waits for node 0's {@code what}, saying READY again every few seconds: a node 0 that died is noticed. */
    private <T> T await(CompletableFuture<T> future, String what) throws InterruptedException {
        while (true) {
            try {
                return future.get(HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for " + what + " failed", e.getCause());
            } catch (TimeoutException e) {
                try {
                    endpoint.call(0, MessageKind.CONTROL, new Ready(endpoint.nodeId()));
                } catch (NodeFailedException gone) {
                    throw new ClusterRunException("compute node 0 is gone while this node waited for its " + what + ": "
                        + gone.getMessage(), gone);
                }
            }
        }
    }

    private static final Duration HEARTBEAT = Duration.ofSeconds(5);

    /**
     * A compute node of the run is gone: if a memory node is lost too (its death takes the other
     * processes down with it, and whichever loss this node meets first is a race), that is the cause to
     * report. Probes each memory node with one atomic read; throws its {@code MemoryNodeFailedException}.
     */
    public static void failIfAMemoryNodeIsLost(io.selcc.cache.SelccCluster cluster, int node) {
        FabricEndpoint endpoint = cluster.fabric().endpoint(node);
        for (int memoryNode = 0; memoryNode < cluster.fabric().memoryNodeCount(); memoryNode++) {
            try {
                endpoint.remoteFaa(io.selcc.fabric.GlobalAddress.of(memoryNode, 0), 0);
            } catch (MemoryNodeFailedException lost) {
                throw lost;
            } catch (RuntimeException other) {
                return; // this node itself is fenced, say: the caller reports what it met
            }
        }
    }
}
