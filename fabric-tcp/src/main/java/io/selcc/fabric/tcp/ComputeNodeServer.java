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
        private int peer = -1;
        /** This connection's requests of in-order kinds, one at a time on the handler threads. */
        private final SerialLane lane = new SerialLane(handlerThreads);
        /** Every frame this connection sends (handler threads write replies to the socket themselves). */
        private Outbox outbox;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            Channel channel = ctx.channel();
            connections.add(channel);
            outbox = new Outbox(channel, handOffs, why -> LOG.log(System.Logger.Level.WARNING, "compute node " + nodeId
                + " lost the connection from " + channel.remoteAddress() + ": " + why));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            outbox.discard();
            ctx.fireChannelInactive();
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
                ByteBuf out = ctx.alloc().buffer(32);
                int at = Frame.start(out, Frame.HELLO_OK, id);
                out.writeByte(Frame.ROLE_COMPUTE).writeLong(0);
                Frame.finish(out, at);
                outbox.send(out);
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
            AtomicBoolean answered = new AtomicBoolean();
            ReplyHandle reply = answer -> {
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
                if (unsendable != null) {
                    LOG.log(System.Logger.Level.ERROR, "compute node " + nodeId + ": " + unsendable);
                    error(channel, id, Frame.ERROR_FAILED, -1, unsendable);
                    return true;
                }
                ByteBuf out = channel.alloc().buffer(Frame.LENGTH_FIELD + Frame.HEADER_AFTER_LENGTH + body.size());
                int at = Frame.start(out, Frame.MESSAGE_REPLY, id);
                out.writeBytes(body.array(), 0, body.size());
                Frame.finish(out, at);
                channel.send(out);
                return true;
            };
            try {
                handler.onMessage(from, request, reply);
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.ERROR, "the " + kind + " handler of compute node " + nodeId + " failed", e);
                if (answered.compareAndSet(false, true)) {
                    error(channel, id, Frame.ERROR_FAILED, -1, "the " + kind + " handler of compute node " + nodeId
                        + " failed: " + e);
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
