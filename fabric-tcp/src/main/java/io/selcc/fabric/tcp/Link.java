package io.selcc.fabric.tcp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * One client connection (to a memory node, or to another compute node's server): requests carry ids,
 * replies come back in any order and wake the thread waiting for them. At most {@link #MAX_IN_FLIGHT}
 * requests are outstanding; a sender beyond that waits for a slot. A lost connection fails every
 * outstanding request and every later one with the error {@code failure} makes, saying the connection
 * was lost (a fresh link may reach the same peer).
 */
final class Link {
    static final int MAX_IN_FLIGHT = 1024;
    private static final System.Logger LOG = System.getLogger(Link.class.getName());

    private final String name;
    private final Channel channel;
    private final Map<Long, Call> calls = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Semaphore slots = new Semaphore(MAX_IN_FLIGHT);
    private final Failure failure;
    private final HandOffs handOffs;
    private final Outbox outbox;
    private volatile boolean brokenByLoss; // written before brokenBecause
    private volatile String brokenBecause;
    /** Run once when the connection closes (see {@link #whenClosed}). */
    private volatile Runnable closed;
    private final java.util.concurrent.atomic.AtomicBoolean toldClosed = new java.util.concurrent.atomic.AtomicBoolean();

    /** The exception a failed call throws: why, and whether its connection was lost (not refused or silent). */
    @FunctionalInterface
    interface Failure {
        RuntimeException of(String why, boolean connectionLost);
    }

    /** A request's reply slot: the frame (type and retained body) or why there will be none. */
    static final class Call implements io.selcc.fabric.PendingReply {
        final Link link;
        final long id;
        final long sentAt = System.nanoTime();
        private final Thread waiter = Thread.currentThread();
        volatile int type;
        volatile ByteBuf body;
        volatile boolean failedByLoss; // written before failed
        volatile String failed;
        private volatile Function<ByteBuf, Object> decoder;

        Call(Link link, long id) {
            this.link = link;
            this.id = id;
        }

        void complete(int frameType, ByteBuf frameBody) {
            type = frameType;
            body = frameBody;
            link.handOffs.callerWakeUp();
            LockSupport.unpark(waiter);
        }

        void fail(String why, boolean connectionLost) {
            failedByLoss = connectionLost;
            failed = why;
            LockSupport.unpark(waiter);
        }

        @Override
        public boolean isDone() {
            return body != null || failed != null;
        }

        /** The reply frame's body (the caller releases it), waiting up to {@code nanos}; null on timeout. */
        ByteBuf awaitBody(long nanos) {
            long deadline = System.nanoTime() + nanos;
            boolean interrupted = false; // kept for the caller: a set flag would make every park return at once
            try {
                while (body == null && failed == null) {
                    long left = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    LockSupport.parkNanos(this, left);
                    interrupted |= Thread.interrupted();
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            if (failed != null && body == null) {
                throw link.failure.of(failed, failedByLoss);
            }
            return body;
        }

        /** For a message: how {@link #await} turns the reply's body into the reply (set before sending). */
        void decodeWith(Function<ByteBuf, Object> decode) {
            this.decoder = decode;
        }

        @Override
        public Object await(long nanos) {
            ByteBuf reply = awaitBody(nanos);
            if (reply == null) {
                return null;
            }
            try {
                if (type == Frame.ERROR) {
                    throw RemoteError.of(reply, link.name);
                }
                return decoder.apply(reply);
            } finally {
                reply.release();
                body = io.netty.buffer.Unpooled.EMPTY_BUFFER; // done; a second await sees an empty body
            }
        }
    }

    private Link(String name, Channel channel, Failure failure, HandOffs handOffs) {
        this.name = name;
        this.channel = channel;
        this.failure = failure;
        this.handOffs = handOffs;
        this.outbox = new Outbox(channel, handOffs, why -> broke("the connection to " + name + " failed: " + why, true));
    }

    /**
     * Connects to {@code address} and greets it with HELLO(ROLE_COMPUTE, {@code fromNode}); returns the
     * link and the peer's HELLO_OK body (role byte, capacity long) through {@code greeting}.
     */
    static Link connect(EventLoopGroup loops, InetSocketAddress address, String name, int fromNode, long timeoutNanos,
                        Failure failure, long[] greeting, HandOffs handOffs) {
        Link[] self = new Link[1];
        Channel channel;
        try {
            channel = new Bootstrap().group(loops).channelFactory(Outbox.Direct.CLIENT) // callers write to its socket themselves (Outbox)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new FrameDecoder(), new Replies(() -> self[0]));
                    }
                })
                .connect(address).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows the connect's checked exception unchecked
            throw failure.of("cannot connect to " + name + " at " + address.getHostString() + ":" + address.getPort()
                + ": " + e.getMessage(), false);
        }
        Link link = new Link(name, channel, failure, handOffs);
        self[0] = link;
        try {
            Call hello = link.send(Frame.HELLO, out -> out.writeByte(Frame.ROLE_COMPUTE).writeInt(fromNode));
            ByteBuf reply = link.await(hello, timeoutNanos, Frame.HELLO_OK);
            try {
                greeting[0] = reply.readUnsignedByte();
                greeting[1] = reply.readLong();
            } finally {
                reply.release();
            }
        } catch (RuntimeException e) {
            channel.close(); // no greeting, no link
            throw e;
        }
        return link;
    }

    String name() {
        return name;
    }

    /**
     * Runs {@code action} once the connection has closed (from the event loop; at once, here, if it has
     * already): the peer's process died, or the network or this side closed it.
     */
    void whenClosed(Runnable action) {
        closed = action;
        if (!channel.isActive()) {
            tellClosed();
        }
    }

    private void tellClosed() {
        Runnable action = closed;
        if (action != null && toldClosed.compareAndSet(false, true)) {
            action.run();
        }
    }

    boolean broken() {
        return brokenBecause != null;
    }

    /** Sends one request frame whose body {@code body} writes; returns its call to wait on. */
    Call send(int type, java.util.function.Consumer<ByteBuf> body) {
        String broken = brokenBecause;
        if (broken != null) {
            throw failure.of(broken, brokenByLoss);
        }
        slots.acquireUninterruptibly();
        long id = ids.incrementAndGet();
        Call call = new Call(this, id);
        calls.put(id, call);
        ByteBuf out = channel.alloc().buffer(64);
        try {
            int at = Frame.start(out, type, id);
            body.accept(out);
            Frame.finish(out, at);
        } catch (RuntimeException e) {
            out.release();
            calls.remove(id);
            slots.release();
            throw e;
        }
        outbox.send(out);
        if (brokenBecause != null && calls.remove(id) != null) { // broke meanwhile: nobody else will fail it
            slots.release();
            call.fail(brokenBecause, brokenByLoss);
        }
        return call;
    }

    /**
     * Waits for {@code call}'s reply of type {@code expected}; returns its body (the caller releases it).
     * An ERROR reply throws what it says; no reply within {@code timeoutNanos} throws this link's failure.
     */
    ByteBuf await(Call call, long timeoutNanos, int expected) {
        ByteBuf body = call.awaitBody(timeoutNanos);
        if (body == null) {
            if (calls.remove(call.id) != null) {
                slots.release();
            } else if (call.body != null) {
                call.body.release(); // it came just now: nobody will read it
            }
            throw failure.of("no answer from " + name + " in " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", false);
        }
        if (call.type == Frame.ERROR) {
            try {
                throw RemoteError.of(body, name);
            } finally {
                body.release();
            }
        }
        if (call.type != expected) {
            body.release();
            throw new IllegalStateException("protocol violation: " + name + " answered " + Frame.typeName(call.type)
                + " to a request expecting " + Frame.typeName(expected));
        }
        return body;
    }

    void close() {
        channel.close().syncUninterruptibly();
        outbox.discard();
    }

    /**
     * Fails every outstanding and later request with {@code why}; {@code connectionLost}: the connection
     * went (the peer may live on), not the peer (fenced).
     */
    void broke(String why, boolean connectionLost) {
        if (brokenBecause == null) {
            brokenByLoss = connectionLost;
            brokenBecause = why;
        }
        for (Long id : calls.keySet()) {
            Call call = calls.remove(id);
            if (call != null) {
                slots.release();
                call.fail(why, connectionLost);
            }
        }
    }

    /** Reads reply frames on the event loop and hands each to its waiting call. */
    private static final class Replies extends SimpleChannelInboundHandler<ByteBuf> {
        private final java.util.function.Supplier<Link> link;

        Replies(java.util.function.Supplier<Link> link) {
            super(false); // the body is handed over retained; its reader releases it
            this.link = link;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf in) {
            Link l = link.get();
            if (in.readableBytes() < Frame.HEADER_AFTER_LENGTH) {
                in.release();
                fail(ctx, l, "a frame shorter than its header");
                return;
            }
            int version = in.readUnsignedByte();
            int type = in.readUnsignedByte();
            long id = in.readLong();
            if (version != Frame.VERSION) {
                in.release();
                fail(ctx, l, "protocol version " + version + ", this node speaks " + Frame.VERSION);
                return;
            }
            Call call = l == null ? null : l.calls.remove(id);
            if (call == null) {
                in.release(); // a reply to a request that timed out
                return;
            }
            l.slots.release();
            call.complete(type, in);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Link l = link.get();
            if (l != null) {
                l.broke("the connection to " + l.name + " was lost", true);
                l.tellClosed();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx, link.get(), cause.toString());
        }

        private static void fail(ChannelHandlerContext ctx, Link l, String why) {
            String name = l == null ? String.valueOf(ctx.channel().remoteAddress()) : l.name;
            LOG.log(System.Logger.Level.WARNING, "closing the connection to " + name + ": " + why);
            if (l != null) {
                l.broke("the connection to " + name + " failed: " + why, true);
            }
            ctx.close();
        }
    }
}
