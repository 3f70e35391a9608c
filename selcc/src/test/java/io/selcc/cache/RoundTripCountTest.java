package io.selcc.cache;

import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;
import io.selcc.cache.GclLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Exact round trips of every access path (paper 4.2-4.4). Single-threaded: every count is exact.
 * The requester's count is its own verb batches plus its message waves; the receiver's is separate.
 */
class RoundTripCountTest {
    private SelccCluster cluster;
    private ComputeNode a;
    private ComputeNode b;
    private ComputeNode c;
    private long gcl;

    @BeforeEach
    void setUp() {
        cluster = SelccCluster.builder().computeNodes(3).cacheFrames(64).build();
        a = cluster.node(0);
        b = cluster.node(1);
        c = cluster.node(2);
        gcl = a.allocate();
        cluster.flushCaches(); // start from memory: no node caches the GCL
        cluster.resetCounters();
    }

    @AfterEach
    void tearDown() {
        cluster.close();
    }

    private long roundTrips(int node) {
        return cluster.counters(node).get(Counter.ROUND_TRIPS);
    }

    @Test
    void sharedMissIsOneRoundTripThenHitsAreFree() {
        a.unlock(a.sLock(gcl));
        assertEquals(1, roundTrips(0), "S miss = FAA+READ in one round trip");
        for (int i = 0; i < 10; i++) {
            a.unlock(a.sLock(gcl));
        }
        assertEquals(1, roundTrips(0), "S hits cost no round trip");
        CounterSnapshot s = cluster.counters(0);
        assertEquals(10, s.get(Counter.CACHE_HITS));
        assertEquals(1, s.get(Counter.CACHE_MISSES));
        assertEquals(1, s.get(Counter.VERB_FAA));
        assertEquals(1, s.get(Counter.VERB_READ));
    }

    @Test
    void exclusiveMissIsOneRoundTripThenHitsAreFree() {
        a.unlock(a.xLock(gcl));
        assertEquals(1, roundTrips(0), "X miss = CAS+READ in one round trip");
        a.unlock(a.xLock(gcl));
        a.unlock(a.sLock(gcl));
        assertEquals(1, roundTrips(0), "X and S hits on a modified copy cost nothing");
    }

    @Test
    void upgradeOfSoleSharedCopyIsOneCas() {
        a.unlock(a.sLock(gcl));
        a.unlock(a.xLock(gcl));
        assertEquals(2, roundTrips(0));
        assertEquals(1, cluster.counters(0).get(Counter.UPGRADES));
        assertEquals(1, cluster.counters(0).get(Counter.VERB_CAS));
    }

    @Test
    void case1WriterVsModifiedHandsOverAndForwards() {
        GclHandle h = a.xLock(gcl);
        h.putLong(0, 7);
        a.unlock(h);
        cluster.resetCounters();

        h = b.xLock(gcl);
        assertEquals(7, h.getLong(0), "forwarded copy carries the unwritten update");
        b.unlock(h);
        // Requester: CAS+READ (fails) + one message round trip; the owner hands over by one FAA.
        assertEquals(2, roundTrips(1));
        assertEquals(1, roundTrips(0));
        assertEquals(3, roundTrips(0) + roundTrips(1), "paper 4.4.1: three round trips in all");
        assertEquals(1, cluster.counters(0).get(Counter.HANDOVERS));
        assertEquals(1, cluster.counters(0).get(Counter.FORWARDS));
        assertEquals(0, cluster.counters(0).get(Counter.VERB_WRITE), "no write-back on handover");
        assertEquals(1, cluster.counters(1).get(Counter.INVALIDATIONS_SENT_WRITER_VS_MODIFIED));
    }

    @Test
    void case2ReaderVsModifiedWritesBackAndBothBecomeReaders() {
        GclHandle h = a.xLock(gcl);
        h.putLong(8, 9);
        a.unlock(h);
        cluster.resetCounters();

        h = b.sLock(gcl);
        assertEquals(9, h.getLong(8));
        b.unlock(h);
        // Requester: FAA+READ (writer seen), FAA to take its bit back, one message round trip.
        assertEquals(3, roundTrips(1));
        // Owner: WRITE(dirty) + FAA in one round trip.
        assertEquals(1, roundTrips(0));
        assertEquals(8, cluster.counters(0).get(Counter.WRITE_BACK_BYTES), "only the dirty bytes");
        assertEquals(1, cluster.counters(0).get(Counter.DOWNGRADES));

        cluster.resetCounters();
        a.unlock(a.sLock(gcl));
        b.unlock(b.sLock(gcl));
        assertEquals(0, roundTrips(0) + roundTrips(1), "both keep shared copies");
    }

    @Test
    void case3WriterVsSharedReleasesAndRetries() {
        a.unlock(a.sLock(gcl));
        b.unlock(b.sLock(gcl));
        cluster.resetCounters();

        c.unlock(c.xLock(gcl));
        // Requester: CAS+READ (fails), one message wave to both readers, CAS+READ again.
        assertEquals(3, roundTrips(2));
        assertEquals(2, cluster.counters(2).get(Counter.INVALIDATIONS_SENT_WRITER_VS_SHARED));
        assertEquals(1, roundTrips(0));
        assertEquals(1, roundTrips(1));
        assertEquals(1, cluster.counters(0).get(Counter.SHARED_RELEASES));
    }

