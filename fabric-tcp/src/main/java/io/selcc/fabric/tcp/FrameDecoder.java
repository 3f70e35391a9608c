package io.selcc.fabric.tcp;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Cuts the byte stream into frames by their length field (see {@link Frame}); a frame over
 * {@link Frame#MAX_LENGTH} fails the connection (its handler logs why and closes it).
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    FrameDecoder() {
        // Netty's limit counts the length field too: a frame of MAX_LENGTH after it must pass.
        super(Frame.MAX_LENGTH + Frame.LENGTH_FIELD, 0, Frame.LENGTH_FIELD, 0, Frame.LENGTH_FIELD);
    }
}
