package io.selcc.fabric.tcp;

import io.selcc.fabric.FabricContractTest;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeFailedException;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.ReplyHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection lost between two live compute nodes, at the fabric's level: the sender's call fails saying
 * the connection was lost, {@code reconnect} returns only once the receiver has given the lost connection up
 * (the {@code whenLost} actions of the requests it kept from it have run), also when the receiver had not
 * noticed the loss (a partition only the sender saw), and a watched node whose connection drops but which a
 * fresh connection reaches is not reported lost. Planted once each: a HELLO that does not retire the
 * sender's older connections fails {@link #aReconnectRetiresTheConnectionTheReceiverStillThinksOpen} (the
 * action had not run); a closed link reported lost without trying a fresh one fails
 * {@link #aWatchedNodeWhoseConnectionDropsButWhichLivesIsNotReportedLost} (before, the watcher fenced and
 * repaired a live node).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ReconnectTest {
    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    @Test
    void aClosedConnectionAbandonsTheRequestsKeptFromItBeforeTheSenderReconnects() throws Exception {
        keptRequestIsAbandoned(true);
    }

    @Test
    void aReconnectRetiresTheConnectionTheReceiverStillThinksOpen() throws Exception {
        keptRequestIsAbandoned(false);
    }

    private static void keptRequestIsAbandoned(boolean receiverNotices) throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20);
             TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY, ANY)),
                 Set.of(0, 1), Duration.ofSeconds(30))) {
            CompletableFuture<ReplyHandle> kept = new CompletableFuture<>();
            AtomicInteger abandoned = new AtomicInteger();
            fabric.endpoint(0).register(MessageKind.INVALIDATION, FabricContractTest.STRINGS, (from, request, reply) -> reply.reply("unused"));
            fabric.endpoint(1).register(MessageKind.INVALIDATION, FabricContractTest.STRINGS, (from, request, reply) -> {
                if (request.equals("keep")) {
                    reply.whenLost(abandoned::incrementAndGet);
                    kept.complete(reply);
                } else {
                    reply.reply("echo " + request);
                }
            });
            PendingReply pending = fabric.endpoint(0).send(1, MessageKind.INVALIDATION, "keep");
            ReplyHandle handle = kept.get(30, TimeUnit.SECONDS);
            assertTrue(fabric.dropConnection(0, 1, receiverNotices), "there was a connection to drop");

            NodeFailedException e = assertThrows(NodeFailedException.class, () -> pending.await(30_000_000_000L));
            assertEquals(1, e.node());
            assertTrue(e.connectionLost(), "the call failed with its connection, not its node: " + e.getMessage());
            assertTrue(fabric.endpoint(0).reconnect(1), "node 1 lives");
            assertEquals(1, abandoned.get(), "the kept request was given up before the reconnect was accepted");
            assertTrue(handle.reply("too late"), "a reply to a lost request is taken, and goes nowhere");
            assertEquals("echo again", fabric.endpoint(0).call(1, MessageKind.INVALIDATION, "again"), "the new connection works");
            assertEquals(1, abandoned.get());
            assertFalse(fabric.fenced(1), "nobody was fenced");
        }
    }

    /**
     * The receiver noticed the loss first and its lost action is still running (a serve under way that it
     * waits for): a reconnect that comes meanwhile must wait for it too. Planted once: a retirement that
     * forgot its connection before its actions had run let the HELLO through at once.
     */
    @Test
    void aReconnectWaitsForTheLostActionsStillRunning() throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20);
             TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY, ANY)),
                 Set.of(0, 1), Duration.ofSeconds(30))) {
            CompletableFuture<ReplyHandle> kept = new CompletableFuture<>();
            java.util.concurrent.CountDownLatch actionStarted = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch finishAction = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicBoolean actionDone = new java.util.concurrent.atomic.AtomicBoolean();
            fabric.endpoint(0).register(MessageKind.INVALIDATION, FabricContractTest.STRINGS, (from, request, reply) -> reply.reply("unused"));
            fabric.endpoint(1).register(MessageKind.INVALIDATION, FabricContractTest.STRINGS, (from, request, reply) -> {
                reply.whenLost(() -> {
                    actionStarted.countDown();
                    try {
                        finishAction.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    actionDone.set(true);
                });
                kept.complete(reply);
            });
            PendingReply pending = fabric.endpoint(0).send(1, MessageKind.INVALIDATION, "keep");
            kept.get(30, TimeUnit.SECONDS);
            assertTrue(fabric.dropConnection(0, 1, true));
            actionStarted.await(); // node 1 noticed the close and is running the action
            assertThrows(NodeFailedException.class, () -> pending.await(30_000_000_000L));

            CompletableFuture<Boolean> reconnected = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> reconnected.complete(fabric.endpoint(0).reconnect(1)
                && actionDone.get())); // whether the action had returned when the reconnect did
            while (fabric.hellosHeldForRetirement(1) == 0 && !reconnected.isDone()) {
                Thread.onSpinWait();
            }
            finishAction.countDown();
            assertTrue(reconnected.get(30, TimeUnit.SECONDS), "the reconnect returned before the lost action had");
            assertEquals(1, fabric.hellosHeldForRetirement(1));
        }
    }

    @Test
    void aReconnectToAFencedOrUnreachableNodeIsRefused() throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20)) {
            InetSocketAddress nobody = new InetSocketAddress("127.0.0.1", freePort());
            try (TcpFabric fabric = TcpFabric.connect(new ClusterMap(List.of(memory.address()), List.of(ANY, nobody, ANY)),
                Set.of(0, 2), Duration.ofSeconds(10))) {
                assertFalse(fabric.endpoint(0).reconnect(1), "nothing listens for node 1");
                assertTrue(fabric.endpoint(0).reconnect(2), "node 2 lives here");
                fabric.fence(2);
                assertFalse(fabric.endpoint(0).reconnect(2), "a fenced node is failed, not reconnected");
                assertTrue(fabric.endpoint(0).connectionsCanDrop());
            }
        }
    }

    @Test
    void aWatchedNodeWhoseConnectionDropsButWhichLivesIsNotReportedLost() throws Exception {
        try (MemoryNodeServer memory = MemoryNodeServer.start(ANY, 1 << 20)) {
            ClusterMap map = new ClusterMap(List.of(memory.address()),
                List.of(new InetSocketAddress("127.0.0.1", freePort()), new InetSocketAddress("127.0.0.1", freePort())));
            TcpFabric other = TcpFabric.connect(map, Set.of(1), Duration.ofSeconds(10)); // "another process"
            try (TcpFabric here = TcpFabric.connect(map, Set.of(0), Duration.ofSeconds(10))) {
                here.endpoint(0).register(MessageKind.INVALIDATION, FabricContractTest.STRINGS, (from, request, reply) -> reply.reply("unused"));
                other.endpoint(1).register(MessageKind.INVALIDATION, FabricContractTest.STRINGS,
                    (from, request, reply) -> reply.reply("echo " + request));
                List<Integer> reported = new CopyOnWriteArrayList<>();
                here.watchComputeNodes(reported::add);
                assertTrue(here.dropConnection(0, 1, true), "the watch opened a connection");
                while (here.closedLinksChecked() == 0) {
                    Thread.onSpinWait(); // its close is looked into on a thread of its own
                }
                assertEquals(List.of(), reported, "a live node reached again is not lost");
                assertEquals("echo hi", here.endpoint(0).call(1, MessageKind.INVALIDATION, "hi"));

                other.close(); // now its "process" dies: its connections close and nothing listens any more
                while (reported.isEmpty()) {
                    Thread.onSpinWait();
                }
                assertEquals(List.of(1), reported);
            } finally {
                other.close();
            }
        }
    }

    private static int freePort() {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
