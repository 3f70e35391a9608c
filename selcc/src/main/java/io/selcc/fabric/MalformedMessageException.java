package io.selcc.fabric;

/** Bytes that are not a message of the kind they claim to be (truncated, unknown type, bad length). */
public final class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }
}
