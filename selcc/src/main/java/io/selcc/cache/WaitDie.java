package io.selcc.cache;

/**
 * The wait-die rule (2PL's WAIT_DIE policy; see {@link ComputeNode#lockOrDie}), in one place for the
 * local latch and for other nodes' invalidations. Ages: smaller is older, unique per transaction.
 */
final class WaitDie {
    private WaitDie() {
    }

    /**
     * Whether a requester of age {@code requester} must die rather than wait for holders whose oldest
     * age is {@code oldestHolder} ({@link ComputeNode#NO_AGE} when no holder has an age,
     * and those are never waited on in a cycle: they hold a latch briefly and wait for nothing aged).
     * Waiting only for younger holders makes every wait-for edge point from older to younger: no cycle.
     */
    static boolean mustDie(long requester, long oldestHolder) {
        return oldestHolder < requester;
    }

    /**
     * Test seam: told of every decision, with the ages compared; {@code remote} when another node's
     * request was judged (by the holder node), else a requester of this node at its local latch.
     */
    interface Seam {
        void waits(long waiterAge, long oldestHolderAge, boolean remote);

        void dies(long requesterAge, long oldestHolderAge, boolean remote);
    }
}
