package io.selcc.twopc;

import io.selcc.engine.cc.AbortReason;
import io.selcc.fabric.MalformedMessageException;
import io.selcc.fabric.MessageCodec;
import io.selcc.fabric.WireReader;
import io.selcc.fabric.WireWriter;

import java.util.ArrayList;
import java.util.List;

/**
 * The messages of partitioned mode (fabric kind {@code TWO_PHASE_COMMIT}): plain data (ids, names, keys,
 * row bytes), nothing tied to this JVM. A global transaction id names the distributed transaction;
 * operations on a branch are numbered from 1 so a duplicated request is answered from the branch's last
 * reply instead of running twice.
 *
 * <p>Layouts on the wire ({@link #CODEC}; big-endian; a one-byte type tag first; a string or a byte
 * array is an int length, -1 for null, then its bytes; a list is an int count then its elements):
 * <pre>
 *  1 Read     gtid long | opNumber int | table string | key long | forUpdate byte
 *  2 Insert   gtid long | opNumber int | table string | image bytes
 *  3 Delete   gtid long | opNumber int | table string | key long
 *  4 Scan     gtid long | opNumber int | index string | low long | high long | limit int | backward byte
 *  5 Prepare  gtid long | ops int | writes list of (table string | key long | image bytes)
 *  6 Decide   gtid long | commit byte
 *  7 Inquire  gtid long
 *  8 Row      image bytes
 *  9 Rows     images list of bytes
 * 10 Done     changed byte
 * 11 Refused  reason byte (AbortReason ordinal)
 * 12 Vote     vote byte (ordinal)
 * 13 Outcome  outcome byte (ordinal)
 * 14 Ack
 * </pre>
 */
final class Messages {
    private Messages() {
    }

    sealed interface Request permits Op, Prepare, Decide, Inquire {
        long gtid();
    }

    /** Work on the receiver's partition, run by the branch of {@code gtid} under the receiver's CC. */
    sealed interface Op extends Request permits Read, Insert, Delete, Scan {
        int opNumber();
    }

    /** Reads the row with primary key {@code key}; {@code forUpdate} takes it for writing (2PL: exclusive). */
    record Read(long gtid, int opNumber, String table, long key, boolean forUpdate) implements Op {
    }

    record Insert(long gtid, int opNumber, String table, byte[] image) implements Op {
    }

    record Delete(long gtid, int opNumber, String table, long key) implements Op {
    }

    /** Up to {@code limit} rows of {@code index} in [{@code low}, {@code high}], in key order or backward. */
    record Scan(long gtid, int opNumber, String index, long low, long high, int limit, boolean backward) implements Op {
    }

    /** One row write carried by a prepare: the after-image of a row the branch read for update. */
    record Write(String table, long key, byte[] image) {
    }

    /**
     * Phase one. {@code ops} is how many operations the coordinator sent this branch (a branch that ran
     * fewer lost one: it votes no); {@code writes} are installed before the branch prepares.
     */
    record Prepare(long gtid, int ops, List<Write> writes) implements Request {
    }

    /** Phase two (or an abort before phase one). */
    record Decide(long gtid, boolean commit) implements Request {
    }

    /** A participant in doubt asks the coordinator for the outcome. */
    record Inquire(long gtid) implements Request {
    }

    /** A read's row (null image: no such row). */
    record Row(byte[] image) {
    }

    record Rows(List<byte[]> images) {
    }

    record Done(boolean changed) {
    }

    /** The branch met a conflict and rolled back: the distributed transaction must abort. */
    record Refused(AbortReason reason) {
    }

    enum Vote { YES, NO, READ_ONLY }

    enum Outcome { COMMIT, ABORT, UNKNOWN }

    enum Ack { ACK }

