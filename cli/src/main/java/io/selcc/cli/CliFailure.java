package io.selcc.cli;

/**
 * An expected runtime failure (for example an output file that cannot be written after the run):
 * reported as one line with exit code 1, without a stack trace.
 */
public final class CliFailure extends RuntimeException {
    public CliFailure(String message, Throwable cause) {
        super(message, cause);
    }

    public CliFailure(String message) {
        super(message);
    }

    /**
     * {@code e}'s message and, when there is one, its innermost cause's (what the operating system
     * said, such as "No space left on device"), for a one-line report.
     */
    public static String withRootCause(Throwable e) {
        return io.selcc.tpcc.run.RunFailedException.withRootCause(e);
    }
}
