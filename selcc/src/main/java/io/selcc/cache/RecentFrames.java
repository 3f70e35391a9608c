package io.selcc.cache;

/**
 * A direct-mapped memo of frame indexes by GCL address, per thread and {@link SelccNode} (its
 * {@code frameIndexOf} looks here before the frame table): 16,384 slots of 4 bytes (64 KiB), about
 * TPC-C's ITEM pages and a good part of a warehouse's STOCK pages, whose rows every New-Order reads.
 * A slot holds a frame index plus one (0 for none) and is only a hint: the frame may have been evicted
 * and reused for another line since, which the tag in its header tells (the caller checks it).
 */
final class RecentFrames {
    private static final int BITS = 14;
    final int[] frames = new int[1 << BITS];
    /** Lookups this memo answered (tests check that it is used). */
    long hits;

    static int slot(long address) {
        return (int) ((address * 0x9E3779B97F4A7C15L) >>> (64 - BITS));
    }
}
