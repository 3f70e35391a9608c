package io.selcc.cli;

/**
 * An expected runtime failure (for example an output file that cannot be written after the run):
 * reported as one line with exit code 1, without a stack trace.
 */
public final class CliFailure extends RuntimeException {
    public CliFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
