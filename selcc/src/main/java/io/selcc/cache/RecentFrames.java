package io.selcc.cache;

/**
 * A direct-mapped memo of frames by GCL address, per thread and {@link SelccNode} (its {@code frameOf}
 * looks here before the frame table): 16,384 references (64 KiB), about TPC-C's ITEM pages and a good
 * part of a warehouse's STOCK pages, whose rows every New-Order reads. An entry may be stale; the
 * caller checks the frame's address.
 */
final class RecentFrames {
    private static final int BITS = 14;
    final CacheFrame[] frames = new CacheFrame[1 << BITS];
    /** Lookups this memo answered (tests check that it is used). */
    long hits;

    static int slot(long address) {
        return (int) ((address * 0x9E3779B97F4A7C15L) >>> (64 - BITS));
    }
}
