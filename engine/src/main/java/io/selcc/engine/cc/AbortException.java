package io.selcc.engine.cc;

/**
 * Unwinds a transaction body when a conflict aborts it. The one expected outcome that travels as an
 * exception: it has to cross application code in the middle of a transaction. Every API boundary turns
 * it back into a value ({@link CommitOutcome}, {@link TxnResult}); the transaction is already rolled
 * back when it is thrown.
 */
public final class AbortException extends RuntimeException {
    private final AbortReason reason;

    public AbortException(AbortReason reason, String detail) {
        super("transaction aborted: reason=" + reason + (detail == null ? "" : " " + detail), null, false, false);
        this.reason = reason;
    }

    public AbortReason reason() {
        return reason;
    }
}
