package io.selcc.fabric;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Several one-sided verbs posted together: they execute in order and cost one round trip
 * ({@link FabricEndpoint#post(VerbBatch)}). Examples: CAS+READ (X acquire), FAA+READ (S acquire),
 * WRITE+FAA (release of a dirty exclusive copy), and an eviction batch of many WRITE+FAA pairs to one
 * memory node.
 *
 * <p>Order: verbs to one memory node execute in the order they were added; verbs to different memory
 * nodes have no order between them (RDMA orders a queue pair, one per memory node, and nothing across
 * them), and all have completed when the post returns. A caller that needs a verb on one memory node to
 * land before a verb on another posts two batches.
 *
 * <p>Reusable and not thread-safe: one per thread. Adding a verb allocates nothing once the batch has
 * grown to its working size.
 *
 * <p>A fabric outside this package reads the verbs through {@link #kind}, {@link #address},
 * {@link #segment}, {@link #segmentOffset}, {@link #length}, {@link #operand} and {@link #update}, and
 * reports each atomic's previous value with {@link #complete}.
 */
public final class VerbBatch {
    /** The one-sided verbs. */
    public enum Kind { READ, WRITE, CAS, FAA }

    Kind[] kinds = new Kind[4];
    long[] addresses = new long[4];
    MemorySegment[] segments = new MemorySegment[4];
    long[] segmentOffsets = new long[4];
    int[] lengths = new int[4];
    long[] operands = new long[4];
    long[] updates = new long[4];
    long[] results = new long[4];
    int size;

    public VerbBatch clear() {
        Arrays.fill(segments, 0, size, null);
        size = 0;
        return this;
    }

    public int size() {
        return size;
    }

    /** Adds a READ of {@code length} bytes at {@code address} into {@code dst}; returns the verb index. */
    public int read(long address, MemorySegment dst, long dstOffset, int length) {
        return add(Kind.READ, address, dst, dstOffset, length, 0, 0);
    }

    /** Adds a WRITE of {@code length} bytes from {@code src} to {@code address}; returns the verb index. */
    public int write(long address, MemorySegment src, long srcOffset, int length) {
        return add(Kind.WRITE, address, src, srcOffset, length, 0, 0);
    }

    /** Adds a CAS on the 8-byte word at {@code address}; {@link #result} is the previous value. */
    public int cas(long address, long expected, long update) {
        return add(Kind.CAS, address, null, 0, 8, expected, update);
    }

    /** Adds an FAA on the 8-byte word at {@code address}; {@link #result} is the previous value. */
    public int faa(long address, long delta) {
        return add(Kind.FAA, address, null, 0, 8, delta, 0);
    }

    /** The value an atomic verb found (valid after the batch was posted). */
    public long result(int index) {
        return results[check(index)];
    }

    /** Verb {@code index}'s kind. */
    public Kind kind(int index) {
        return kinds[check(index)];
    }

    /** The global address verb {@code index} acts on. */
    public long address(int index) {
        return addresses[check(index)];
    }

    /** READ: the local segment the bytes go to; WRITE: the one they come from; atomics: null. */
    public MemorySegment segment(int index) {
        return segments[check(index)];
    }

    /** Where in {@link #segment} the bytes start. */
    public long segmentOffset(int index) {
        return segmentOffsets[check(index)];
    }

    /** Bytes read or written (8 for an atomic). */
    public int length(int index) {
        return lengths[check(index)];
    }

    /** CAS: the expected value; FAA: the delta; 0 otherwise. */
    public long operand(int index) {
        return operands[check(index)];
    }

    /** CAS: the value swapped in; 0 otherwise. */
    public long update(int index) {
        return updates[check(index)];
    }

    /** For a fabric executing the batch: atomic verb {@code index} found {@code previous}. */
    public void complete(int index, long previous) {
        results[check(index)] = previous;
    }

    private int check(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException("verb index=" + index + " size=" + size);
        }
        return index;
    }

    /** Bytes that travel with this batch (payloads of READ and WRITE, 8 per atomic). */
    public long payloadBytes() {
        long bytes = 0;
        for (int i = 0; i < size; i++) {
            bytes += lengths[i];
        }
        return bytes;
    }

    private int add(Kind kind, long address, MemorySegment segment, long segmentOffset, int length,
                    long operand, long update) {
        if (size == kinds.length) {
            grow();
        }
        int i = size++;
        kinds[i] = kind;
        addresses[i] = address;
        segments[i] = segment;
        segmentOffsets[i] = segmentOffset;
        lengths[i] = length;
        operands[i] = operand;
        updates[i] = update;
        results[i] = 0;
        return i;
    }

    private void grow() {
        int n = kinds.length * 2;
        kinds = Arrays.copyOf(kinds, n);
        addresses = Arrays.copyOf(addresses, n);
        segments = Arrays.copyOf(segments, n);
        segmentOffsets = Arrays.copyOf(segmentOffsets, n);
        lengths = Arrays.copyOf(lengths, n);
        operands = Arrays.copyOf(operands, n);
        updates = Arrays.copyOf(updates, n);
        results = Arrays.copyOf(results, n);
    }
}
