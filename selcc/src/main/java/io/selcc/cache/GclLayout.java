package io.selcc.cache;

/**
 * Layout of one Global Cache Line (GCL) in a memory node.
 *
 * <pre>
 * offset  size  field
 * 0       8     latch word ({@link LatchWord}); only ever touched by CAS/FAA
 * 8       4     allocation state: {@link #STATE_ALLOCATED} or {@link #STATE_FREE}
 * 12      4     reserved (zero)
 * 16      n-16  data region, owned by the layer above
 * </pre>
 *
 * A cached copy holds bytes 8..n; write-backs never cover the latch word. Dirty bounds are kept in the
 * compute-side frame, not in the GCL, because they only describe the local copy.
 */
public final class GclLayout {
    public static final int LATCH_OFFSET = 0;
    public static final int STATE_OFFSET = 8;
    /** First byte a cached copy holds and a write-back may cover. */
    public static final int COPY_OFFSET = 8;
    public static final int DATA_OFFSET = 16;
    public static final int STATE_ALLOCATED = 0x414C4C43; // "ALLC"
    public static final int STATE_FREE = 0x46524545;      // "FREE"
    public static final int MIN_SIZE = 512;
    public static final int MAX_SIZE = 64 * 1024;

    private GclLayout() {
    }

    /** Data bytes a GCL of {@code gclSize} offers to the layer above. */
    public static int dataSize(int gclSize) {
        return gclSize - DATA_OFFSET;
    }

    /** Why {@code gclSize} is not a GCL size, or null if it is. */
    static String sizeProblem(int gclSize) {
        return gclSize < MIN_SIZE || gclSize > MAX_SIZE || Integer.bitCount(gclSize) != 1
            ? "must be a power of two in [" + MIN_SIZE + ", " + MAX_SIZE + "]" : null;
    }
}
