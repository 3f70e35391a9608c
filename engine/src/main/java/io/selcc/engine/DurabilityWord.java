package io.selcc.engine;

/**
 * A compute node's durability word: what its commit log vouches for, published in shared memory (the
 * catalog's durability GCL, one word per compute node: {@link CatalogLayout}) so that logs in other
 * processes acknowledge a commit only once every node's word has passed it (compute nodes as processes:
 * {@link CommitLog.SharedWords}).
 *
 * <pre>
 * bit     63  OUT      the node counts no more: its repair settled every number it drew (see
 *                      {@link CommitLog.Factory#settleCrashed}), or its log closed after forcing all of them
 * bit     62  LOST     its log lost number {@code through + 1} (an append or a force failed): no number at or
 *                      after it becomes durable while the node counts
 * bit     61  LOGGING  its log is open; a word without it (0: never published) does not count, because the
 *                      node publishes before it draws its first number
 * bits 0..60  through  every commit number the node drew up to it is forced in its log (SYNC) or appended
 *                      (ASYNC); numbers it draws later are higher
 * </pre>
 *
 * Only the node's own log writes its word while it counts (one writer: a plain WRITE); a repairer sets
 * {@link #OUT} with a CAS once the node is fenced.
 */
public final class DurabilityWord {
    public static final long OUT = 1L << 63;
    public static final long LOST = 1L << 62;
    public static final long LOGGING = 1L << 61;
    /** The bits of {@code through}. */
    public static final long THROUGH = LOGGING - 1;

    private DurabilityWord() {
    }

    /** A counting word: every number the node drew up to {@code through} is durable; {@code lost}: {@code through + 1} never will be. */
    public static long of(long through, boolean lost) {
        if (through < 0 || through > THROUGH) {
            throw new IllegalArgumentException("through=" + through);
        }
        return LOGGING | (lost ? LOST : 0) | through;
    }

    public static long through(long word) {
        return word & THROUGH;
    }

    /** Whether the node's word takes part in the minimum: its log is open and it is not out. */
    public static boolean counts(long word) {
        return (word & LOGGING) != 0 && (word & OUT) == 0;
    }

    public static boolean lost(long word) {
        return (word & LOST) != 0;
    }

    public static boolean out(long word) {
        return (word & OUT) != 0;
    }

    /** One line for messages: {@code through=N} and the flags set. */
    public static String describe(long word) {
        return "through=" + through(word) + ((word & LOGGING) != 0 ? " logging" : " not-logging")
            + (lost(word) ? " lost" : "") + (out(word) ? " out" : "");
    }
}
