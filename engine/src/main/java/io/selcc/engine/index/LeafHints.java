package io.selcc.engine.index;

import java.util.Arrays;

/**
 * Leaves one thread's operations on one tree ended at, with their fences as read then, so a leaf-level
 * operation whose key falls in a remembered range starts at that leaf instead of descending from the
 * root (TPC-C's terminals insert into ten districts' ranges in turn, which one hint per tree missed
 * every time, at three or four node reads a descent). Nothing is read to use a hint: a leaf's low fence
 * never changes and nodes are never freed, so a leaf whose remembered range holds the key holds it still
 * or moved part of it right by a split, which the latching move-right handles. The root, which may stop
 * being a leaf, is never remembered. Not thread-safe: part of a thread's {@link TreeContext}.
 */
final class LeafHints {
    /** Leaves remembered per thread and tree (round-robin replacement). */
    private static final int SIZE = 16;

    private final boolean unique;
    private final long[] leaves = new long[SIZE];
    /** Per hint: low key, low value, high key, high value. */
    private final long[] fences = new long[SIZE * 4];
    /** Per hint: bit 0 low fence infinite, bit 1 high fence infinite. */
    private final byte[] infinite = new byte[SIZE];
    private int next;
    /** The hint an operation last started at or reached: tried first (runs of keys stay in one leaf). */
    private int recent;
    /** Operations that started at a hinted leaf (tests assert that hints were used). */
    private long taken;

    LeafHints(boolean unique) {
        this.unique = unique;
    }

    /**
     * A remembered leaf whose range, as it was then, holds (k, v), counted as taken; 0 if none. The
     * caller starts there and latches it, moving right as a descent would.
     */
    long take(long k, long v) {
        long address = leafFor(k, v);
        if (address != 0) {
            taken++;
        }
        return address;
    }

    private long leafFor(long k, long v) {
        if (leaves[recent] != 0 && holds(recent, k, v)) {
            return leaves[recent];
        }
        for (int i = 0; i < SIZE; i++) {
            if (leaves[i] != 0 && holds(i, k, v)) {
                recent = i;
                return leaves[i];
            }
        }
        return 0;
    }

    private boolean holds(int i, long k, long v) {
        int f = i * 4;
        boolean aboveLow = (infinite[i] & 1) != 0
            || BLinkNode.compare(unique, k, v, fences[f], fences[f + 1]) > 0;
        return aboveLow && ((infinite[i] & 2) != 0
            || BLinkNode.compare(unique, k, v, fences[f + 2], fences[f + 3]) <= 0);
    }

    /**
     * Remembers leaf {@code n} (latched by the caller) at {@code address} with its fences now. A
     * remembered left neighbour whose high fence this leaf's range overlaps split since it was
     * remembered: its high is cut back to this leaf's low, so keys beyond it no longer start there and
     * move right.
     */
    void reached(long address, BLinkNode n, long root) {
        if (address == root) {
            return;
        }
        if (leaves[recent] == address) {
            // The leaf the operation started at (or the last one reached): known, and as a leaf's
            // low fence never changes, no remembered neighbour needs cutting back.
            store(recent, address, n);
            return;
        }
        boolean lowInfinite = n.lowInfinite();
        long lowKey = lowInfinite ? 0 : n.lowKey();
        long lowValue = lowInfinite ? 0 : n.lowValue();
        int slot = -1;
        for (int i = 0; i < SIZE; i++) {
            if (leaves[i] == address) {
                slot = i;
            } else if (leaves[i] != 0 && !lowInfinite && holds(i, lowKey, lowValue)) {
                int f = i * 4;
                fences[f + 2] = lowKey;
                fences[f + 3] = lowValue;
                infinite[i] &= ~2;
            }
        }
        if (slot < 0) {
            slot = next;
            next = (next + 1) % SIZE;
        }
        store(slot, address, n);
    }

    private void store(int slot, long address, BLinkNode n) {
        boolean lowInfinite = n.lowInfinite();
        boolean highInfinite = n.highInfinite();
        int f = slot * 4;
        leaves[slot] = address;
        fences[f] = lowInfinite ? 0 : n.lowKey();
        fences[f + 1] = lowInfinite ? 0 : n.lowValue();
        fences[f + 2] = highInfinite ? 0 : n.highKey();
        fences[f + 3] = highInfinite ? 0 : n.highValue();
        infinite[slot] = (byte) ((lowInfinite ? 1 : 0) | (highInfinite ? 2 : 0));
        recent = slot;
    }

    /** Forgets every leaf (tests that count a full descent). */
    void forget() {
        Arrays.fill(leaves, 0);
    }

    /** Operations that started at a hinted leaf so far. */
    long taken() {
        return taken;
    }
}
