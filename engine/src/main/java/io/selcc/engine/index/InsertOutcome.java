package io.selcc.engine.index;

/** What {@link BLinkTree#insert} did. Refusals are expected outcomes, not errors. */
public enum InsertOutcome {
    /** The entry was added. */
    INSERTED,
    /** Unique index: the key already has a value. The index is unchanged. */
    DUPLICATE_KEY,
    /** Non-unique index: this (key, value) pair is already present. The index is unchanged. */
    DUPLICATE_ENTRY,
    /** The transaction's {@link LeafGuard} refused a leaf (busy, or a timestamp rule). The index is unchanged. */
    REFUSED
}
