package io.selcc.engine.index;

/**
 * Receives the entries of a scan, in scan order. Called on the scanning thread with no latch held,
 * so it may do anything, including use the tree.
 */
@FunctionalInterface
public interface EntryVisitor {
    /** @return true to continue the scan, false to stop it after this entry */
    boolean visit(long key, long value);
}
