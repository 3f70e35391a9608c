package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;
import io.selcc.fabric.NodeFailedException;

/** Turns an ERROR frame's body into the exception it stands for. */
final class RemoteError {
    private RemoteError() {
    }

    static RuntimeException of(ByteBuf body, String from) {
        int code = body.readUnsignedByte();
        int node = body.readInt();
        String reason = Frame.readString(body);
        return switch (code) {
            case Frame.ERROR_FENCED -> new NodeFailedException(node, reason);
            case Frame.ERROR_BAD_REQUEST -> new IllegalArgumentException(from + " refused the request: " + reason);
            case Frame.ERROR_NO_HANDLER -> new NoHandlerException(node, from + ": " + reason);
            default -> new IllegalStateException(from + " failed the request: " + reason);
        };
    }
}
