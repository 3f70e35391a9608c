package io.selcc.storage;

/**
 * A record id: the page's global address with the slot number in its low bits. Pages are GCLs,
 * aligned to the GCL size, and a page has fewer slots than bytes, so the slot fits below the
 * alignment.
 */
public final class RecordId {
    private RecordId() {
    }

    public static long of(long page, int slot, int gclSize) {
        if ((page & (gclSize - 1)) != 0 || slot < 0 || slot >= gclSize) {
            throw new IllegalArgumentException("bad record id parts: page=0x" + Long.toHexString(page) + " slot=" + slot
                + " gclSize=" + gclSize);
        }
        return page | slot;
    }

    public static long page(long rid, int gclSize) {
        return rid & ~(long) (gclSize - 1);
    }

    public static int slot(long rid, int gclSize) {
        return (int) (rid & (gclSize - 1));
    }
}
