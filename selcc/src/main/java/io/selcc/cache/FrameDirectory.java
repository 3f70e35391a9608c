package io.selcc.cache;

import io.selcc.fabric.GlobalAddress;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Which frame caches each GCL on one node: a slot per GCL of shared memory (4 bytes: the frame index
 * plus one, 0 for none), so a lookup is one array read, with no hashing and no probing. Slots come in
 * chunks of {@value #CHUNK_GCLS} GCLs per memory node, made when a line of the chunk is first cached:
 * a node pays for the address ranges it caches, not for the capacity it could address.
 *
 * <p>Written under the frame table's shard lock of the address (install, retire). Read without it: a
 * racy read may see a slot mid-update, so it is a hint, which the frame header's tag confirms (the
 * caller's check); under the shard lock it is exact.
 */
final class FrameDirectory {
    static final int ABSENT = -1;
    private static final int CHUNK_BITS = 16;
    static final int CHUNK_GCLS = 1 << CHUNK_BITS;
    private static final int CHUNK_MASK = CHUNK_GCLS - 1;

    private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(int[][].class);
    private final int gclShift;
    /** [memory node][chunk] -> slots, null until a line of the chunk is cached. */
    private final int[][][] chunks;

    FrameDirectory(long[] capacities, int gclSize) {
        this.gclShift = Integer.numberOfTrailingZeros(gclSize);
        this.chunks = new int[capacities.length][][];
        for (int m = 0; m < capacities.length; m++) {
            long gcls = (capacities[m] >>> gclShift) + 1;
            chunks[m] = new int[(int) ((gcls + CHUNK_MASK) >>> CHUNK_BITS)][];
        }
    }

    /** The frame index cached for {@code address} (a hint unless under its shard lock), or {@link #ABSENT}. */
    int get(long address) {
        int memoryNode = GlobalAddress.memoryNode(address);
        if (memoryNode >= chunks.length) {
            return ABSENT; // no such memory node: nothing of it is cached (the caller refuses the address)
        }
        int[][] node = chunks[memoryNode];
        long gcl = GlobalAddress.offset(address) >>> gclShift;
        long c = gcl >>> CHUNK_BITS;
        // Acquire: a lookup under a shard lock must see a chunk another shard's holder made (a plain
        // read may, under the memory model, still see null there; on x86 this is a plain load).
        int[] chunk = c < node.length ? (int[]) CHUNK.getAcquire(node, (int) c) : null;
        return chunk == null ? ABSENT : chunk[(int) gcl & CHUNK_MASK] - 1;
    }

    /** Records that frame {@code index} caches {@code address}; under the address's shard lock. */
    void put(long address, int index) {
        int[][] node = chunks[GlobalAddress.memoryNode(address)];
        long gcl = GlobalAddress.offset(address) >>> gclShift;
        int c = (int) (gcl >>> CHUNK_BITS);
        int[] chunk = (int[]) CHUNK.getAcquire(node, c);
        if (chunk == null) {
            chunk = newChunk(node, c);
        }
        chunk[(int) gcl & CHUNK_MASK] = index + 1;
    }

    /**
     * Makes a chunk once: two shards' lock holders may both find it missing (a chunk spans addresses of
     * every shard). A racy reader sees null or zeros (absent) until a slot is written.
     */
    private synchronized int[] newChunk(int[][] node, int c) {
        if (node[c] == null) {
            CHUNK.setRelease(node, c, new int[CHUNK_GCLS]);
        }
        return node[c];
    }

    /** Forgets {@code address}'s frame; under the address's shard lock. */
    void remove(long address) {
        int[] chunk = (int[]) CHUNK.getAcquire(chunks[GlobalAddress.memoryNode(address)],
            (int) ((GlobalAddress.offset(address) >>> gclShift) >>> CHUNK_BITS));
        if (chunk != null) {
            chunk[(int) (GlobalAddress.offset(address) >>> gclShift) & CHUNK_MASK] = 0;
        }
    }
}
