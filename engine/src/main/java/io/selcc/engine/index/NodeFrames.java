package io.selcc.engine.index;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;

/**
 * The cache frames one thread last found this tree's nodes in, so a descent's optimistic reads and its
 * leaf latches hand the compute node a guess ({@link ComputeNode#tryLock}, {@link
 * ComputeNode#tryOptimisticRead(long, GclHandle, int)}) instead of making it look the address up in its
 * shared frame directory (3% of a New-Order + Payment profile went to those lookups, most of them for
 * the same few inner nodes and leaves again and again). A guess is never trusted: the node checks the
 * frame's tag against the address and looks the address up when the frame has moved on to another line,
 * so an entry may be stale, overwritten by a colliding node, or missing. Direct-mapped, no eviction
 * logic. Not thread-safe: part of a thread's {@link TreeContext}.
 */
final class NodeFrames {
    /** Entries, a power of two: a TPC-C tree's inner nodes and the leaves a thread keeps going back to. */
    static final int SIZE = 1024;

    private final long[] addresses = new long[SIZE];
    private final int[] frames = new int[SIZE];
    private long guessed;

    NodeFrames() {
        java.util.Arrays.fill(frames, ComputeNode.NO_FRAME);
    }

    /** The frame {@code address} was last found in, or {@link ComputeNode#NO_FRAME}. */
    int frameOf(long address) {
        int i = slot(address);
        if (addresses[i] != address) {
            return ComputeNode.NO_FRAME;
        }
        guessed++;
        return frames[i];
    }

    /** Frames guessed so far (tests assert that guesses were made). */
    long guessed() {
        return guessed;
    }

    /** Remembers where {@code handle}'s node (just latched or read) is cached; nothing for an uncached one. */
    void remember(GclHandle handle) {
        int frame = handle.frameIndex();
        if (frame != ComputeNode.NO_FRAME) {
            int i = slot(handle.address());
            addresses[i] = handle.address();
            frames[i] = frame;
        }
    }

    private static int slot(long address) {
        // Node addresses are GCL-aligned offsets with the memory node in the high bits: mixed, then the top bits.
        return (int) ((address * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - Integer.numberOfTrailingZeros(SIZE)));
    }
}
