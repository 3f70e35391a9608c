package io.selcc.cache;

/** The ownership memo of a cache frame (MSI), mirroring what the global latch word says of this node. */
enum Ownership {
    /** This node is the exclusive holder; the copy may be dirty. */
    MODIFIED,
    /** This node's reader bit is set; the copy is clean. */
    SHARED,
    /** This node holds nothing; the copy is stale or absent. */
    INVALID;

    boolean permits(boolean exclusive) {
        return exclusive ? this == MODIFIED : this != INVALID;
    }
}
