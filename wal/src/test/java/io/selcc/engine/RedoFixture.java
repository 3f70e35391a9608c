package io.selcc.engine;

/**
 * Builds {@link Redo}s in the wal module's tests: {@code Redo.add} and {@code clear} are the engine's
 * (package-private), so this helper lives in the engine's package on the test classpath.
 */
public final class RedoFixture {
    private RedoFixture() {
    }

    /** Appends a change with a copy of {@code image} (empty for a delete); its record id derives from the key. */
    public static Redo add(Redo redo, byte kind, int tableId, long key, byte[] image) {
        int at = redo.add(kind, tableId, key, recordIdOf(key), image.length);
        System.arraycopy(image, 0, redo.images(), at, image.length);
        return redo;
    }

    /** Appends a change with an explicit record id. */
    public static Redo add(Redo redo, byte kind, int tableId, long key, long recordId, byte[] image) {
        int at = redo.add(kind, tableId, key, recordId, image.length);
        System.arraycopy(image, 0, redo.images(), at, image.length);
        return redo;
    }

    /** The record id {@link #add} gives a key's change: distinct per key, never equal to the key. */
    public static long recordIdOf(long key) {
        return Long.rotateLeft(key, 17) ^ 0x5A5A_0000_0000_0001L;
    }

    /** Makes {@code redo} one branch's changes of distributed transaction {@code globalId} (0: a local one). */
    public static Redo globalId(Redo redo, long globalId) {
        redo.globalId(globalId);
        return redo;
    }

    public static Redo clear(Redo redo) {
        redo.clear();
        return redo;
    }
}
