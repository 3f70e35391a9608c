package io.selcc.twopc;

/**
 * Faults injected into the protocol's decisions (messages are lost or duplicated by the fabric, see
 * {@link io.selcc.fabric.LocalFabric#interceptMessages}). The default injects none.
 */
public interface TwoPcFaults {
    TwoPcFaults NONE = new TwoPcFaults() {
    };

    /** Where a coordinator dies while it commits a distributed transaction. */
    enum CoordinatorDeath {
        /** It does not. */
        NONE,
        /** Every participant voted yes, no decision was logged: presumed abort once it recovers. */
        BEFORE_DECISION,
        /** The commit decision was forced, no participant told: they commit once it recovers. */
        AFTER_DECISION
    }

    /** Whether {@code participant} votes no on {@code gtid} (as if its prepare record could not be forced). */
    default boolean voteNo(int participant, long gtid) {
        return false;
    }

    /**
     * Whether the force of {@code gtid}'s commit decision on {@code coordinator} reports a failure after
     * the record was written (it is on disk; the coordinator cannot know, and dies as on any failed force).
     */
    default boolean decisionForceFails(int coordinator, long gtid) {
        return false;
    }

    /**
     * {@code participant} forced its prepare record for {@code gtid} and is about to vote yes (its latches
     * held). A crash test's hook may stop the thread here and have the process killed.
     */
    default void prepareForced(int participant, long gtid) {
    }

    /**
     * {@code coordinator} forced its commit decision for {@code gtid} and has told nobody yet (its own
     * branch's latches held). A crash test's hook may stop the thread here and have the process killed.
     */
    default void decisionForced(int coordinator, long gtid) {
    }

    /** Whether and where the coordinator on {@code coordinator} dies while committing {@code gtid}. */
    default CoordinatorDeath coordinatorDeath(int coordinator, long gtid) {
        return CoordinatorDeath.NONE;
    }
}
