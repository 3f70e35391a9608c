package io.selcc.fabric;

/** Kinds of request/reply messages between compute nodes. */
public enum MessageKind {
    /**
     * SELCC invalidation (paper 4.4, 5.1). Handled in the order each sender sent them (a cancel must
     * find the request it cancels); its handler never waits for another node's thread.
     */
    INVALIDATION(true),
    /** Two-phase commit and shipped work in the partitioned baseline; its handler may wait for a branch. */
    TWO_PHASE_COMMIT(false),
    /** Coordination of one run across processes (ready, go, results, stop); its handler never waits. */
    CONTROL(false);

    private final boolean inSenderOrder;

    MessageKind(boolean inSenderOrder) {
        this.inSenderOrder = inSenderOrder;
    }

    /**
     * Whether a receiver must handle this kind's requests from one sender one at a time, in the order
     * sent (a network fabric runs them on one lane per sender); otherwise they may run concurrently.
     */
    public boolean inSenderOrder() {
        return inSenderOrder;
    }
}
