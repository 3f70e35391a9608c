package io.selcc.fabric;

/** Everything a compute node counts. All counts are exact once the node is quiescent. */
public enum Counter {
    /** Waits for a remote answer: one per posted verb batch, one per wave of messages sent together. */
    ROUND_TRIPS,
    VERB_READ,
    VERB_WRITE,
    VERB_CAS,
    VERB_FAA,
    BYTES_READ,
    BYTES_WRITTEN,
    /** Request messages sent to other compute nodes (all kinds). */
    MESSAGES_SENT,
    MESSAGES_RECEIVED,
    /** Invalidations sent, by conflict case (paper 4.4.1, 4.4.2, 4.4.3). */
    INVALIDATIONS_SENT_WRITER_VS_MODIFIED,
    INVALIDATIONS_SENT_READER_VS_MODIFIED,
    INVALIDATIONS_SENT_WRITER_VS_SHARED,
    INVALIDATIONS_RECEIVED,
    /** Received invalidations answered "dropped" (stale, evicted, locally busy with a better one pending). */
    INVALIDATIONS_DROPPED,
    /** Received invalidations kept as the frame's pending request. */
    INVALIDATIONS_PENDING,
    /** Sent invalidations this node asked the receiver to cancel after waiting for them (paper 5.1). */
    INVALIDATIONS_CANCELLED,
    /**
     * Received invalidations given up because the connection they came on was lost before they were
     * served: never served afterwards (their answer could not reach the requester).
     */
    INVALIDATIONS_ABANDONED,
    /**
     * Received invalidations whose connection was lost while a thread of this node was serving them: the
     * loss waited for the serve to end (its answer was lost, its grant is in the latch word).
     */
    INVALIDATIONS_LOST_IN_SERVICE,
    /**
     * Sent invalidations whose connection to a live holder was lost before their answer came: settled
     * from the latch word once the holder had given up the connection.
     */
    LOST_ANSWERS,
    /** Of {@link #LOST_ANSWERS}, those whose latch word showed the grant (a downgrade or handover that landed). */
    LOST_GRANTS_SETTLED,
    /** Exclusive ownership passed to another node by one FAA (case 1). */
    HANDOVERS,
    /** Downgrades of a modified copy to shared on a reader's request (case 2). */
    DOWNGRADES,
    /** Shared copies released on a writer's request (case 3). */
    SHARED_RELEASES,
    /** GCL copies forwarded cache-to-cache. */
    FORWARDS,
    BYTES_FORWARDED,
    CACHE_HITS,
    CACHE_MISSES,
    /** Hits on a shared copy that needed an upgrade to exclusive. */
    UPGRADES,
    EVICTIONS,
    /**
     * Evictions run that took a victim: the worker's and threads' own, each of at most {@code Evictor.BATCH}
     * victims, and a flush's passes, each taking every unheld frame.
     */
    EVICTION_BATCHES,
    WRITE_BACKS,
    WRITE_BACK_BYTES,
    /** Failed global latch attempts that were retried. */
    LATCH_RETRIES,
    /** tryXLock/trySLock calls that gave up. */
    LATCH_GIVE_UPS,
    /**
     * Parks of blocking local latch waits: a waiter parks once per release it waits for (each such release
     * wakes it), or again after a long safety net.
     */
    LATCH_PARKS,
    /** Pending requests served by a drain after their lease expired (paper 5.3.1). */
    LEASE_EXPIRIES,
    /** No-wait local acquires refused because a pending request's lease had expired (or a drain ran). */
    LEASE_REFUSALS,
    /** Drains that gave up waiting for the local holders (they may be waiting for the drainer). */
    DRAIN_TIMEOUTS,
    /** Remote shared acquires delayed by a starving writer's spin window. */
    READER_SPIN_WAITS,
    /** Latch-free reads of a cached line (an index descent's inner nodes). */
    OPTIMISTIC_READS,
    /** Optimistic reads a local writer overlapped (the reader retried, latched). */
    OPTIMISTIC_FAILURES,
    /** Frame hints ({@code ComputeNode.tryLock}) that named a frame caching another line: looked up by address instead. */
    FRAME_HINT_MISSES,
    /** Wait-die acquires that waited at least once for younger holders (2PL's WAIT_DIE policy). */
    WAIT_DIE_WAITS,
    /** Wait-die acquires that gave up because an older transaction held the latch or waited for it, here or elsewhere. */
    WAIT_DIE_DIES,
    /** Wait-die acquires that gave up after waiting their longest (a holder may be gone). */
    WAIT_DIE_TIMEOUTS,
    /**
     * No-wait 2PL first latches found busy and waited for (a while) because the transaction held no latch
     * yet: it cannot close a waits-for cycle, so it waits instead of aborting.
     */
    FIRST_LATCH_WAITS,
    /**
     * TO attempts that ran with the ahead token, a timestamp younger than every transaction beginning
     * meanwhile: attempts of a transaction that kept failing (issue 28).
     */
    TO_AHEAD_ATTEMPTS,
    /** Re-reads of a row an ahead TO attempt made waiting for an older writer's intent to go. */
    TO_AHEAD_INTENT_WAITS,
    /**
     * Flushes that stopped waiting for a serve or an eviction under way (bounded waits): the frames those
     * held were skipped, so their latches may still name this node.
     */
    FLUSH_WAIT_TIMEOUTS;

    private static final Counter[] VALUES = values();

    static int count() {
        return VALUES.length;
    }

    static Counter at(int ordinal) {
        return VALUES[ordinal];
    }
}
