package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Every frame written on one connection from threads outside its event loop (issue 27). A sender
 * queues its frame; whichever sender takes the write lock writes every queued frame in one gathering
 * write on the socket itself, so a round trip does not wake the event loop to send it, and the frames
 * of several callers that queue meanwhile share one write. Only what the socket does not take at
 * once (its buffer is full) goes to the event loop, and every later frame follows it there until
 * Netty has written it all: bytes leave in queue order either way. A sender never waits for the lock
 * (try-lock): the holder writes what others queued before it lets go, and a sender that queued after
 * the holder's last look finds the lock free on its own next try.
 *
 * <p>Once a channel has an outbox, every frame on it must go through it (a write straight to the
 * channel could interleave with a direct write mid-frame).
 */
final class Outbox {
    /** Frames written together at most (an iovec count well under the kernel's limit). */
    private static final int GATHER = 64;

    private final Channel channel;
    private final SocketChannel socket;
    private final HandOffs handOffs;
    private final Consumer<String> broke;
    private final ConcurrentLinkedQueue<ByteBuf> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantLock writing = new ReentrantLock();
    /** Writes handed to the event loop and not yet done: while any is, later frames follow them there. */
    private final AtomicInteger onLoop = new AtomicInteger();
    /** Guarded by {@link #writing}. */
    private final ByteBuf[] frames = new ByteBuf[GATHER];
    private final ByteBuffer[] views = new ByteBuffer[GATHER];

    /** {@code broke} is told why, once a direct write fails (the connection is then closed). */
    Outbox(Channel channel, HandOffs handOffs, Consumer<String> broke) {
        this.channel = channel;
        this.socket = channel instanceof Direct d ? d.socket() : null;
        this.handOffs = handOffs;
        this.broke = broke;
    }

    /** Sends {@code frame} (this outbox releases it), from any thread. */
    void send(ByteBuf frame) {
        queue.add(frame);
        while (!queue.isEmpty() && writing.tryLock()) {
            try {
                writeQueued();
            } finally {
                writing.unlock();
            }
        }
    }

    io.netty.buffer.ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /** Releases frames nobody will write (the connection is closed). */
    void discard() {
        for (ByteBuf frame; (frame = queue.poll()) != null; ) {
            frame.release();
        }
    }

    private void writeQueued() {
        int n = 0;
        for (ByteBuf frame; n < GATHER && (frame = queue.poll()) != null; ) {
            frames[n++] = frame;
        }
        if (n == 0) {
            return;
        }
        handOffs.flush();
        if (socket == null || onLoop.get() > 0 || channel.eventLoop().inEventLoop()) {
            toLoop(0, n);
            return;
        }
        try {
            for (int i = 0; i < n; i++) {
                views[i] = frames[i].nioBuffer();
            }
            long written = socket.write(views, 0, n);
            int done = 0;
            while (done < n && written >= frames[done].readableBytes()) {
                written -= frames[done].readableBytes();
                frames[done].release();
                frames[done++] = null;
            }
            if (done < n) { // the socket's buffer is full: the event loop writes the rest when it drains
                frames[done].skipBytes((int) written);
                toLoop(done, n);
            }
        } catch (IOException e) {
            for (int i = 0; i < n; i++) {
                if (frames[i] != null) {
                    frames[i].release();
                }
            }
            discard();
            broke.accept(e.toString());
            channel.close();
        } finally {
            java.util.Arrays.fill(views, 0, n, null);
            java.util.Arrays.fill(frames, 0, n, null);
        }
    }

    /** Hands frames {@code from..to-1} to the event loop as one write and flush. */
    private void toLoop(int from, int to) {
        ByteBuf all;
        if (to - from == 1) {
            all = frames[from];
        } else {
            CompositeByteBuf composite = channel.alloc().compositeBuffer(to - from);
            for (int i = from; i < to; i++) {
                composite.addComponent(true, frames[i]);
            }
            all = composite;
        }
        for (int i = from; i < to; i++) {
            frames[i] = null;
        }
        if (!channel.eventLoop().inEventLoop()) {
            handOffs.loopTask();
        }
        onLoop.incrementAndGet();
        channel.writeAndFlush(all).addListener(done -> onLoop.decrementAndGet());
    }

    /** A socket channel whose socket the outbox writes to from callers' threads. */
    static final class Direct extends NioSocketChannel {
        static final ChannelFactory<Direct> CLIENT = Direct::new;

        Direct() {
        }

        Direct(Channel parent, SocketChannel socket) {
            super(parent, socket);
        }

        SocketChannel socket() {
            return javaChannel();
        }
    }

    /** A listening channel whose accepted connections are {@link Direct}. */
    static final class DirectServer extends NioServerSocketChannel {
        static final ChannelFactory<DirectServer> FACTORY = DirectServer::new;

        @Override
        protected int doReadMessages(List<Object> buf) throws Exception {
            SocketChannel accepted = javaChannel().accept();
            if (accepted == null) {
                return 0;
            }
            try {
                buf.add(new Direct(this, accepted));
                return 1;
            } catch (Throwable t) {
                try {
                    accepted.close();
                } catch (IOException ignored) {
                    // it never became a channel: nothing else to tell
                }
                throw t;
            }
        }
    }
}
