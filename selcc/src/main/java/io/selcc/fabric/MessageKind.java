package io.selcc.fabric;

/** Kinds of request/reply messages between compute nodes. */
public enum MessageKind {
    /** SELCC invalidation (paper 4.4, 5.1). */
    INVALIDATION,
    /** Reserved for two-phase commit in the partitioned baseline. */
    TWO_PHASE_COMMIT
}
