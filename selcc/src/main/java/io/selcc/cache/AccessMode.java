package io.selcc.cache;

/** How compute nodes reach shared memory. */
public enum AccessMode {
    /** Coherent compute-side cache with lazy latch release and invalidation messages. */
    SELCC,
    /** No cache: every lock is a remote latch plus READ, every unlock a WRITE plus release. */
    SEL;

    public static AccessMode parse(String name) {
        for (AccessMode mode : values()) {
            if (mode.name().equalsIgnoreCase(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("unknown access mode: access=" + name + " (expected selcc or sel)");
    }
}
