package io.selcc.wal;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Which failures of a log are the disk's (full, over a file size limit, an I/O error): expected
 * conditions, reported in one line, as opposed to bugs, which keep their stack trace.
 */
final class IoFailures {
    private IoFailures() {
    }

    /**
     * Whether {@code failure} is the disk's: an {@link IOException} (Chronicle's
     * {@code IORuntimeException} and {@link UncheckedIOException} wrap one) anywhere in its causes, or
     * a write to a mapped log file that the file system could not back ({@link #isMappedFileFault}).
     */
    static boolean isIoFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException || t instanceof UncheckedIOException || isMappedFileFault(t)
                || t.getClass().getName().equals("net.openhft.chronicle.core.io.IORuntimeException")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code failure} is HotSpot's report of a SIGBUS in an unsafe memory access: Chronicle
     * writes the log through a memory mapping of a sparse file, and on a full file system the page
     * fault that needs a new block fails. Only the write is lost; the JVM goes on.
     */
    static boolean isMappedFileFault(Throwable failure) {
        return failure instanceof InternalError && failure.getMessage() != null
            && failure.getMessage().contains("fault occurred in") && failure.getMessage().contains("unsafe memory access");
    }

    /** {@code failure} and, when it differs, its innermost cause: what a one-line report names. */
    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = String.valueOf(failure);
        if (isMappedFileFault(failure)) {
            text += " (a write to the mapped log file failed: is the file system full?)";
        }
        return root == failure ? text : text + "; caused by " + root;
    }
}
