package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.selcc.fabric.Counter;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.MessageHandler;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.MessageRegistry;
import io.selcc.fabric.NodeCounters;
import io.selcc.fabric.ReplyHandle;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A compute node's listening side: takes MESSAGE frames from other compute nodes and runs the handler
 * of their kind on this node's handler threads (never on the event loop: a 2PC handler waits for its
 * branch). The handler answers through a {@link ReplyHandle} that writes the MESSAGE_REPLY on the
 * connection the request came on, at once or later.
 *
 * <p>A connection that is lost is <em>retired</em>: its requests' {@link ReplyHandle#whenLost} actions
 * run (and are waited for), and replies to them are no longer written. A HELLO from a node that still
 * has an older connection here retires the older one before it is answered, so a sender that reconnected
 * after a loss ({@code TcpFabric}'s {@code reconnect}) knows that nothing here acts on a request of the
 * lost connection any more, even when this side had not noticed the loss yet.
 */
final class ComputeNodeServer {
    private static final System.Logger LOG = System.getLogger(ComputeNodeServer.class.getName());

    private final int nodeId;
    private final NodeCounters counters;
    private final Channel server;
    private final ExecutorService handlerThreads;
    private final MessageRegistry messages;
    private final HandOffs handOffs;
    private volatile boolean fenced;
    /** The connections other compute nodes opened to this one: closed with it, so each of them learns at once. */
    private final io.netty.channel.group.ChannelGroup connections =
        new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
    /** The connections that said HELLO and are not retired: at most one per sending node once its HELLO is answered. */
    private final java.util.Set<Inbound> greeted = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** HELLOs answered only after an older connection from the same node was retired (a test waits for one). */
    final java.util.concurrent.atomic.AtomicInteger hellosHeld = new java.util.concurrent.atomic.AtomicInteger();

    ComputeNodeServer(int nodeId, NodeCounters counters, InetSocketAddress listen, EventLoopGroup loops, HandOffs handOffs) {
        this.nodeId = nodeId;
        this.handOffs = handOffs;
        this.counters = counters;
        this.messages = new MessageRegistry(nodeId);
        this.handlerThreads = Executors.newCachedThreadPool(EventLoops.daemonThreads("selcc-node-" + nodeId + "-handler"));
        try {
            this.server = EventLoops.listen(loops, listen, Inbound::new, true);
        } catch (RuntimeException e) {
            handlerThreads.shutdownNow();
            throw new IllegalStateException("compute node " + nodeId + ": " + e.getMessage(), e);
        }
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    void register(MessageKind kind, MessageCodec codec, MessageHandler handler) {
        messages.register(kind, codec, handler);
    }

    MessageCodec codec(MessageKind kind) {
        return messages.codec(kind);
    }

    void fence() {
        fenced = true;
    }

    void close() {
        server.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        handlerThreads.shutdownNow();
    }

    private final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
        private volatile int peer = -1;
        /** This connection's requests of in-order kinds, one at a time on the handler threads. */
        private final SerialLane lane = new SerialLane(handlerThreads);
        /** Every frame this connection sends (handler threads write replies to the socket themselves). */
        private Outbox outbox;
        private Channel channel;
        /** Set once the connection is retired (under this): no reply is written on it any more. */
        private volatile boolean lost;
        /** Unanswered requests that asked to hear of a loss ({@link ReplyHandle#whenLost}); guarded by this. */
        private final java.util.Set<Reply> watching = new java.util.HashSet<>();
        /** Counted down once a retirement has run every lost action. */
        private final java.util.concurrent.CountDownLatch retired = new java.util.concurrent.CountDownLatch(1);

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            connections.add(channel);
            outbox = new Outbox(channel, handOffs, why -> LOG.log(System.Logger.Level.WARNING, "compute node " + nodeId
                + " lost the connection from " + channel.remoteAddress() + ": " + why));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            outbox.discard();
            try {
                handlerThreads.execute(this::retire); // lost actions may wait for a serve under way: not on the loop
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                // the node is closing: nothing is served any more anyway
            }
            ctx.fireChannelInactive();
        }

        /**
         * Gives the connection up: closes it (no request is read from it any more), and runs the lost actions
         * of its unanswered requests, waiting for them; a request of it whose handler has not run yet finds
         * the connection lost when it asks ({@link Reply#whenLost}). Returns once that is done, also to a
         * second caller while the first is still at it.
         */
        void retire() {
            java.util.List<Reply> orphans;
            synchronized (this) {
                if (lost) {
                    orphans = null;
                } else {
                    lost = true;
                    orphans = new java.util.ArrayList<>(watching);
                    watching.clear();
                }
            }
            if (orphans == null) {
                awaitRetired();
                return;
            }
            try {
                channel.close();
                for (Reply orphan : orphans) {
                    try {
                        orphan.onLost.run();
                    } catch (RuntimeException | Error e) {
                        LOG.log(System.Logger.Level.ERROR, "compute node " + nodeId + ": a lost request's action failed", e);
                    }
                }
            } finally {
                retired.countDown();
                // Only now: a HELLO from the same node meanwhile must find this connection and wait for its
                // retirement (found in the serving case of LostConnectionTest: it answered at once).
                greeted.remove(this);
            }
        }

        private void awaitRetired() {
            boolean interrupted = false;
            while (true) {
                try {
                    retired.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        /** Answers HELLO once every older connection from the same node is retired (see the class comment). */
        private void greet(long id) {
            java.util.List<Inbound> older = new java.util.ArrayList<>();
            for (Inbound other : greeted) {
                if (other != this && other.peer == peer) {
                    older.add(other);
                }
            }
            greeted.add(this);
            if (older.isEmpty()) {
                helloOk(id);
                return;
            }
            hellosHeld.incrementAndGet();
            handlerThreads.execute(() -> {
                for (Inbound other : older) {
                    other.retire();
                }
                helloOk(id);
            });
        }

        private void helloOk(long id) {
            ByteBuf out = channel.alloc().buffer(32);
            int at = Frame.start(out, Frame.HELLO_OK, id);
            out.writeByte(Frame.ROLE_COMPUTE).writeLong(0);
            Frame.finish(out, at);
            outbox.send(out);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
            if (in.readableBytes() < Frame.HEADER_AFTER_LENGTH) {
                refuse(ctx, "a frame shorter than its header (" + in.readableBytes() + " bytes)");
                return;
            }
            int version = in.readUnsignedByte();
            int type = in.readUnsignedByte();
            long id = in.readLong();
            if (version != Frame.VERSION) {
                refuse(ctx, "protocol version " + version + ", compute node " + nodeId + " speaks " + Frame.VERSION);
                return;
            }
            if (type == Frame.HELLO) {
                if (in.readableBytes() < 5) {
                    refuse(ctx, "a truncated HELLO");
                    return;
                }
                in.readUnsignedByte();
                int from = in.readInt();
                if (peer >= 0 || from < 0 || from >= io.selcc.fabric.Fabric.MAX_COMPUTE_NODES) {
                    refuse(ctx, peer >= 0 ? "a second HELLO" : "HELLO from no such compute node: " + from);
                    return;
                }
                peer = from;
                greet(id);
                return;
            }
            if (type != Frame.MESSAGE || peer < 0) {
                refuse(ctx, (peer < 0 ? "a frame before HELLO: " : "a compute node takes no ") + Frame.typeName(type));
                return;
            }
            if (fenced) {
                error(outbox, id, Frame.ERROR_FENCED, nodeId, "compute node " + nodeId + " is fenced");
                return;
            }
            MessageKind[] kinds = MessageKind.values();
            int kindOrdinal = in.isReadable() ? in.readUnsignedByte() : -1;
            MessageKind kind = kindOrdinal >= 0 && kindOrdinal < kinds.length ? kinds[kindOrdinal] : null;
            MessageHandler handler = kind == null ? null : messages.handlerOrNull(kind);
            if (handler == null) {
                error(outbox, id, kind == null ? Frame.ERROR_BAD_REQUEST : Frame.ERROR_NO_HANDLER, nodeId,
                    "compute node " + nodeId + " has no handler for message kind "
                        + (kind == null ? String.valueOf(kindOrdinal) : kind.name()));
                return;
            }
            byte[] payload = new byte[in.readableBytes()];
            in.readBytes(payload);
            counters.increment(Counter.MESSAGES_RECEIVED);
            int from = peer;
            Outbox channel = outbox;
            Runnable task = () -> handle(channel, id, from, kind, handler, payload);
            handOffs.handlerTask();
            if (kind.inSenderOrder()) {
                lane.execute(task); // a cancel must not overtake the invalidation it cancels
            } else {
                handlerThreads.execute(task);
            }
        }

        private void handle(Outbox channel, long id, int from, MessageKind kind, MessageHandler handler, byte[] payload) {
            MessageCodec codec = codec(kind);
            Object request;
            try {
                WireReader reader = new WireReader(payload);
                request = codec.decode(reader);
                reader.expectEnd(kind + " message");
            } catch (MalformedMessageException e) {
                LOG.log(System.Logger.Level.WARNING, "malformed " + kind + " message from compute node " + from + ": " + e.getMessage());
                error(channel, id, Frame.ERROR_BAD_REQUEST, -1, "malformed " + kind + " message: " + e.getMessage());
                return;
            }
            Reply reply = new Reply(channel, id, kind, codec);
            try {
                handler.onMessage(from, request, reply);
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.ERROR, "the " + kind + " handler of compute node " + nodeId + " failed", e);
                if (reply.answered.compareAndSet(false, true) && reply.forget()) {
                    error(channel, id, Frame.ERROR_FAILED, -1, "the " + kind + " handler of compute node " + nodeId
                        + " failed: " + e);
                }
            }
        }

        /** The reply handle of one request on this connection. */
        private final class Reply implements ReplyHandle {
            private final Outbox to;
            private final long id;
            private final MessageKind kind;
            private final MessageCodec codec;
            final AtomicBoolean answered = new AtomicBoolean();
            /**
             * Set by {@link #whenLost} (before it joins {@link Inbound#watching}), before the handler hands the
             * request to whichever thread answers it, so that thread sees it.
             */
            volatile Runnable onLost;

            Reply(Outbox to, long id, MessageKind kind, MessageCodec codec) {
                this.to = to;
                this.id = id;
                this.kind = kind;
                this.codec = codec;
            }

            @Override
            public boolean reply(Object answer) {
                if (answer == null) {
                    throw new IllegalArgumentException("a reply must not be null");
                }
                // Encoded before it counts as the answer: a reply that cannot be sent becomes an ERROR, not silence.
                WireWriter body = new WireWriter();
                String unsendable = null;
                try {
                    codec.encode(answer, body);
                    if (body.size() > Frame.MAX_LENGTH - Frame.HEADER_AFTER_LENGTH) {
                        unsendable = "a " + kind + " reply of " + body.size() + " bytes is over the frame limit";
                    }
                } catch (RuntimeException e) {
                    unsendable = "the " + kind + " reply cannot be encoded: " + e;
                }
                if (!answered.compareAndSet(false, true)) {
                    return false;
                }
                if (!forget()) {
                    return true; // the connection is retired: nobody reads it
                }
                if (unsendable != null) {
                    LOG.log(System.Logger.Level.ERROR, "compute node " + nodeId + ": " + unsendable);
                    error(to, id, Frame.ERROR_FAILED, -1, unsendable);
                    return true;
                }
                ByteBuf out = to.alloc().buffer(Frame.LENGTH_FIELD + Frame.HEADER_AFTER_LENGTH + body.size());
                int at = Frame.start(out, Frame.MESSAGE_REPLY, id);
                out.writeBytes(body.array(), 0, body.size());
                Frame.finish(out, at);
                to.send(out);
                return true;
            }

            @Override
            public void whenLost(Runnable abandon) {
                java.util.Objects.requireNonNull(abandon, "abandon");
                synchronized (Inbound.this) {
                    if (!lost) {
                        onLost = abandon;
                        watching.add(this);
                        return;
                    }
                }
                abandon.run(); // lost before its handler got here: it must not act on the request
            }

            /** Stops watching for a loss (answered); false if the connection is retired. */
            boolean forget() {
                if (onLost == null) {
                    return !lost; // never watched: no lock on the path of replies that did not ask
                }
                synchronized (Inbound.this) {
                    if (onLost != null) {
                        watching.remove(this);
                    }
                    return !lost;
                }
            }
        }

        private void refuse(ChannelHandlerContext ctx, String reason) {
            LOG.log(System.Logger.Level.WARNING, "compute node " + nodeId + " closes the connection from "
                + ctx.channel().remoteAddress() + ": " + reason);
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            refuse(ctx, cause.toString());
        }
    }

    private static void error(Outbox channel, long id, int code, int node, String reason) {
        channel.send(Frame.error(channel.alloc(), id, code, node, reason));
    }
}
