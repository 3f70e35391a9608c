package io.selcc.cache;

import io.selcc.fabric.FabricEndpoint;
import io.selcc.cache.GclLayout;
import io.selcc.fabric.LatencyModel;
import io.selcc.fabric.LocalFabric;
import io.selcc.fabric.NodeFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compute node that crashes: it is fenced, survivors that need its lines learn of it and wait, the
 * latch scan clears its reader bits and lists the lines it held, and adopting one hands it to a
 * survivor with memory's copy as last written (write-through included).
 * Seen failing: without writeThrough the snapshot read 0 at offset 0; with the fence's
 * wait for in-flight verbs removed, an add landed after fence returned (round 14 of 300).
 */
class CrashedNodeTest {
    /**
     * Once the repair of a crashed node failed, a survivor that needs one of its lines fails with
     * {@link RepairFailedException} naming the node and why (a type the command line tells apart without
     * reading the message: before, a plain IllegalStateException it matched by its text).
     */
    @Test
    @Timeout(60)
    void aLineOfANodeWhoseRepairFailedFailsWithItsOwnType() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(64).build()) {
            ComputeNode survivor = cluster.node(0);
            ComputeNode dead = cluster.node(1);
            long held = survivor.allocate();
            cluster.flushCaches();
            dead.unlock(dead.xLock(held)); // lazy release: the dead node keeps X
            cluster.crash(1);
            cluster.repairFailed(1, "planted: no log to restore it from");
            RepairFailedException e = assertThrows(RepairFailedException.class, () -> survivor.xLock(held));
            assertEquals(1, e.crashedNode());
            assertEquals("the repair of crashed compute node 1 failed: planted: no log to restore it from", e.getMessage());
        }
    }

    @Test
    @Timeout(60)
    void survivorsWaitForALineOfTheCrashedNodeUntilOneAdoptsIt() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).cacheFrames(64).build()) {
            ComputeNode survivor = cluster.node(0);
            ComputeNode dead = cluster.node(1);
            ComputeNode other = cluster.node(2);
            long held = survivor.allocate();
            long shared = survivor.allocate();
            long untouched = survivor.allocate();
            cluster.flushCaches();
            AtomicInteger reported = new AtomicInteger();
            AtomicInteger reportedNode = new AtomicInteger(-1);
            cluster.onPeerFailure(node -> {
                reported.incrementAndGet();
                reportedNode.set(node);
            });

            GclHandle h = dead.xLock(held);
            h.putLong(0, 11);
            dead.writeThrough(h); // memory has 11 at offset 0 from here on
            h.putLong(8, 22);     // only in the dead node's cache
            dead.unlock(h);       // lazy release: the dead node keeps X
            dead.unlock(dead.sLock(shared));
            other.unlock(other.sLock(shared));

            cluster.crash(1);
            assertTrue(cluster.crashed(1));
            NodeFailedException own = assertThrows(NodeFailedException.class, () -> dead.sLock(untouched));
            assertEquals(1, own.node());
            assertNull(survivor.tryXLock(held), "a no-wait acquire gives up on the crashed node's line");
            assertTrue(reported.get() >= 1, "the survivor reported the crash");
            assertEquals(1, reportedNode.get());

            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicLong seen = new AtomicLong(-1);
            Thread waiter = new Thread(() -> {
                try {
                    GclHandle w = other.xLock(held); // blocks until the line is adopted and released
                    seen.set(w.getLong(8));
                    other.unlock(w);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            int before = reported.get();
            waiter.start();
            while (reported.get() <= before) {
                Thread.onSpinWait(); // the waiter asked the crashed node and is now retrying
            }

            long[] lost = cluster.claimLinesOf(1, 0);
            assertArrayEquals(new long[] {held}, lost);
            assertNull(survivor.tryXLock(held), "the tag stays until the line is adopted");
            assertEquals(11, survivor.snapshot(held).getLong(0), "the written-through bytes are in memory");
            GclHandle adopted = survivor.adoptCrashedLine(held, 1);
            assertEquals(11, adopted.getLong(0));
            assertEquals(0, adopted.getLong(8), "what only the dead cache held is gone (the caller restores it)");
            adopted.putLong(8, 33); // the repair
            survivor.unlock(adopted);
            waiter.join();
            if (failure.get() != null) {
                throw new AssertionError("waiter failed", failure.get());
            }
            assertEquals(33, seen.get(), "the waiter got the line after its repair");
            assertThrows(IllegalStateException.class, () -> survivor.adoptCrashedLine(untouched, 1),
                "a line the crashed node did not hold");
            GclHandle s = survivor.xLock(shared); // node 2's copy is invalidated; node 1's bit is gone
            survivor.unlock(s);
            cluster.flushCaches();
            assertEquals(java.util.List.of(), cluster.busyLatchWords(10), "latch bits left behind");
        }
    }

    /**
     * No verb of a fenced node lands after fence returns: a thread of the node adds to a word until it
     * is refused; the word read right after fence returns must equal the word once the thread stopped.
     * Many rounds, so the window between a verb's fence check and its effect is hit.
     */
    @Test
    @Timeout(120)
    void noVerbLandsAfterTheFenceReturns() throws Exception {
        int rounds = 300;
        long racedRounds = 0;
        for (int round = 0; round < rounds; round++) {
            try (LocalFabric fabric = new LocalFabric(1, 1 << 16, 2, LatencyModel.OFF)) {
                FabricEndpoint victim = fabric.endpoint(1);
                FabricEndpoint observer = fabric.endpoint(0);
                long word = io.selcc.fabric.GlobalAddress.of(0, 4096 + GclLayout.DATA_OFFSET);
                CountDownLatch started = new CountDownLatch(1);
                AtomicReference<Throwable> failure = new AtomicReference<>();
                AtomicLong adds = new AtomicLong();
                Thread adder = new Thread(() -> {
                    try {
                        while (true) {
                            victim.remoteFaa(word, 1);
                            if (adds.incrementAndGet() == 1) {
                                started.countDown();
                            }
                        }
                    } catch (NodeFailedException expected) {
                        // refused: the node is fenced
                    } catch (Throwable t) {
                        failure.set(t);
                    } finally {
                        started.countDown();
                    }
                });
                adder.start();
                started.await();
                fabric.fence(1);
                long atFence = observer.remoteFaa(word, 0);
                adder.join();
                if (failure.get() != null) {
                    throw new AssertionError("adder failed", failure.get());
                }
                long atEnd = observer.remoteFaa(word, 0);
                assertEquals(atFence, atEnd, "a verb of the fenced node landed after fence returned (round " + round + ")");
                assertTrue(adds.get() >= 1, "the adder ran before the fence");
                assertThrows(NodeFailedException.class, () -> observer.call(1, io.selcc.fabric.MessageKind.INVALIDATION, null),
                    "a message to a fenced node");
                racedRounds += atEnd > adds.get() ? 1 : 0; // the last add landed but its caller never counted it
            }
        }
        System.out.println("noVerbLandsAfterTheFenceReturns: rounds=" + rounds + " rounds where an add in flight"
            + " completed during the fence=" + racedRounds);
    }

    /**
     * A request of the crashed node left pending on a survivor's frame is served only after the crash:
     * it must not hand the line (or a reader bit) to the fenced node, whose latch words were scanned
     * already. Seen failing before grants were made on the requester's behalf (postFor/remoteFaaFor):
     * the crashed node's thread was granted the line.
     */
    @Test
    @Timeout(60)
    void aPendingRequestOfTheCrashedNodeIsNotGrantedAfterTheCrash() throws Exception {
        try (SelccCluster cluster = patientPair()) {
            ComputeNode survivor = cluster.node(0);
            ComputeNode dead = cluster.node(1);
            long line = survivor.allocate();
            cluster.flushCaches();
            GclHandle held = survivor.xLock(line); // held: the dead node's request must wait as pending
            AtomicReference<Throwable> deadThread = new AtomicReference<>();
            Thread asker = new Thread(() -> {
                try {
                    dead.unlock(dead.xLock(line));
                } catch (Throwable t) {
                    deadThread.set(t);
                }
            });
            asker.start();
            awaitPendingRequest(survivor, line);
            cluster.crash(1);
            assertArrayEquals(new long[0], cluster.claimLinesOf(1, 0), "the dead node holds nothing yet");
            survivor.unlock(held); // serves the pending request now
            asker.join();
            assertTrue(deadThread.get() instanceof NodeFailedException, "the crashed node's thread stopped: "
                + deadThread.get());
            long word = cluster.fabric().endpoint(0).remoteFaa(line, 0);
            assertEquals(0, io.selcc.cache.LatchWord.writer(word), "the line stays the survivor's: "
                + io.selcc.cache.LatchWord.toString(word));
        }
    }

    /**
     * The crashed node's own thread releases a latch after the fence and would serve a survivor's
     * pending request: it must drop it, not leave it half served (the survivor waited for ever on it).
     * Seen failing without the crashed check in serve: the serve threw half way, from the unlock.
     */
    @Test
    @Timeout(60)
    void aSurvivorsPendingRequestIsDroppedByTheCrashedNode() throws Exception {
        try (SelccCluster cluster = patientPair()) {
            ComputeNode survivor = cluster.node(0);
            ComputeNode dead = cluster.node(1);
            long line = survivor.allocate();
            cluster.flushCaches();
            GclHandle held = dead.xLock(line);
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread asker = new Thread(() -> {
                try {
                    outcome.set(String.valueOf(survivor.tryXLock(line)));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            });
            asker.start();
            awaitPendingRequest(dead, line);
            cluster.crash(1);
            dead.unlock(held); // the dead node's thread lets go after the fence: it serves nothing
            asker.join(); // without the drop, the survivor waited here for ever (the test's timeout)
            assertEquals("null", outcome.get(), "the no-wait acquire gave up on the crashed node's line");
        }
    }

    /** Two nodes whose requests wait long: one stays pending until the line's holder lets go. */
    private static SelccCluster patientPair() {
        return SelccCluster.builder().computeNodes(2).cacheFrames(64).pendingWaitNanos(30_000_000_000L).build();
    }

    /** Returns once another node's invalidation waits as pending on {@code holder}'s frame of {@code line}. */
    private static void awaitPendingRequest(ComputeNode holder, long line) {
        while (((SelccNode) holder).cachedFrame(line).pending() == null) {
            Thread.onSpinWait();
        }
    }

    @Test
    void selModeRefusesACrash() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).accessMode(AccessMode.SEL).build()) {
            assertThrows(IllegalStateException.class, () -> cluster.crash(1));
        }
    }

    @Test
    void theScanRefusesALiveNodeAndRunsOnALiveOne() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).build()) {
            assertThrows(IllegalStateException.class, () -> cluster.claimLinesOf(1, 0));
            cluster.crash(1);
            assertThrows(IllegalArgumentException.class, () -> cluster.claimLinesOf(1, 1));
            assertEquals(0, cluster.claimLinesOf(1, 0).length);
        }
    }

}
