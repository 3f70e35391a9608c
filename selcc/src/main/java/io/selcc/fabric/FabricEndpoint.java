package io.selcc.fabric;

import java.lang.foreign.MemorySegment;

/**
 * One compute node's attachment to the fabric. Thread-safe: all threads of the node share it.
 * Every call counts what it does in {@link #counters()}.
 *
 * <p>A single verb that throws {@link NodeFailedException} took no effect: a memory node refuses a
 * fenced node's batch before any of its verbs runs (a batch over several memory nodes may have run on
 * some). Any other exception from a verb leaves its effect unknown (a network fabric's reply may be
 * lost after memory applied it).
 */
public interface FabricEndpoint {
    int nodeId();

    NodeCounters counters();

    /** One round trip: READ {@code length} bytes at global {@code address} into {@code dst}. */
    void remoteRead(long address, MemorySegment dst, long dstOffset, int length);

    /** One round trip: WRITE {@code length} bytes from {@code src} to global {@code address}. */
    void remoteWrite(long address, MemorySegment src, long srcOffset, int length);

    /** One round trip: compare-and-swap the 8-byte word at {@code address}; returns the previous value. */
    long remoteCas(long address, long expected, long update);

    /** One round trip: fetch-and-add on the 8-byte word at {@code address}; returns the previous value. */
    long remoteFaa(long address, long delta);

    /**
     * One round trip: executes the batch's verbs, in order per memory node (see {@link VerbBatch} for the
     * ordering rule across memory nodes).
     */
    void post(VerbBatch batch);

    /**
     * Starts the batch and returns before it completes where the fabric can (a network fabric); the
     * round trip is counted as by {@link #post}. The in-JVM fabric completes it before returning.
     */
    default PendingVerbs postAsync(VerbBatch batch) {
        post(batch);
        return PendingVerbs.DONE;
    }

    /**
     * {@link #post} on behalf of compute node {@code beneficiary}: the batch grants it something (a line
     * handed over, a reader bit), so it must not land once the beneficiary is fenced. Throws
     * {@link NodeFailedException} naming the beneficiary, and does nothing, if it is; a fence of the
     * beneficiary waits for a batch in flight.
     */
    void postFor(int beneficiary, VerbBatch batch);

    /** {@link #remoteFaa} on behalf of {@code beneficiary}: see {@link #postFor}. */
    long remoteFaaFor(int beneficiary, long address, long delta);

    /**
     * Installs the codec and handler for one message kind on this node (once, before traffic starts).
     * Every node that sends or receives a kind registers it, with codecs that read each other's bytes.
     */
    void register(MessageKind kind, MessageCodec codec, MessageHandler handler);

    /**
     * One round trip: sends a request to another compute node; the reply comes through the returned
     * {@link PendingReply}, possibly after this returns (a receiver that keeps the request answers later).
     * Throws {@link NodeFailedException} if either node is fenced.
     */
    PendingReply send(int toNode, MessageKind kind, Object request);

    /**
     * One round trip: sends {@code requests[i]} to {@code toNodes[i]} for {@code i < count}, all at once,
     * and stores each one's pending reply in {@code replies[i]}.
     */
    void sendAll(int[] toNodes, int count, MessageKind kind, Object[] requests, PendingReply[] replies);

    /** {@link #send} and wait for the reply, however long it takes. */
    default Object call(int toNode, MessageKind kind, Object request) {
        return send(toNode, kind, request).await();
    }

    /** {@link #sendAll} and wait for every reply; {@code replies[i]} is {@code requests[i]}'s. */
    default void callAll(int[] toNodes, int count, MessageKind kind, Object[] requests, Object[] replies) {
        PendingReply[] pending = new PendingReply[count];
        sendAll(toNodes, count, kind, requests, pending);
        for (int i = 0; i < count; i++) {
            replies[i] = pending[i].await();
        }
    }

    /**
     * After a message to {@code toNode} failed with its connection lost
     * ({@link NodeFailedException#connectionLost()}): makes sure this node has a connection to
     * {@code toNode} that {@code toNode} accepted only after it had given up every older one from this
     * node, running the {@link ReplyHandle#whenLost} actions of the requests that came on them. True once
     * that holds: {@code toNode} lives, and nothing there acts on a request of a lost connection any more,
     * so whatever such a request changed in shared memory is there now and stays. False if {@code toNode}
     * cannot be reached (it may be gone) or either node is fenced; a fabric whose connections are never
     * lost between live nodes returns false (the default).
     */
    default boolean reconnect(int toNode) {
        return false;
    }

    /**
     * Whether a connection between two live compute nodes can be lost with requests on it (a network
     * fabric): a reply may then never arrive although its request was carried out. False for the in-JVM
     * fabric, whose messages fail only with a fenced node.
     */
    default boolean connectionsCanDrop() {
        return false;
    }

    /**
     * This fabric's current estimate of one round trip in nanoseconds (0 when it is too short to
     * matter): what latch retries scale their backoff with. A network fabric measures it; the in-JVM
     * fabric's round trip is its latency model's.
     */
    long roundTripNanos();
}
