package io.selcc.fabric;

import java.util.EnumMap;
import java.util.Map;

/**
 * One compute node's message handlers and codecs by kind, for a fabric's endpoint: each kind is
 * registered once, with both. Thread-safe.
 */
public final class MessageRegistry {
    private final int nodeId;
    private final Map<MessageKind, MessageHandler> handlers = new EnumMap<>(MessageKind.class);
    private final Map<MessageKind, MessageCodec> codecs = new EnumMap<>(MessageKind.class);

    public MessageRegistry(int nodeId) {
        this.nodeId = nodeId;
    }

    /** See {@link FabricEndpoint#register}. */
    public synchronized void register(MessageKind kind, MessageCodec codec, MessageHandler handler) {
        if (codec == null || handler == null) {
            throw new IllegalArgumentException("a message kind needs a codec and a handler: node=" + nodeId + " kind=" + kind);
        }
        if (handlers.putIfAbsent(kind, handler) != null) {
            throw new IllegalStateException("handler already registered: node=" + nodeId + " kind=" + kind);
        }
        codecs.put(kind, codec);
    }

    /** The handler of {@code kind}, or null if none is registered (yet). */
    public synchronized MessageHandler handlerOrNull(MessageKind kind) {
        return handlers.get(kind);
    }

    /** The handler of {@code kind}; throws naming the node and kind if none is registered. */
    public MessageHandler handler(MessageKind kind) {
        MessageHandler handler = handlerOrNull(kind);
        if (handler == null) {
            throw new IllegalStateException("no handler for message: node=" + nodeId + " kind=" + kind);
        }
        return handler;
    }

    /** The codec of {@code kind}; throws naming the node and kind if none is registered. */
    public synchronized MessageCodec codec(MessageKind kind) {
        MessageCodec codec = codecs.get(kind);
        if (codec == null) {
            throw new IllegalStateException("no codec for message: node=" + nodeId + " kind=" + kind);
        }
        return codec;
    }
}
