package io.selcc.fabric;

/**
 * Turns the requests and replies of one {@link MessageKind} into bytes and back, so they can leave the
 * JVM: every message is plain data (ids, addresses, numbers, byte arrays, strings), never a thread, a
 * memory segment or another in-JVM object. Each codec documents its messages' layouts.
 *
 * <p>{@link #decode} of bytes {@link #encode} did not produce throws {@link MalformedMessageException}.
 */
public interface MessageCodec {
    /** Writes {@code message} (a request or a reply of this kind). */
    void encode(Object message, WireWriter out);

    /** Reads one message written by {@link #encode}. */
    Object decode(WireReader in);
}
