package io.selcc.fabric.tcp;

import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.GlobalAddress;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Thread hand-offs per round trip, counted exactly (issue 27). The wire's two crossings are not
 * counted; what is: a caller handing its write to an event loop, an event loop handing a message to a
 * handler thread, an event loop waking the caller. Before issue 27 a verb round trip took 1 loop task
 * and 1 wake-up, a message 2 loop tasks, 1 handler task and 1 wake-up; callers now write to the socket
 * themselves ({@link Outbox}). (Planted once: {@code Link.send} back on {@code channel.writeAndFlush}
 * fails both single-caller tests with 200 and 400 loop tasks where 0 are expected.)
 */
class HandOffsTest {
    private static final int ROUND_TRIPS = 200;
    private static final MessageCodec ECHO = new MessageCodec() {
        @Override
        public void encode(Object message, WireWriter out) {
            out.putLong((Long) message);
        }

        @Override
        public Object decode(WireReader in) {
            return in.getLong();
        }
    };

    private MemoryNodeServer memory;
    private TcpFabric fabric;

    @BeforeEach
    void start() throws InterruptedException {
        memory = MemoryNodeServer.start(new InetSocketAddress("127.0.0.1", 0), 1 << 20);
        InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
        fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(any, any)), Set.of(0, 1),
            Duration.ofSeconds(30));
        for (int node = 0; node < 2; node++) { // the sender needs the codec too
            fabric.endpoint(node).register(MessageKind.INVALIDATION, ECHO, (from, request, reply) -> reply.reply(request));
        }
    }

    @AfterEach
    void stop() {
        fabric.close();
        memory.close();
    }

    /**
     * One caller, one verb round trip after another: the caller writes its request to the socket, the
     * memory node runs the verbs on the loop that read them and flushes once, the client's loop wakes
     * the caller: one hand-off in this process, none in the memory node's.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void verbRoundTrip() {
        FabricEndpoint endpoint = fabric.endpoint(0);
        long word = GlobalAddress.of(0, 4096);
        endpoint.remoteFaa(word, 1); // the links are up and warm
        HandOffsDelta delta = new HandOffsDelta();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            endpoint.remoteFaa(word, 1);
        }
        delta.take();
        assertEquals(1 + ROUND_TRIPS, endpoint.remoteFaa(word, 0));
        assertEquals(0, delta.clientLoopTasks, "the caller writes its request itself");
        assertEquals(ROUND_TRIPS, delta.clientWakeUps, "event loop -> caller, per round trip: 1");
        assertEquals(0, delta.clientHandlerTasks);
        assertEquals(0, delta.memoryHandOffs, "the memory node runs verbs on the loop that read them");
        assertEquals(ROUND_TRIPS, delta.memoryFlushes, "one flush per request read one at a time");
    }

    /** A message between two compute nodes, answered at once by the receiver's handler. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void messageRoundTrip() {
        FabricEndpoint endpoint = fabric.endpoint(0);
        endpoint.call(1, MessageKind.INVALIDATION, 0L);
        HandOffsDelta delta = new HandOffsDelta();
        for (long i = 0; i < ROUND_TRIPS; i++) {
            assertEquals(i, endpoint.call(1, MessageKind.INVALIDATION, i));
        }
        delta.take();
        // the sender writes its request, the handler thread its reply: neither goes through a loop task
        assertEquals(0, delta.clientLoopTasks, "loop tasks per message round trip");
        assertEquals(ROUND_TRIPS, delta.clientHandlerTasks, "handler tasks per message round trip: 1");
        assertEquals(ROUND_TRIPS, delta.clientWakeUps, "caller wake-ups per message round trip: 1");
    }

    /**
     * Several callers at once: every round trip still wakes exactly its caller once, and the counts
     * stay exact; how many flushes they shared depends on timing and is printed, not asserted.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void severalCallers() throws Exception {
        int callers = 8;
        long word = GlobalAddress.of(0, 4096);
        fabric.endpoint(0).remoteFaa(word, 0);
        HandOffsDelta delta = new HandOffsDelta();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < ROUND_TRIPS; i++) {
                        fabric.endpoint(0).remoteFaa(word, 1);
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(); // a caller's failure fails the test
            }
        } finally {
            pool.shutdownNow();
        }
        delta.take();
        assertEquals((long) callers * ROUND_TRIPS, fabric.endpoint(0).remoteFaa(word, 0));
        assertEquals((long) callers * ROUND_TRIPS, delta.clientWakeUps);
        assertEquals(0, delta.memoryHandOffs);
        System.out.printf("HandOffsTest %d callers: per round trip %.3f client loop tasks, %.3f client flushes,"
                + " %.3f memory-node flushes%n", callers, delta.clientLoopTasks / (double) (callers * ROUND_TRIPS),
            delta.clientFlushes / (double) (callers * ROUND_TRIPS), delta.memoryFlushes / (double) (callers * ROUND_TRIPS));
    }

    /** Counts since construction, fixed by {@link #take}. */
    private final class HandOffsDelta {
        private final long loopTasks = fabric.handOffs().loopTasks();
        private final long handlerTasks = fabric.handOffs().handlerTasks();
        private final long wakeUps = fabric.handOffs().callerWakeUps();
        private final long flushes = fabric.handOffs().flushes();
        private final long memoryTotal = memory.handOffs().total();
        private final long memoryFlushesAtStart = memory.handOffs().flushes();
        long clientLoopTasks;
        long clientHandlerTasks;
        long clientWakeUps;
        long clientFlushes;
        long memoryHandOffs;
        long memoryFlushes;

        void take() {
            clientLoopTasks = fabric.handOffs().loopTasks() - loopTasks;
            clientHandlerTasks = fabric.handOffs().handlerTasks() - handlerTasks;
            clientWakeUps = fabric.handOffs().callerWakeUps() - wakeUps;
            clientFlushes = fabric.handOffs().flushes() - flushes;
            memoryHandOffs = memory.handOffs().total() - memoryTotal;
            memoryFlushes = memory.handOffs().flushes() - memoryFlushesAtStart;
        }
    }
}
