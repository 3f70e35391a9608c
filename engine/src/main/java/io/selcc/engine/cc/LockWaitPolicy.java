package io.selcc.engine.cc;

/**
 * What a locking algorithm (2PL) does when a lock it needs is held: chosen per database with
 * {@code Database.Builder.lockWait}. Algorithms that lock nothing until commit (OCC, TO) accept only
 * {@link #NO_WAIT}, the default.
 */
public enum LockWaitPolicy {
    /** A held lock aborts the requester at once; the retry loop backs off and tries again. */
    NO_WAIT("no-wait"),
    /**
     * Wait-die: a requester older than every conflicting holder waits for them; a younger one aborts
     * ({@link AbortReason#LOCK_CONFLICT}) and its retries keep its first attempt's age, so it becomes the
     * oldest eventually and cannot starve. Waits only from older to younger: no deadlock.
     */
    WAIT_DIE("wait-die");

    private final String cliName;

    LockWaitPolicy(String cliName) {
        this.cliName = cliName;
    }

    /** The name a command line uses: "no-wait", "wait-die". */
    public String cliName() {
        return cliName;
    }

    /**
     * The policy named {@code name}, as {@link #cliName()} or the constant's name, in any case.
     *
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static LockWaitPolicy byName(String name) {
        for (LockWaitPolicy policy : values()) {
            if (policy.cliName.equalsIgnoreCase(name) || policy.name().equalsIgnoreCase(name)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("unknown lock wait policy: " + name + " (known: no-wait, wait-die)");
    }

    @Override
    public String toString() {
        return cliName;
    }
}
