package io.selcc.wal;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A checkpoint file that cannot be trusted: not a checkpoint, of an unknown format, cut short,
 * damaged, or inconsistent. The message names the file and what is wrong ({@code key=value});
 * {@link #damage()} says which check failed. An {@link IllegalStateException}, as recovery
 * documents for a damaged checkpoint. Failures to read the file at all are
 * {@link java.io.UncheckedIOException}s instead.
 */
public final class CheckpointException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** Which check a checkpoint file failed. */
    public enum Damage {
        /** It does not start with the checkpoint magic: not a checkpoint file. */
        BAD_MAGIC,
        /** A format version this code does not read. */
        UNKNOWN_VERSION,
        /** Shorter than a checkpoint, or it does not end with a trailer: cut short or never finished. */
        TRUNCATED,
        /** The bytes do not match the trailer's CRC32C. */
        BAD_CRC,
        /** The CRC matched but a field is impossible (a length, a table id, a repeated key): a writer's bug. */
        BAD_STRUCTURE,
        /** The CRC matched but row counts disagree (chunks, sections, trailer): a writer's bug. */
        BAD_COUNTS,
        /** The file's bytes changed between a reader's passes over it. */
        CHANGED
    }

    private final transient Path file;
    private final Damage damage;

    CheckpointException(Path file, Damage damage, String detail) {
        super("checkpoint unusable: file=" + file + " damage=" + damage + " " + detail);
        this.file = Objects.requireNonNull(file, "file");
        this.damage = Objects.requireNonNull(damage, "damage");
    }

    /** The checkpoint file. */
    public Path file() {
        return file;
    }

    /** Which check failed. */
    public Damage damage() {
        return damage;
    }
}
