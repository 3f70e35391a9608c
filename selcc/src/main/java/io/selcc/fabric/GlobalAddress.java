package io.selcc.fabric;

/**
 * A 64-bit global address: memory node id in the top 16 bits, byte offset in the low 48 bits.
 *
 * <pre>
 *  63            48 47                                              0
 * +----------------+-------------------------------------------------+
 * | memory node id |                  byte offset                    |
 * +----------------+-------------------------------------------------+
 * </pre>
 *
 * GCLs are aligned to their size, so the low bits of a GCL address are zero and a layer above may
 * use them (for example for a slot number in a record id).
 */
public final class GlobalAddress {
    public static final int NODE_SHIFT = 48;
    public static final long OFFSET_MASK = (1L << NODE_SHIFT) - 1;
    public static final int MAX_MEMORY_NODES = 1 << 16;
    /** Never a valid address: offset 0 of every memory node holds its allocator word. */
    public static final long NULL = 0L;

    private GlobalAddress() {
    }

    public static long of(int memoryNode, long offset) {
        if (memoryNode < 0 || memoryNode >= MAX_MEMORY_NODES) {
            throw new IllegalArgumentException("memory node id out of range: memoryNode=" + memoryNode);
        }
        if (offset < 0 || offset > OFFSET_MASK) {
            throw new IllegalArgumentException("offset out of range: offset=" + offset);
        }
        return ((long) memoryNode << NODE_SHIFT) | offset;
    }

    public static int memoryNode(long address) {
        return (int) (address >>> NODE_SHIFT);
    }

    public static long offset(long address) {
        return address & OFFSET_MASK;
    }

    public static String toString(long address) {
        return memoryNode(address) + ":0x" + Long.toHexString(offset(address));
    }
}
