package io.selcc.cache;

import io.selcc.fabric.Fabric;
import io.selcc.fabric.FabricEndpoint;
import io.selcc.fabric.LatencyModel;
import io.selcc.fabric.LocalFabric;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.MessageHandler;
import io.selcc.fabric.MessageKind;
import io.selcc.fabric.NodeCounters;
import io.selcc.fabric.PendingReply;
import io.selcc.fabric.PendingVerbs;
import io.selcc.fabric.VerbBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A writer that crashes after its grant landed in the latch word and before its answer reached the
 * requester (a compute-node process killed in that window; TcpFabricCliTest once met "shared copy
 * without its reader bit ... readers=0x4"). The requester must settle the grant from the word once the
 * writer is fenced: a downgrade's reader bit is its shared copy (before, its next FAA of the same bit
 * carried 0x3 + 0x1 into 0x4), a handover's writer tag goes back to the crashed node for its repair
 * (before, the requester met its own tag on a line it did not hold). Both shown failing without the fix.
 */
class LostGrantTest {
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang spins in fence(): only a separate thread can fail it
    void aDowngradeThatLandedBeforeItsWriterCrashedIsTheRequestersSharedCopy() throws Exception {
        StallingFabric fabric = new StallingFabric(new LocalFabric(1, 1 << 20, 2, LatencyModel.OFF));
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64)
            .pendingWaitNanos(60_000_000_000L).fabric(fabric).build()) {
            ComputeNode survivor = cluster.node(0);
            long line = survivor.allocate();
            cluster.flushCaches();
            Holder holder = Holder.start(cluster, line);
            AtomicLong seen = new AtomicLong(-1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    GclHandle s = survivor.sLock(line); // kept pending at node 1, which holds X
                    seen.set(s.getLong(0));
                    survivor.unlock(s); // lazy: node 0 keeps the shared copy
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            crashAfterTheGrantLanded(cluster, fabric, holder, reader, line);
            reader.join();
            rethrow(failure.get(), "reader");
            assertEquals(42, seen.get(), "the downgrade wrote back before its bit was set");
            long latch = AbstractComputeNode.latchOf(line);
            assertEquals(0x3, fabric.local.endpoint(0).remoteFaa(latch, 0), "one bit each, none carried");

            assertArrayEquals(new long[0], cluster.claimLinesOf(1, 0));
            GclHandle x = survivor.xLock(line); // the upgrade: before the fix, "shared copy without its reader bit"
            assertEquals(42, x.getLong(0));
            x.putLong(0, 43);
            survivor.unlock(x);
            cluster.flushCaches();
            assertEquals(java.util.List.of(), cluster.busyLatchWords(10), "latch bits left behind");
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a hang spins in fence(): only a separate thread can fail it
    void aHandoverThatLandedBeforeItsWriterCrashedGoesBackToTheCrashedNodesRepair() throws Exception {
        StallingFabric fabric = new StallingFabric(new LocalFabric(1, 1 << 20, 2, LatencyModel.OFF));
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64)
            .pendingWaitNanos(60_000_000_000L).fabric(fabric).build()) {
            ComputeNode survivor = cluster.node(0);
            long line = survivor.allocate();
            cluster.flushCaches();
            AtomicInteger reported = new AtomicInteger();
            cluster.onPeerFailure(node -> reported.incrementAndGet());
            Holder holder = Holder.start(cluster, line);
            AtomicLong seen = new AtomicLong(-1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    GclHandle x = survivor.xLock(line); // waits until the line is repaired
                    seen.set(x.getLong(0));
                    survivor.unlock(x);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            crashAfterTheGrantLanded(cluster, fabric, holder, writer, line);
            while (reported.get() == 0 && writer.isAlive()) {
                Thread.onSpinWait(); // the requester settled the lost handover, then reported the crash
            }
            assertArrayEquals(new long[] {line}, cluster.claimLinesOf(1, 0), "the line is the crashed node's again");
            GclHandle adopted = survivor.adoptCrashedLine(line, 1);
            assertEquals(0, adopted.getLong(0), "the handed-over bytes were never written back");
            adopted.putLong(0, 44); // the repair
            survivor.unlock(adopted);
            writer.join();
            rethrow(failure.get(), "requester"); // before the fix: "latch names this node as writer ..."
            assertEquals(44, seen.get());
            cluster.flushCaches();
            assertEquals(java.util.List.of(), cluster.busyLatchWords(10), "latch bits left behind");
        }
    }

    /**
     * Starts {@code requester} once node 1 holds the line in X, lets node 1 release when the request is kept
     * pending there, and crashes node 1 after its grant (downgrade or handover) landed, before its answer.
     */
    private static void crashAfterTheGrantLanded(SelccCluster cluster, StallingFabric fabric, Holder holder,
                                                 Thread requester, long line) throws InterruptedException {
        holder.held.await();
        fabric.armed = true;
        requester.start();
        SelccNode node1 = (SelccNode) cluster.node(1);
        // Kept, and the handler that kept it returned: in this fabric it runs on the requester's thread, and
        // if it were still between keeping the request and its own look for an idle frame, it could serve
        // the grant itself and stall there, where the crash's fence waits for it (a CI run hung so).
        while (node1.cachedFrame(line).pending() == null || fabric.handlersInFlight.get() != 0) {
            Thread.onSpinWait();
        }
        holder.release.countDown(); // its release serves the kept request: the grant lands, then stalls
        fabric.landed.await();
        cluster.crash(1); // the requester's reply fails: "the process died"
        fabric.resume.countDown();
        holder.thread.join();
        rethrow(holder.failure.get(), "holder");
    }

    private static void rethrow(Throwable t, String who) {
        if (t != null) {
            throw new AssertionError(who + " failed", t);
        }
    }

    /** Node 1 takes the line in X, writes 42 (dirty, not written back) and holds it until told to release. */
    private static final class Holder {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread;

        static Holder start(SelccCluster cluster, long line) {
            Holder h = new Holder();
            ComputeNode node1 = cluster.node(1);
            h.thread = new Thread(() -> {
                try {
                    GclHandle x = node1.xLock(line);
                    x.putLong(0, 42);
                    h.held.countDown();
                    h.release.await();
                    node1.unlock(x);
                } catch (Throwable t) {
                    h.failure.set(t);
                } finally {
                    h.held.countDown();
                }
            });
            h.thread.start();
            return h;
        }
    }

    /** A LocalFabric whose node 1, once armed, stalls right after its next grant on another node's behalf landed. */
    private static final class StallingFabric implements Fabric {
        final LocalFabric local;
        final CountDownLatch landed = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        volatile boolean armed;
        /** Messages node 1's handlers are handling now. */
        final AtomicInteger handlersInFlight = new AtomicInteger();
        private final FabricEndpoint node1;

        StallingFabric(LocalFabric local) {
            this.local = local;
            this.node1 = new StallingEndpoint(local.endpoint(1));
        }

        void stallIfArmed() {
            if (!armed) {
                return;
            }
            armed = false;
            landed.countDown();
            try {
                resume.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override public int memoryNodeCount() { return local.memoryNodeCount(); }
        @Override public long memoryNodeCapacity(int memoryNode) { return local.memoryNodeCapacity(memoryNode); }
        @Override public int computeNodeCount() { return local.computeNodeCount(); }
        @Override public FabricEndpoint endpoint(int computeNode) { return computeNode == 1 ? node1 : local.endpoint(computeNode); }
        @Override public void fence(int computeNode) { local.fence(computeNode); }
        @Override public boolean fenced(int computeNode) { return local.fenced(computeNode); }
        @Override public void close() { local.close(); }

        private final class StallingEndpoint implements FabricEndpoint {
            private final FabricEndpoint inner;

            StallingEndpoint(FabricEndpoint inner) {
                this.inner = inner;
            }

            @Override public void postFor(int beneficiary, VerbBatch batch) {
                inner.postFor(beneficiary, batch);
                stallIfArmed();
            }

            @Override public long remoteFaaFor(int beneficiary, long address, long delta) {
                long previous = inner.remoteFaaFor(beneficiary, address, delta);
                stallIfArmed();
                return previous;
            }

            @Override public int nodeId() { return inner.nodeId(); }
            @Override public NodeCounters counters() { return inner.counters(); }
            @Override public void remoteRead(long a, MemorySegment dst, long off, int len) { inner.remoteRead(a, dst, off, len); }
            @Override public void remoteWrite(long a, MemorySegment src, long off, int len) { inner.remoteWrite(a, src, off, len); }
            @Override public long remoteCas(long a, long expected, long update) { return inner.remoteCas(a, expected, update); }
            @Override public long remoteFaa(long a, long delta) { return inner.remoteFaa(a, delta); }
            @Override public void post(VerbBatch batch) { inner.post(batch); }
            @Override public PendingVerbs postAsync(VerbBatch batch) { return inner.postAsync(batch); }
            @Override public void register(MessageKind kind, MessageCodec codec, MessageHandler handler) {
                inner.register(kind, codec, (from, request, reply) -> {
                    handlersInFlight.incrementAndGet();
                    try {
                        handler.onMessage(from, request, reply);
                    } finally {
                        handlersInFlight.decrementAndGet();
                    }
                });
            }
            @Override public PendingReply send(int toNode, MessageKind kind, Object request) { return inner.send(toNode, kind, request); }
            @Override public void sendAll(int[] toNodes, int count, MessageKind kind, Object[] requests, PendingReply[] replies) {
                inner.sendAll(toNodes, count, kind, requests, replies);
            }
            @Override public long roundTripNanos() { return inner.roundTripNanos(); }
        }
    }
}
