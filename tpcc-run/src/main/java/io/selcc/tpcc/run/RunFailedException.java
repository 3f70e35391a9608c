package io.selcc.tpcc.run;

/**
 * A run that failed for an expected reason (a full disk or shared memory, a data directory that cannot be
 * recovered, a compute node's process lost with no log to restore it from): its message is one line that
 * names the cause and what is kept; the command line prints it without a trace and exits 1.
 */
public final class RunFailedException extends RuntimeException {
    public RunFailedException(String message, Throwable cause) {
        super(message, cause);
    }

    public RunFailedException(String message) {
        super(message);
    }

    /**
     * {@code e}'s message and, when there is one, its innermost cause's (what the operating system said,
     * such as "No space left on device"), for a one-line report.
     */
    public static String withRootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e || root.getMessage() == null || String.valueOf(e.getMessage()).contains(root.getMessage())
            ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root.getMessage() + ")";
    }
}
