package io.selcc.engine.cc;

/** The end of a transaction: committed, or aborted with a reason. */
public record CommitOutcome(boolean committed, AbortReason reason) {
    public static final CommitOutcome COMMITTED = new CommitOutcome(true, null);

    public static CommitOutcome aborted(AbortReason reason) {
        return new CommitOutcome(false, reason);
    }
}
