package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclLayout;
import io.selcc.cache.SelccCluster;
import io.selcc.fabric.Counter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The counter word's ahead token ({@link TimestampCounter}) on three compute nodes sharing one word. Shown
 * failing: with the release not moving the counter, {@link #anAheadTimestampIsTheYoungestWhileItRunsOnly}
 * (a draw after the release was older than the ahead attempt); with a crashed holder's token not taken
 * over, {@link #aCrashedHoldersTokenIsTakenOver} (the survivor waited, then drew a normal timestamp); with
 * the repair's stamp from the counter as it was (no move by AHEAD_DISTANCE),
 * {@link #aRepairStampsAboveEveryTimestampDrawn} (the restored stamp was below the crashed holder's).
 */
@Timeout(60)
class TimestampCounterTest {
    private static long counterWord(SelccCluster cluster) {
        ComputeNode node = cluster.node(0);
        long word = node.allocate() + GclLayout.DATA_OFFSET;
        node.faa(word, -node.faa(word, 0)); // zero
        return word;
    }

    @Test
    void anAheadTimestampIsTheYoungestWhileItRunsOnly() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).build()) {
            long word = counterWord(cluster);
            TimestampCounter a = new TimestampCounter(cluster.node(0), word);
            TimestampCounter b = new TimestampCounter(cluster.node(1), word);
            long before = b.draw();
            long ahead = a.drawAhead();
            assertTrue(TimestampCounter.isAhead(ahead) && ahead > before, "ahead=" + ahead + " before=" + before);
            assertEquals(0, TimestampCounter.nodeOf(ahead), "the node that drew it is in the low bits");
            for (int i = 0; i < 1_000; i++) {
                long meanwhile = b.draw();
                assertFalse(TimestampCounter.isAhead(meanwhile));
                assertTrue(meanwhile < ahead, "a draw while the ahead attempt runs is older: " + meanwhile);
            }
            a.releaseAhead();
            long after = b.draw();
            assertTrue(after > ahead, "a draw after the release is younger: after=" + after + " ahead=" + ahead);
            assertEquals(1, cluster.totalCounters().get(Counter.TO_AHEAD_ATTEMPTS));
        }
    }

    @Test
    void anAttemptThatTakesTheTokenIsYoungerThanTheOneBefore() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).build()) {
            long word = counterWord(cluster);
            TimestampCounter a = new TimestampCounter(cluster.node(0), word);
            TimestampCounter b = new TimestampCounter(cluster.node(1), word);
            long first = a.drawAhead();
            a.releaseAhead();
            long second = b.drawAhead();
            b.releaseAhead();
            long third = a.drawAhead();
            assertTrue(TimestampCounter.isAhead(second) && second > first && third > second,
                "first=" + first + " second=" + second + " third=" + third);
        }
    }

    /**
     * One holder at a time: a second node's attempt waits until the holder ends and then takes the token,
     * or (while the holder never ends) gives up waiting and runs with a normal timestamp; the holder's own
     * thread never waits for itself.
     */
    @Test
    void theTokenHasOneHolderAndTheOthersWaitForIt() throws Exception {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).build()) {
            long word = counterWord(cluster);
            TimestampCounter a = new TimestampCounter(cluster.node(0), word);
            TimestampCounter b = new TimestampCounter(cluster.node(1), word);
            long held = a.drawAhead();
            assertFalse(TimestampCounter.isAhead(a.drawAhead()), "the holder's thread draws a normal one at once");
            long gaveUp = b.drawAhead();
            assertFalse(TimestampCounter.isAhead(gaveUp), "a waiter gives up on a holder that never ends");
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(b::drawAhead);
            a.releaseAhead();
            long next = waiter.get();
            assertTrue(TimestampCounter.isAhead(next) && next > held, "next=" + next + " held=" + held);
        }
    }

    @Test
    void aCrashedHoldersTokenIsTakenOver() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).build()) {
            long word = counterWord(cluster);
            TimestampCounter crashing = new TimestampCounter(cluster.node(1), word);
            TimestampCounter survivor = new TimestampCounter(cluster.node(2), word);
            long lost = crashing.drawAhead();
            cluster.crash(1);
            long taken = survivor.drawAhead();
            assertTrue(TimestampCounter.isAhead(taken) && taken > lost, "taken=" + taken + " lost=" + lost);
            survivor.releaseAhead();
            assertTrue(survivor.draw() > taken);
        }
    }

    /**
     * A holder's release that lands after a survivor took its token over (in one process a crash marks the
     * node crashed before it is fenced, so the holder's own release can still be on its way) leaves the
     * survivor holding it, and the survivor's release then frees it.
     *
     * <p>Planted bug this caught (found in review): the release as a blind subtraction of the holder's id
     * turned the survivor's holder field (3) into 1, naming node 0, which never releases: the token was
     * lost for good.
     */
    @Test
    void aReleaseAfterATakeoverLeavesTheNewHolderIntact() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).build()) {
            long word = counterWord(cluster);
            ComputeNode memory = cluster.node(0);
            TimestampCounter first = new TimestampCounter(cluster.node(1), word);
            TimestampCounter survivor = new TimestampCounter(cluster.node(2), word);
            long lost = first.drawAhead();
            // Node 2 takes the token over, as a survivor does from a holder it takes for crashed.
            long before = memory.faa(word, 0);
            assertEquals(2, before >>> TimestampCounter.HOLDER_SHIFT, "node 1 holds it");
            long swapped = before - (2L << TimestampCounter.HOLDER_SHIFT) + (3L << TimestampCounter.HOLDER_SHIFT);
            assertEquals(before, memory.cas(word, before, swapped));
            first.releaseAhead(); // node 1's release, late
            assertEquals(3, memory.faa(word, 0) >>> TimestampCounter.HOLDER_SHIFT, "node 2 still holds the token");
            assertTrue(survivor.draw() > lost, "the counter moved past the late holder");
            survivor.releaseAhead();
            assertEquals(0, memory.faa(word, 0) >>> TimestampCounter.HOLDER_SHIFT, "freed");
            long next = new TimestampCounter(cluster.node(0), word).drawAhead();
            assertTrue(TimestampCounter.isAhead(next), "and taken again at once");
        }
    }

    /** A crash repair stamps above every timestamp drawn, a holder's that never ended included. */
    @Test
    void aRepairStampsAboveEveryTimestampDrawn() {
        try (SelccCluster cluster = SelccCluster.builder().computeNodes(3).build()) {
            long word = counterWord(cluster);
            TimestampCounter crashing = new TimestampCounter(cluster.node(1), word);
            TimestampCounter survivor = new TimestampCounter(cluster.node(0), word);
            long ahead = crashing.drawAhead();
            long normal = crashing.draw();
            cluster.crash(1);
            long restored = survivor.passEveryTimestamp();
            assertTrue(restored > ahead && restored > normal, "restored=" + restored + " ahead=" + ahead);
            long next = survivor.draw();
            assertTrue(next > restored, "a later transaction is younger than a restored stamp: next=" + next);
            long nextAhead = survivor.drawAhead();
            assertTrue(nextAhead > restored, "and so is a later ahead attempt: " + nextAhead);
        }
    }
}
