package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease (paper 5.3.1) binds no-wait acquires too. Node 1 keeps a line busy with overlapping
 * {@code trySLock}s (always one held while the next is taken), as no-wait 2PL readers do; a writer on
 * node 0 waits. Once the lease runs out the try path refuses, the holders run out, and the last
 * release serves the writer. Before the fix try paths ignored the lease and the writer waited as
 * long as the stream went on (this test then hit its bound with the writer still waiting).
 */
class TryPathLeaseTest {
    private static final int BOUND = 5_000_000;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void overlappingTryReadersCannotKeepARemoteWriterWaiting() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).lease(64).build()) {
            ComputeNode writerNode = cluster.node(0);
            ComputeNode readerNode = cluster.node(1);
            long gcl = writerNode.allocate();
            GclHandle held = readerNode.sLock(gcl);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    GclHandle x = writerNode.xLock(gcl);
                    x.putLong(0, 1);
                    writerNode.unlock(x);
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            // Wait until the writer's request has reached node 1 (counted, not timed).
            while (cluster.counters(1).get(Counter.INVALIDATIONS_RECEIVED) == 0 && writer.isAlive()) {
                Thread.onSpinWait();
            }
            int overlapped = 0;
            while (overlapped < BOUND) {
                GclHandle next = readerNode.trySLock(gcl);
                if (next == null) {
                    break;
                }
                readerNode.unlock(held);
                held = next;
                overlapped++;
            }
            readerNode.unlock(held);
            writer.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!writer.isAlive(), "the writer still waits after " + overlapped + " overlapping try-reads");
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(overlapped < BOUND, "the try-readers were never refused");
            assertTrue(cluster.counters(1).get(Counter.LEASE_REFUSALS) >= 1, "no lease refusal counted");
            assertEquals(1, SequentialConsistencyTest.read(readerNode, gcl), "the writer's write");
        }
    }

    /**
     * Negative control: with the fairness mechanisms off the same stream keeps the writer out for as
     * long as it runs (it is dropped, not kept pending, and nothing refuses the readers), so the test
     * above fails when the lease does not bind try paths.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void withoutFairnessTheSameStreamStarvesTheWriter() throws Exception {
        int stream = 200_000;
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).lease(64).fairness(false)
            .build()) {
            ComputeNode writerNode = cluster.node(0);
            ComputeNode readerNode = cluster.node(1);
            long gcl = writerNode.allocate();
            GclHandle held = readerNode.sLock(gcl);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean written = new java.util.concurrent.atomic.AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    GclHandle x = writerNode.xLock(gcl);
                    x.putLong(0, 1);
                    writerNode.unlock(x);
                    written.set(true);
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            while (cluster.counters(1).get(Counter.INVALIDATIONS_RECEIVED) == 0 && writer.isAlive()) {
                Thread.onSpinWait();
            }
            for (int i = 0; i < stream; i++) {
                GclHandle next = readerNode.trySLock(gcl);
                assertTrue(next != null, "a try-read was refused with fairness off (read " + i + ")");
                readerNode.unlock(held);
                held = next;
            }
            boolean starved = !written.get();
            readerNode.unlock(held);
            writer.join(TimeUnit.SECONDS.toMillis(30));
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(starved, "the writer got in during " + stream + " overlapping try-reads without fairness");
            assertTrue(written.get(), "the writer got in once the stream stopped");
        }
    }

    /**
     * A starving requester's lease is 0: the next local acquisition must yield, also with several
     * threads per node (Rc/P + Wc > 0). With the integer division Rc/P the first P - 1 reads passed.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStarvingRequesterGetsTheNextAccessWithSeveralThreadsPerNode() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).threadsPerNode(4)
            .starvationPriority(1).build()) {
            ComputeNode writerNode = cluster.node(0);
            ComputeNode readerNode = cluster.node(1);
            long gcl = writerNode.allocate();
            GclHandle held = readerNode.sLock(gcl);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    writerNode.unlock(writerNode.xLock(gcl));
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            while (cluster.counters(1).get(Counter.INVALIDATIONS_PENDING) == 0 && writer.isAlive()) {
                Thread.onSpinWait();
            }
            GclHandle next = readerNode.trySLock(gcl);
            if (next != null) {
                readerNode.unlock(next);
            }
            readerNode.unlock(held);
            writer.join(TimeUnit.SECONDS.toMillis(30));
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(next == null, "a local read passed a starving requester whose lease is 0");
        }
    }

    /**
     * The lease counts accesses for one pending request; once a release serves it, the count starts
     * afresh, or the next request's lease would expire early. Before the fix only drains reset it.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aRequestServedByAReleaseRestartsTheLeaseCount() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16).lease(64).build()) {
            ComputeNode writerNode = cluster.node(0);
            ComputeNode readerNode = cluster.node(1);
            long gcl = writerNode.allocate();
            GclHandle held = readerNode.sLock(gcl);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    writerNode.unlock(writerNode.xLock(gcl));
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            while (cluster.counters(1).get(Counter.INVALIDATIONS_PENDING) == 0 && writer.isAlive()) {
                Thread.onSpinWait();
            }
            CacheFrame frame = ((SelccNode) readerNode).cachedFrame(gcl);
            for (int i = 0; i < 10; i++) { // counted, well within the lease
                GclHandle next = readerNode.trySLock(gcl);
                assertTrue(next != null, "refused within the lease");
                readerNode.unlock(held);
                held = next;
            }
            assertTrue(frame.localReads() >= 10, "the accesses were counted: " + frame.localReads());
            readerNode.unlock(held); // idle now: the release serves the writer
            writer.join(TimeUnit.SECONDS.toMillis(30));
            assertTrue(!writer.isAlive(), "the writer never got the line");
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertEquals(0, frame.localReads(), "the lease count survived the request it counted for");
            assertEquals(0, cluster.counters(1).get(Counter.LEASE_EXPIRIES), "served by the release, not a lease expiry");
        }
    }
}
