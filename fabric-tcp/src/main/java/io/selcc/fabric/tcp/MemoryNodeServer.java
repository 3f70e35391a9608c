package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.selcc.fabric.Fabric;
import io.selcc.fabric.OffHeap;
import io.selcc.fabric.VerbBatch;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A memory node as a process: passive bytes answering one-sided verbs from compute nodes over TCP.
 * It runs no protocol logic. A batch executes its verbs in order; CAS and FAA are atomic on their
 * 8-byte word against every other connection's, as an RDMA NIC's atomics are; READ and WRITE are plain
 * copies. A batch is checked whole before any verb runs: one bad address refuses it with an ERROR reply
 * and nothing happens.
 *
 * <p>Fencing ({@code FENCE n}): once the FENCE_OK is sent, no verb issued by compute node n, or on its
 * behalf, takes effect any more. Each batch marks its issuer (and beneficiary) in flight before it
 * reads the fence flags; the fence sets the flag and waits for the marks to drop (the in-JVM fabric's
 * argument, over the same two volatile accesses).
 */
public final class MemoryNodeServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(MemoryNodeServer.class.getName());
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory;
    private final EventLoopGroup loops;
    private final Channel server;
    private final AtomicIntegerArray fenced = new AtomicIntegerArray(Fabric.MAX_COMPUTE_NODES);
    private final AtomicIntegerArray inFlight = new AtomicIntegerArray(Fabric.MAX_COMPUTE_NODES);
    private final CountDownLatch closed = new CountDownLatch(1);
    private final HandOffs handOffs = new HandOffs();

    private MemoryNodeServer(InetSocketAddress listen, long bytes, int threads) throws InterruptedException {
        if (bytes < 4096 || bytes % 8 != 0) {
            throw new IllegalArgumentException("memory node size must be a multiple of 8 of at least 4096 bytes: " + bytes);
        }
        this.memory = OffHeap.zeroed(arena, bytes, 4096);
        this.loops = EventLoops.create("selcc-memory-node", threads);
        try {
            this.server = EventLoops.listen(loops, listen, Connection::new);
        } catch (RuntimeException e) {
            loops.shutdownGracefully();
            arena.close();
            throw e;
        }
    }

    /**
     * Listens on {@code listen} (port 0: any free port) with {@code bytes} of zeroed memory.
     * Throws if the address cannot be bound (in use, not local).
     */
    public static MemoryNodeServer start(InetSocketAddress listen, long bytes) throws InterruptedException {
        return new MemoryNodeServer(listen, bytes, Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** Where it listens (the port it was given if it asked for 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Thread hand-offs and flushes of this memory node (it runs every verb on the loop that read it). */
    public HandOffs handOffs() {
        return handOffs;
    }

    public long size() {
        return memory.byteSize();
    }

    /** Blocks until {@link #close} (from another thread or a shutdown hook). */
    public void awaitClose() throws InterruptedException {
        closed.await();
    }

    private final java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // a shutdown hook and a parent's exit may both close it
        }
        server.close().syncUninterruptibly();
        loops.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        arena.close();
        closed.countDown();
    }

    /** One compute process's connection: answers its frames in the order they come. */
    private final class Connection extends SimpleChannelInboundHandler<ByteBuf> {
        private boolean greeted;
        /** VERBS_OK replies written since the last flush: one flush per read of the socket answers them all. */
        private boolean unflushed;
        /**
         * A reply this large is flushed at once: coalescing saves a write per small reply, and a read of the
         * socket may hold several multi-MiB READ batches whose replies should not pile up unsent.
         */
        private static final int FLUSH_AT = 64 << 10;

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (unflushed) {
                unflushed = false;
                handOffs.flush();
                ctx.flush();
            }
            ctx.fireChannelReadComplete();
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
                refuse(ctx, "protocol version " + version + ", this memory node speaks " + Frame.VERSION);
                return;
            }
            if (!greeted && type != Frame.HELLO) {
                refuse(ctx, Frame.typeName(type) + " before HELLO");
                return;
            }
            switch (type) {
                case Frame.HELLO -> {
                    greeted = true;
                    ByteBuf out = ctx.alloc().buffer(32);
                    int at = Frame.start(out, Frame.HELLO_OK, id);
                    out.writeByte(Frame.ROLE_MEMORY).writeLong(memory.byteSize());
                    Frame.finish(out, at);
                    ctx.writeAndFlush(out);
                }
                case Frame.VERBS -> verbs(ctx, id, in);
                case Frame.FENCE -> fence(ctx, id, in);
                default -> refuse(ctx, "a memory node takes no " + Frame.typeName(type) + " frame");
            }
        }

        private void verbs(ChannelHandlerContext ctx, long id, ByteBuf in) {
            int issuer;
            int beneficiary;
            int count;
            String bad;
            try {
                issuer = in.readInt();
                beneficiary = in.readInt();
                count = in.readInt();
                bad = check(in.duplicate(), issuer, beneficiary, count);
            } catch (IndexOutOfBoundsException e) {
                bad = "truncated VERBS frame";
                issuer = -1;
                beneficiary = -1;
                count = 0;
            }
            if (bad != null) {
                error(ctx, id, Frame.ERROR_BAD_REQUEST, -1, bad);
                return;
            }
            inFlight.incrementAndGet(issuer);
            if (beneficiary >= 0) {
                inFlight.incrementAndGet(beneficiary);
            }
            try {
                int fencedNode = fenced.get(issuer) != 0 ? issuer : beneficiary >= 0 && fenced.get(beneficiary) != 0 ? beneficiary : -1;
                if (fencedNode >= 0) {
                    error(ctx, id, Frame.ERROR_FENCED, fencedNode, "compute node " + fencedNode + " is fenced off this memory node");
                    return;
                }
                ByteBuf out = ctx.alloc().buffer(64);
                try {
                    int at = Frame.start(out, Frame.VERBS_OK, id);
                    execute(in, count, out);
                    Frame.finish(out, at);
                } catch (RuntimeException e) { // checked up front: a bug if it happens
                    out.release();
                    throw e;
                }
                if (out.readableBytes() >= FLUSH_AT) {
                    unflushed = false;
                    handOffs.flush();
                    ctx.writeAndFlush(out, ctx.voidPromise());
                } else {
                    ctx.write(out, ctx.voidPromise());
                    unflushed = true;
                }
            } finally {
                inFlight.decrementAndGet(issuer);
                if (beneficiary >= 0) {
                    inFlight.decrementAndGet(beneficiary);
                }
            }
        }

        /** Null if every verb is well-formed and inside this memory node; else what is wrong. */
        private String check(ByteBuf in, int issuer, int beneficiary, int count) {
            if (issuer < 0 || issuer >= Fabric.MAX_COMPUTE_NODES) {
                return "no such compute node: issuer=" + issuer;
            }
            if (beneficiary < -1 || beneficiary >= Fabric.MAX_COMPUTE_NODES) {
                return "no such compute node: beneficiary=" + beneficiary;
            }
            if (count < 0) {
                return "negative verb count " + count;
            }
            VerbBatch.Kind[] kinds = VerbBatch.Kind.values();
            long replyBytes = 0;
            for (int i = 0; i < count; i++) {
                int kind = in.readUnsignedByte();
                if (kind >= kinds.length) {
                    return "verb " + i + ": unknown kind " + kind;
                }
                long offset = io.selcc.fabric.GlobalAddress.offset(in.readLong());
                long length;
                switch (kinds[kind]) {
                    case READ -> length = in.readInt();
                    case WRITE -> {
                        length = in.readInt();
                        if (length < 0 || length > in.readableBytes()) {
                            return "verb " + i + ": WRITE of " + length + " bytes with " + in.readableBytes() + " in the frame";
                        }
                        in.skipBytes((int) length);
                    }
                    case CAS -> {
                        in.skipBytes(16);
                        length = 8;
                    }
                    default -> {
                        in.skipBytes(8);
                        length = 8;
                    }
                }
                if (length < 0 || offset + length > memory.byteSize()) {
                    return "verb " + i + ": address out of range: offset=" + offset + " length=" + length
                        + " memoryNodeBytes=" + memory.byteSize();
                }
                if (length == 8 && kind >= VerbBatch.Kind.CAS.ordinal() && (offset & 7) != 0) {
                    return "verb " + i + ": atomic verb on a misaligned word: offset=" + offset;
                }
                replyBytes += kinds[kind] == VerbBatch.Kind.WRITE ? 0 : length;
                if (replyBytes > Frame.MAX_LENGTH - Frame.HEADER_AFTER_LENGTH) {
                    return "the reply would be over the frame limit of " + Frame.MAX_LENGTH + " bytes (verb " + i + ")";
                }
            }
            if (in.isReadable()) {
                return in.readableBytes() + " bytes after the last verb";
            }
            return null;
        }

        private void execute(ByteBuf in, int count, ByteBuf out) {
            VerbBatch.Kind[] kinds = VerbBatch.Kind.values();
            for (int i = 0; i < count; i++) {
                VerbBatch.Kind kind = kinds[in.readUnsignedByte()];
                long offset = io.selcc.fabric.GlobalAddress.offset(in.readLong());
                switch (kind) {
                    case READ -> {
                        int length = in.readInt();
                        out.writeBytes(memory.asSlice(offset, length).asByteBuffer());
                    }
                    case WRITE -> {
                        int length = in.readInt();
                        in.readBytes(memory.asSlice(offset, length).asByteBuffer());
                        VarHandle.releaseFence();
                    }
                    case CAS -> {
                        long expected = in.readLong();
                        long update = in.readLong();
                        out.writeLong((long) WORD.compareAndExchange(memory, offset, expected, update));
                    }
                    case FAA -> out.writeLong((long) WORD.getAndAdd(memory, offset, in.readLong()));
                }
            }
        }

        private void fence(ChannelHandlerContext ctx, long id, ByteBuf in) {
            int node = in.readableBytes() >= 4 ? in.readInt() : -1;
            if (node < 0 || node >= Fabric.MAX_COMPUTE_NODES) {
                error(ctx, id, Frame.ERROR_BAD_REQUEST, -1, "FENCE of no such compute node: " + node);
                return;
            }
            fenced.set(node, 1);
            while (inFlight.get(node) != 0) {
                // A batch of that node on another event loop: bounded by its length. Event loops are
                // platform threads, and the batch never waits on a client, so spinning holds no carrier.
                Thread.onSpinWait();
            }
            LOG.log(System.Logger.Level.INFO, "compute node " + node + " fenced off memory node at " + address());
            ByteBuf out = ctx.alloc().buffer(16);
            int at = Frame.start(out, Frame.FENCE_OK, id);
            Frame.finish(out, at);
            ctx.writeAndFlush(out);
        }

        private void error(ChannelHandlerContext ctx, long id, int code, int node, String reason) {
            Frame.sendError(ctx.channel(), id, code, node, reason);
        }

        private void refuse(ChannelHandlerContext ctx, String reason) {
            LOG.log(System.Logger.Level.WARNING, "closing the connection from " + ctx.channel().remoteAddress() + ": " + reason);
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            refuse(ctx, cause.toString());
        }
    }
}
