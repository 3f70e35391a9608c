package io.selcc.fabric.tcp;

import io.netty.buffer.ByteBuf;

/**
 * The one frame layout on every connection of the TCP fabric (big-endian):
 * <pre>
 * offset size  field
 *   0     4    length   bytes after this field: 10 + body, at most {@link #MAX_LENGTH}
 *   4     1    version  {@link #VERSION}; a peer that speaks another is refused
 *   5     1    type     one of the constants below
 *   6     8    id       the request id a request carries and its reply repeats (0 for HELLO)
 *  14     ...  body     per type:
 *
 *  HELLO          role byte (ROLE_COMPUTE) | sender's compute node id int (-1: a process's link to a
 *                   memory node, shared by the compute nodes it hosts)
 *  HELLO_OK       role byte (ROLE_MEMORY or ROLE_COMPUTE) | capacity long (memory: its bytes; compute: 0)
 *  VERBS          issuer int (compute node) | beneficiary int (-1: none) | count int | count x verb:
 *                   kind byte (VerbBatch.Kind ordinal) | address long | then READ: length int;
 *                   WRITE: length int, bytes; CAS: expected long, update long; FAA: delta long
 *  VERBS_OK       per verb, in order: READ: its bytes; WRITE: nothing; CAS, FAA: previous value long
 *  FENCE          compute node id int
 *  FENCE_OK       (empty)
 *  MESSAGE        kind byte (MessageKind ordinal) | the message's bytes (its kind's codec)
 *  MESSAGE_REPLY  the reply's bytes (its kind's codec)
 *  ERROR          code byte (ERROR_*) | node int (ERROR_FENCED: the fenced node; ERROR_NO_HANDLER: the
 *                   receiver; else -1) | reason string
 *                   (int length, UTF-8)
 * </pre>
 * A frame longer than {@link #MAX_LENGTH}, a version other than {@link #VERSION}, or a type the
 * receiver does not take closes the connection with a logged reason; a request that cannot be
 * carried out (an address outside the memory node, a malformed body) gets an ERROR reply.
 */
final class Frame {
    private Frame() {
    }

    static final int VERSION = 1;
    /** Largest frame after the length field: a batch of 64 KiB lines with headroom. */
    static final int MAX_LENGTH = 16 << 20;
    static final int LENGTH_FIELD = 4;
    /** version + type + id */
    static final int HEADER_AFTER_LENGTH = 1 + 1 + 8;

    static final int HELLO = 1;
    static final int HELLO_OK = 2;
    static final int VERBS = 3;
    static final int VERBS_OK = 4;
    static final int FENCE = 5;
    static final int FENCE_OK = 6;
    static final int MESSAGE = 7;
    static final int MESSAGE_REPLY = 8;
    static final int ERROR = 9;

    static final int ROLE_MEMORY = 1;
    static final int ROLE_COMPUTE = 2;

    /** The request was malformed or asked for something outside the node (address, kind). */
    static final int ERROR_BAD_REQUEST = 1;
    /** The verbs' issuer or beneficiary is fenced off this memory node. */
    static final int ERROR_FENCED = 2;
    /** The receiver failed while carrying it out. */
    static final int ERROR_FAILED = 3;
    /** The receiving compute node has no handler for the message's kind (yet: it may still be starting). */
    static final int ERROR_NO_HANDLER = 4;

    /** Starts a frame in {@code out}: a length placeholder and the header; {@link #finish} sets the length. */
    static int start(ByteBuf out, int type, long id) {
        int lengthAt = out.writerIndex();
        out.writeInt(0).writeByte(VERSION).writeByte(type).writeLong(id);
        return lengthAt;
    }

    static void finish(ByteBuf out, int lengthAt) {
        int length = out.writerIndex() - lengthAt - LENGTH_FIELD;
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("frame of " + length + " bytes is over the limit of " + MAX_LENGTH);
        }
        out.setInt(lengthAt, length);
    }

    /** Sends an ERROR frame answering request {@code id} on {@code channel}. */
    static void sendError(io.netty.channel.Channel channel, long id, int code, int node, String reason) {
        channel.writeAndFlush(error(channel.alloc(), id, code, node, reason));
    }

    /** An ERROR frame answering request {@code id}. */
    static ByteBuf error(io.netty.buffer.ByteBufAllocator alloc, long id, int code, int node, String reason) {
        ByteBuf out = alloc.buffer(64 + reason.length() * 3);
        int at = start(out, ERROR, id);
        out.writeByte(code).writeInt(node);
        writeString(out, reason);
        finish(out, at);
        return out;
    }

    static void writeString(ByteBuf out, String s) {
        byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(utf8.length).writeBytes(utf8);
    }

    static String readString(ByteBuf in) {
        int length = in.readInt();
        if (length < 0 || length > in.readableBytes()) {
            throw new IllegalArgumentException("string of " + length + " bytes with " + in.readableBytes() + " left");
        }
        byte[] utf8 = new byte[length];
        in.readBytes(utf8);
        return new String(utf8, java.nio.charset.StandardCharsets.UTF_8);
    }

    static String typeName(int type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case HELLO_OK -> "HELLO_OK";
            case VERBS -> "VERBS";
            case VERBS_OK -> "VERBS_OK";
            case FENCE -> "FENCE";
            case FENCE_OK -> "FENCE_OK";
            case MESSAGE -> "MESSAGE";
            case MESSAGE_REPLY -> "MESSAGE_REPLY";
            case ERROR -> "ERROR";
            default -> "unknown type " + type;
        };
    }
}
