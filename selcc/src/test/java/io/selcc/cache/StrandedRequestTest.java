package io.selcc.cache;

import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A request the receiver kept pending can leave its frame (an eviction that took the frame's pending
 * request just before the request was put there, or a reuse of the frame): the requester's cancel must
 * still find it. Before the receiver kept its pending requests by sender and id, the cancel looked only
 * at the frame, found nothing, and the requester waited for an answer that never came (a reviewer found
 * it; this test strands the request by taking it off the frame, as that race does).
 */
class StrandedRequestTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCancelFindsARequestThatLeftItsFrame() throws Exception {
        // The requester waits 2 s before it cancels (the default 200 us could end before the request is
        // stranded), and makes one attempt.
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(2).cacheFrames(16)
            .pendingWaitNanos(2_000_000_000L).tryLockRetries(0).build()) {
            AtomicInteger peerFailures = new AtomicInteger();
            cluster.onPeerFailure(node -> peerFailures.incrementAndGet());
            ComputeNode requester = cluster.node(0);
            ComputeNode holder = cluster.node(1);
            long gcl = holder.allocate();
            GclHandle held = holder.xLock(gcl); // held locally: the holder keeps the invalidation pending
            CompletableFuture<GclHandle> attempt = CompletableFuture.supplyAsync(() -> requester.tryXLock(gcl));
            CacheFrame frame = ((SelccNode) holder).cachedFrame(gcl);
            while (cluster.counters(1).get(Counter.INVALIDATIONS_PENDING) == 0) {
                assertFalse(attempt.isDone(), "the request was answered at once: " + cluster.counters(1));
                Thread.onSpinWait();
            }
            InvalidationRequest stranded = frame.takePending(); // off its frame, still unanswered
            assertEquals(InvalidationRequest.Status.PENDING, stranded == null ? null : stranded.status(),
                "the first request was kept");
            assertNull(attempt.get(50, TimeUnit.SECONDS), "a no-wait acquire of a held line gives up");
            assertEquals(InvalidationRequest.Status.ANSWERED, stranded.status(), "the stranded request was cancelled");
            assertEquals(0, peerFailures.get(), "the requester never took the holder for failed");
            assertEquals(1, cluster.counters(0).get(Counter.LATCH_GIVE_UPS));
            holder.unlock(held);
        }
    }
}
