package io.selcc.engine.index;

import java.util.Arrays;

/**
 * The nodes a writer's descent left at each level above its target, where a split below posts its
 * separator without descending again from the root. Reused: part of a thread's {@link TreeContext}.
 */
final class DescentPath {
    /** nodes[l]: the node the descent left at level l, for l in (target level, top]. */
    private long[] nodes = new long[8];
    /** The level of the first node the descent read (the root's level then); -1 for no path. */
    private int top = -1;

    /** Forgets the path: a new descent starts, or the operation started at a hinted leaf without one. */
    void clear() {
        top = -1;
    }

    /** The descent read a node at {@code level}; the first it read sets the path's top. */
    void visited(int level) {
        if (top < 0) {
            top = level;
        }
    }

    /** The descent left {@code address}, at {@code level}, for one of its children. */
    void remember(int level, long address) {
        if (level >= nodes.length) {
            nodes = Arrays.copyOf(nodes, Math.max(level + 1, nodes.length * 2));
        }
        nodes[level] = address;
    }

    /** Whether the path reaches {@code level}: {@link #at} then names a node of it to start from. */
    boolean reaches(int level) {
        return level <= top;
    }

    long at(int level) {
        return nodes[level];
    }
}
