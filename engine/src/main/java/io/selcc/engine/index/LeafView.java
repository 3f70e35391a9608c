package io.selcc.engine.index;

import io.selcc.cache.GclHandle;

/**
 * What a concurrency control may see and set of a latched B-link leaf: its address, its version and
 * its TO timestamps ({@link BLinkNodeLayout}). A reusable flyweight: valid while the caller holds the
 * latch it wrapped; setters need an X latch.
 */
public final class LeafView {
    private GclHandle handle;

    public LeafView wrap(GclHandle latchedLeaf) {
        this.handle = latchedLeaf;
        return this;
    }

    public GclHandle handle() {
        return handle;
    }

    public long address() {
        return handle.address();
    }

    /**
     * False once a root that was a leaf split in place and became the parent of two new leaves
     * ({@link LeafGuard#afterSplit} tells it): from then on it is an internal node.
     */
    public boolean isLeaf() {
        return (handle.getByte(BLinkNodeLayout.LEVEL_OFFSET) & 0xFF) == BLinkNodeLayout.LEAF_LEVEL;
    }

    /** Changes with every insert, delete or split that touches this leaf. */
    public long version() {
        return handle.getLong(BLinkNodeLayout.VERSION_OFFSET);
    }

    public long readTimestamp() {
        return handle.getLong(BLinkNodeLayout.READ_TIMESTAMP_OFFSET);
    }

    public long writeTimestamp() {
        return handle.getLong(BLinkNodeLayout.WRITE_TIMESTAMP_OFFSET);
    }

    /** Raises the read timestamp to {@code ts} if it is lower (X latch). */
    public void raiseReadTimestamp(long ts) {
        if (readTimestamp() < ts) {
            handle.putLong(BLinkNodeLayout.READ_TIMESTAMP_OFFSET, ts);
        }
    }

    /** Raises the write timestamp to {@code ts} if it is lower (X latch). */
    public void raiseWriteTimestamp(long ts) {
        if (writeTimestamp() < ts) {
            handle.putLong(BLinkNodeLayout.WRITE_TIMESTAMP_OFFSET, ts);
        }
    }
}
