package io.selcc.fabric.tcp;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.net.InetSocketAddress;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** Netty event loops on the NIO transport, with named daemon threads, and the servers' listening sockets. */
final class EventLoops {
    private EventLoops() {
    }

    static EventLoopGroup create(String name, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, daemonThreads(name), NioIoHandler.newFactory());
    }

    /** Daemon threads named {@code name-1}, {@code name-2}, ... */
    static ThreadFactory daemonThreads(String name) {
        AtomicInteger number = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + number.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Listens on {@code address} with each connection cutting frames and handing them to a fresh
     * {@code handler}. Throws IllegalStateException naming the address if it cannot be bound.
     */
    static Channel listen(EventLoopGroup loops, InetSocketAddress address, Supplier<ChannelHandler> handler) {
        return listen(loops, address, handler, false);
    }

    /**
     * As {@link #listen(EventLoopGroup, InetSocketAddress, Supplier)}; with {@code direct}, accepted
     * connections are {@link Outbox.Direct} channels (threads other than the loop write through an {@link Outbox}).
     */
    static Channel listen(EventLoopGroup loops, InetSocketAddress address, Supplier<ChannelHandler> handler, boolean direct) {
        InetSocketAddress bindTo = address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort())
            : address;
        try {
            ServerBootstrap bootstrap = new ServerBootstrap().group(loops);
            if (direct) {
                bootstrap.channelFactory(Outbox.DirectServer.FACTORY);
            } else {
                bootstrap.channel(NioServerSocketChannel.class);
            }
            return bootstrap
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new FrameDecoder(), handler.get());
                    }
                })
                .bind(bindTo).syncUninterruptibly().channel();
        } catch (Exception e) { // Netty rethrows the bind's checked exception unchecked
            throw new IllegalStateException("cannot listen on " + address.getHostString() + ":" + address.getPort() + ": "
                + e.getMessage(), e);
        }
    }
}