    /** Encodes and decodes every message above (layouts in the class comment). */
    static final MessageCodec CODEC = new MessageCodec() {
        @Override
        public void encode(Object message, WireWriter out) {
            switch (message) {
                case Read m -> out.putByte(1).putLong(m.gtid()).putInt(m.opNumber()).putString(m.table()).putLong(m.key())
                    .putBoolean(m.forUpdate());
                case Insert m -> out.putByte(2).putLong(m.gtid()).putInt(m.opNumber()).putString(m.table()).putBytes(m.image());
                case Delete m -> out.putByte(3).putLong(m.gtid()).putInt(m.opNumber()).putString(m.table()).putLong(m.key());
                case Scan m -> out.putByte(4).putLong(m.gtid()).putInt(m.opNumber()).putString(m.index()).putLong(m.low())
                    .putLong(m.high()).putInt(m.limit()).putBoolean(m.backward());
                case Prepare m -> {
                    out.putByte(5).putLong(m.gtid()).putInt(m.ops()).putInt(m.writes().size());
                    for (Write w : m.writes()) {
                        out.putString(w.table()).putLong(w.key()).putBytes(w.image());
                    }
                }
                case Decide m -> out.putByte(6).putLong(m.gtid()).putBoolean(m.commit());
                case Inquire m -> out.putByte(7).putLong(m.gtid());
                case Row m -> out.putByte(8).putBytes(m.image());
                case Rows m -> {
                    out.putByte(9).putInt(m.images().size());
                    for (byte[] image : m.images()) {
                        out.putBytes(image);
                    }
                }
                case Done m -> out.putByte(10).putBoolean(m.changed());
                case Refused m -> out.putByte(11).putByte(m.reason().ordinal());
                case Vote m -> out.putByte(12).putByte(m.ordinal());
                case Outcome m -> out.putByte(13).putByte(m.ordinal());
                case Ack m -> out.putByte(14);
                default -> throw new IllegalArgumentException("not a two-phase-commit message: " + message.getClass().getName());
            }
        }

        @Override
        public Object decode(WireReader in) {
            int tag = in.getByte();
            return switch (tag) {
                case 1 -> new Read(in.getLong(), in.getInt(), in.getString(), in.getLong(), in.getBoolean());
                case 2 -> new Insert(in.getLong(), in.getInt(), in.getString(), in.getBytes());
                case 3 -> new Delete(in.getLong(), in.getInt(), in.getString(), in.getLong());
                case 4 -> new Scan(in.getLong(), in.getInt(), in.getString(), in.getLong(), in.getLong(), in.getInt(),
                    in.getBoolean());
                case 5 -> {
                    long gtid = in.getLong();
                    int ops = in.getInt();
                    int count = count(in, "prepare writes");
                    List<Write> writes = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        writes.add(new Write(in.getString(), in.getLong(), in.getBytes()));
                    }
                    yield new Prepare(gtid, ops, writes);
                }
                case 6 -> new Decide(in.getLong(), in.getBoolean());
                case 7 -> new Inquire(in.getLong());
                case 8 -> new Row(in.getBytes());
                case 9 -> {
                    int count = count(in, "rows");
                    List<byte[]> images = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        images.add(in.getBytes());
                    }
                    yield new Rows(images);
                }
                case 10 -> new Done(in.getBoolean());
                case 11 -> new Refused(in.getEnum(AbortReason.values(), "abort reason"));
                case 12 -> in.getEnum(Vote.values(), "vote");
                case 13 -> in.getEnum(Outcome.values(), "outcome");
                case 14 -> Ack.ACK;
                default -> throw new MalformedMessageException("unknown two-phase-commit message type " + tag);
            };
        }

        /** A list's element count: each element takes at least 4 bytes, which bounds a corrupt count. */
        private static int count(WireReader in, String what) {
            int count = in.getInt();
            if (count < 0 || count > in.remaining() / 4) {
                throw new MalformedMessageException(what + ": count " + count + " with " + in.remaining() + " bytes left");
            }
            return count;
        }
    };
}
