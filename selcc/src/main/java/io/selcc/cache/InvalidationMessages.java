package io.selcc.cache;

import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;

/**
 * The messages of kind {@code INVALIDATION} between compute nodes, and their codec. Plain data: the
 * receiver learns the sender from the fabric, keeps its own record of a request it cannot serve at once
 * ({@link InvalidationRequest}), and answers through the reply handle; a forwarded line travels in the
 * {@link Answer}.
 *
 * <p>Layouts (big-endian, after a one-byte type tag):
 * <pre>
 * tag 1 Invalidate: requestId long | address long | case byte (InvalidationCase ordinal) | priority int
 *                   | age long (the requester's wait-die age, ComputeNode.NO_AGE for none)
 * tag 2 Cancel:     requestId long | address long
 * tag 3 Answer:     requestId long | status byte (Answer.Status ordinal) | dirtyLow int | dirtyHigh int
 *                   | copy (int length, -1 for none, then the bytes from the GCL's copy offset)
 * tag 4 CancelAck:  requestId long | cancelled byte (0/1)
 * </pre>
 */
final class InvalidationMessages {
    private InvalidationMessages() {
    }

    private static final int INVALIDATE = 1;
    private static final int CANCEL = 2;
    private static final int ANSWER = 3;
    private static final int CANCEL_ACK = 4;

    /**
     * Asks the holder of {@code address} to give it up as {@code kind} says (paper 4.4). {@code age} is
     * the requesting transaction's wait-die age ({@link ComputeNode#NO_AGE} for an acquire without one):
     * a holder whose local holders include an older one answers {@link Answer.Status#DIE} at once
     * instead of keeping the request.
     */
    record Invalidate(long requestId, long address, InvalidationCase kind, int priority, long age) {
        /** A request without a wait-die age. */
        Invalidate(long requestId, long address, InvalidationCase kind, int priority) {
            this(requestId, address, kind, priority, ComputeNode.NO_AGE);
        }
    }

    /**
     * The requester stopped waiting for a request the receiver kept: the receiver decides. If it has
     * not started serving the request it answers it {@code CANCELLED}; otherwise its answer stands.
     */
    record Cancel(long requestId, long address) {
    }

    /** The one answer to an {@link Invalidate}. */
    record Answer(long requestId, Status status, int dirtyLow, int dirtyHigh, byte[] copy) {
        enum Status {
            /** Ownership and the latest copy passed to the requester ({@code copy}, dirty bounds for case 1). */
            GRANTED,
            /** The receiver released its shared copy; the requester retries the latch. */
            RELEASED,
            /** Nothing was done; the requester retries the latch. */
            DROPPED,
            /** The requester cancelled it before it was served: nothing was done. */
            CANCELLED,
            /**
             * Nothing was done: a local holder of the line is older than the requester's wait-die age, so
             * the requester must not wait for it and aborts (wait-die's "die").
             */
            DIE
        }

        static Answer of(long requestId, Status status) {
            return new Answer(requestId, status, CacheFrame.CLEAN, 0, null);
        }
    }

    /** The reply to a {@link Cancel}: whether the request was cancelled (else its answer stands). */
    record CancelAck(long requestId, boolean cancelled) {
    }

    /** Encodes and decodes the four messages (layouts in the class comment). */
    static final MessageCodec CODEC = new MessageCodec() {
        @Override
        public void encode(Object message, WireWriter out) {
            switch (message) {
                case Invalidate m -> out.putByte(INVALIDATE).putLong(m.requestId()).putLong(m.address())
                    .putByte(m.kind().ordinal()).putInt(m.priority()).putLong(m.age());
                case Cancel m -> out.putByte(CANCEL).putLong(m.requestId()).putLong(m.address());
                case Answer m -> out.putByte(ANSWER).putLong(m.requestId()).putByte(m.status().ordinal())
                    .putInt(m.dirtyLow()).putInt(m.dirtyHigh()).putBytes(m.copy());
                case CancelAck m -> out.putByte(CANCEL_ACK).putLong(m.requestId()).putBoolean(m.cancelled());
                default -> throw new IllegalArgumentException("not an invalidation message: " + message.getClass().getName());
            }
        }

        @Override
        public Object decode(WireReader in) {
            int tag = in.getByte();
            return switch (tag) {
                case INVALIDATE -> new Invalidate(in.getLong(), in.getLong(),
                    in.getEnum(InvalidationCase.values(), "invalidation case"), in.getInt(), in.getLong());
                case CANCEL -> new Cancel(in.getLong(), in.getLong());
                case ANSWER -> new Answer(in.getLong(), in.getEnum(Answer.Status.values(), "answer status"),
                    in.getInt(), in.getInt(), in.getBytes());
                case CANCEL_ACK -> new CancelAck(in.getLong(), in.getBoolean());
                default -> throw new MalformedMessageException("unknown invalidation message type " + tag);
            };
        }
    };
}
