package io.selcc.twopc;

import io.selcc.engine.AbortReason;

import java.util.List;

/**
 * The messages of partitioned mode (fabric kind {@code TWO_PHASE_COMMIT}): plain data (ids, names, keys,
 * row bytes), nothing tied to this JVM. A global transaction id names the distributed transaction;
 * operations on a branch are numbered from 1 so a duplicated request is answered from the branch's last
 * reply instead of running twice.
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
}
