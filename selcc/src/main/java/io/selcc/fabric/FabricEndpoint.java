package io.selcc.fabric;

import java.lang.foreign.MemorySegment;

/**
 * One compute node's attachment to the fabric. Thread-safe: all threads of the node share it.
 * Every call counts what it does in {@link #counters()}.
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

    /** One round trip: executes the batch's verbs in order. */
    void post(VerbBatch batch);

    /**
     * {@link #post} on behalf of compute node {@code beneficiary}: the batch grants it something (a line
     * handed over, a reader bit), so it must not land once the beneficiary is fenced. Throws
     * {@link NodeFailedException} naming the beneficiary, and does nothing, if it is; a fence of the
     * beneficiary waits for a batch in flight.
     */
    void postFor(int beneficiary, VerbBatch batch);

    /** {@link #remoteFaa} on behalf of {@code beneficiary}: see {@link #postFor}. */
    long remoteFaaFor(int beneficiary, long address, long delta);

    /** Installs the handler for one message kind on this node (once, before traffic starts). */
    void register(MessageKind kind, MessageHandler handler);

    /** One round trip: sends a request to another compute node and returns its reply. */
    Object call(int toNode, MessageKind kind, Object request);

    /**
     * One round trip: sends {@code requests[i]} to {@code toNodes[i]} for {@code i < count}, all at once,
     * and stores each reply in {@code replies[i]}.
     */
    void callAll(int[] toNodes, int count, MessageKind kind, Object[] requests, Object[] replies);
}
