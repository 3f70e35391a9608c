package io.selcc.fabric.tcp;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Netty event loops on the NIO transport, with named daemon threads. */
final class EventLoops {
    private EventLoops() {
    }

    static EventLoopGroup create(String name, int threads) {
        AtomicInteger number = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, name + "-" + number.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        return new MultiThreadIoEventLoopGroup(threads, factory, NioIoHandler.newFactory());
    }
}