    @Test
    void evictionOfDirtyLineWritesOnlyDirtyBytes() {
        GclHandle h = a.xLock(gcl);
        h.putInt(100, 1);
        h.putInt(200, 2);
        a.unlock(h);
        cluster.resetCounters();
        cluster.flushCaches();
        CounterSnapshot s = cluster.counters(0);
        assertEquals(1, s.get(Counter.ROUND_TRIPS), "WRITE + FAA in one batch");
        assertEquals(1, s.get(Counter.WRITE_BACKS));
        assertEquals(104, s.get(Counter.WRITE_BACK_BYTES), "from the first to the last dirty byte");
        assertEquals(104, s.get(Counter.BYTES_WRITTEN));
        assertEquals(1, s.get(Counter.VERB_FAA));
        assertEquals(0, s.get(Counter.VERB_CAS), "release is an FAA, never a CAS");
    }

    @Test
    void selModeLocksAndUnlocksRemotelyEveryTime() {
        try (SelccCluster sel = SelccCluster.builder().computeNodes(1).accessMode(AccessMode.SEL).build()) {
            ComputeNode n = sel.node(0);
            long g = n.allocate();
            sel.resetCounters();
            GclHandle h = n.xLock(g);
            h.putLong(0, 5);
            n.unlock(h);
            h = n.sLock(g);
            assertEquals(5, h.getLong(0));
            n.unlock(h);
            CounterSnapshot s = sel.counters(0);
            assertEquals(4, s.get(Counter.ROUND_TRIPS), "X: CAS+READ, WRITE+FAA; S: FAA+READ, FAA");
            assertEquals(8, s.get(Counter.WRITE_BACK_BYTES));
            assertEquals(GclLayout.dataSize(2048) + 8, s.get(Counter.BYTES_READ) / 2);
        }
    }

    @Test
    void tryLockReturnsHandleWhenFree() {
        GclHandle h = a.tryXLock(gcl);
        assertNotNull(h);
        a.unlock(h);
    }

    /** Attempts a try path makes before it gives up: the first plus tryLockRetries (default 8). */
    private static final int TRY_ATTEMPTS = 8 + 1;

    @Test
    void busyTryXLockCostsThreeRoundTripsPerAttemptThenGivesUp() {
        GclHandle held = b.xLock(gcl); // b holds X locally: its handler cannot serve the invalidation
        cluster.resetCounters();
        assertNull(a.tryXLock(gcl));
        CounterSnapshot s = cluster.counters(0);
        // b keeps each request pending; a stops waiting and asks b to cancel it: b decides, and answers.
        assertEquals(3L * TRY_ATTEMPTS, s.get(Counter.ROUND_TRIPS),
            "per attempt: CAS+READ, one invalidation wave, the cancel of the kept request");
        assertEquals(2L * TRY_ATTEMPTS, s.get(Counter.MESSAGES_SENT));
        assertEquals(TRY_ATTEMPTS, s.get(Counter.INVALIDATIONS_CANCELLED));
        assertEquals(1, s.get(Counter.LATCH_GIVE_UPS));
        b.unlock(held);
    }

    @Test
    void busyTrySLockCostsFourRoundTripsPerAttemptThenGivesUp() {
        GclHandle held = b.xLock(gcl);
        cluster.resetCounters();
        assertNull(a.trySLock(gcl));
        CounterSnapshot s = cluster.counters(0);
        assertEquals(4L * TRY_ATTEMPTS, s.get(Counter.ROUND_TRIPS),
            "per attempt: FAA+READ, the FAA taking the reader bit back, one invalidation wave, its cancel");
        assertEquals(2L * TRY_ATTEMPTS, s.get(Counter.MESSAGES_SENT));
        assertEquals(1, s.get(Counter.LATCH_GIVE_UPS));
        b.unlock(held);
    }

    @Test
    void busyUpgradeFallsBackToReleaseAndAcquire() {
        a.unlock(a.sLock(gcl));
        GclHandle held = b.sLock(gcl); // b holds S locally: a's upgrade cannot make it release
        cluster.resetCounters();
        assertNull(a.tryXLock(gcl));
        CounterSnapshot s = cluster.counters(0);
        // Four upgrade CASes (upgradeAttempts), the fourth followed by an FAA releasing S; the other
        // five attempts are plain CAS+READs; every attempt sends one invalidation wave, which b keeps
        // pending and a cancels.
        assertEquals(3L * TRY_ATTEMPTS + 1, s.get(Counter.ROUND_TRIPS));
        assertEquals(4, s.get(Counter.VERB_CAS) - (TRY_ATTEMPTS - 4));
        assertEquals(1, s.get(Counter.UPGRADES));
        b.unlock(held);
        GclHandle x = a.xLock(gcl); // and the line still works: b releases its copy now
        a.unlock(x);
    }
}
