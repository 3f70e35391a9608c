package io.selcc.engine;

/**
 * Builds {@link Redo}s in the wal module's tests: {@code Redo.add} and {@code clear} are the engine's
 * (package-private), so this helper lives in the engine's package on the test classpath.
 */
public final class RedoFixture {
    private RedoFixture() {
    }

    /** Appends a change with a copy of {@code image} (empty for a delete). */
    public static Redo add(Redo redo, byte kind, int tableId, long key, byte[] image) {
        int at = redo.add(kind, tableId, key, image.length);
        System.arraycopy(image, 0, redo.images(), at, image.length);
        return redo;
    }

    public static Redo clear(Redo redo) {
        redo.clear();
        return redo;
    }
}
