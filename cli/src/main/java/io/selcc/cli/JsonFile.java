package io.selcc.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Checking an output path before a run, and writing it after, so a long run never ends in "cannot write". */
public final class JsonFile {
    /** Suffix of the file written first and then renamed over the target. */
    static final String TEMP_SUFFIX = ".tmp";

    private JsonFile() {
    }

    /** Why {@code path} cannot be written, or null if it can (as far as can be told without writing). */
    public static String whyNotWritable(Path path) {
        Path absolute = path.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return "is a directory";
        }
        if (Files.exists(absolute)) {
            return Files.isWritable(absolute) ? null : "file is not writable";
        }
        Path parent = absolute.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            return "directory " + parent + " does not exist";
        }
        // The temporary sibling is created in the same directory, so the directory must be writable too.
        return Files.isWritable(parent) ? null : "directory " + parent + " is not writable";
    }

    /**
     * Writes {@code json} to a temporary sibling and renames it over {@code path}, so a reader never sees
     * half a report.
     *
     * @throws CliFailure naming the file when it cannot be written
     */
    public static void write(Path path, String json) {
        Path target = path.toAbsolutePath();
        Path temp = target.resolveSibling(target.getFileName() + TEMP_SUFFIX);
        try {
            Files.writeString(temp, json, StandardCharsets.UTF_8);
            try {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new CliFailure("cannot write JSON: file=" + path + " (" + e + ")", e);
        }
    }
}
