package io.selcc.cache;

/**
 * The 8-byte global latch word at offset 0 of every GCL: the cache directory of SELCC.
 *
 * <pre>
 *  63        56 55                                                0
 * +------------+---------------------------------------------------+
 * | writer tag |          reader bitmap (bit i = compute node i)   |
 * +------------+---------------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>writer tag: 0 = no exclusive holder; otherwise {@code nodeId + WRITER_OFFSET}. A handover
 *       (case 1) moves X with one FAA of {@code to - from}: the tag goes straight from one valid tag
 *       to another, never through 0 (free), and never borrows from the bitmap. That holds because
 *       handovers of one GCL are applied in order: the owner applies its handover FAA and waits for
 *       its completion before it answers the requester, and the requester can hand the line on only
 *       after that answer. Deltas applied out of order would not be safe, whatever the offset
 *       (0->50->0->50->0 with both -50 deltas first reads as free; three +52 deltas wrap to 0).
 *       The offset only keeps a tag apart from "no writer".</li>
 *   <li>reader bitmap: one bit per compute node holding a shared copy; at most {@value #MAX_COMPUTE_NODES}
 *       compute nodes.</li>
 * </ul>
 *
 * <p>SEL mode (no cache) reads the low 56 bits as a reader <em>count</em> instead of a bitmap, as in
 * the original one-sided SEL latch: without a cache several threads of one node hold a shared latch
 * independently, and a bitmap bit cannot be set twice.
 *
 * <p>Every transition is a single FAA or CAS operand computed here; nothing else builds latch values.
 */
final class LatchWord {
    /** One reader bit per compute node: as many as a fabric serves. */
    static final int MAX_COMPUTE_NODES = io.selcc.fabric.Fabric.MAX_COMPUTE_NODES;
    static final int WRITER_SHIFT = 56;
    static final long READER_MASK = (1L << WRITER_SHIFT) - 1;
    /** Added to a node id to form its writer tag, so that node 0's tag is not 0 (see class doc). */
    static final int WRITER_OFFSET = 100;
    static final long FREE = 0L;

    private LatchWord() {
    }

    /** The writer tag of {@code nodeId}, shifted into place: the CAS target of an X acquire. */
    static long exclusive(int nodeId) {
        checkNode(nodeId);
        return (long) (nodeId + WRITER_OFFSET) << WRITER_SHIFT;
    }

    /** The bit of {@code nodeId} in the reader bitmap: the FAA operand of an S acquire. */
    static long readerBit(int nodeId) {
        checkNode(nodeId);
        return 1L << nodeId;
    }

    /** The exclusive holder's node id, or -1 if there is none. */
    static int writer(long word) {
        int tag = (int) (word >>> WRITER_SHIFT);
        return tag == 0 ? -1 : tag - WRITER_OFFSET;
    }

    static boolean hasWriter(long word) {
        return (word >>> WRITER_SHIFT) != 0;
    }

    static long readers(long word) {
        return word & READER_MASK;
    }

    static boolean isReader(long word, int nodeId) {
        return (word & readerBit(nodeId)) != 0;
    }

    /** FAA operand that releases X held by {@code nodeId} (never a CAS to zero: readers may race). */
    static long releaseExclusiveDelta(int nodeId) {
        return -exclusive(nodeId);
    }

    /** FAA operand that releases S held by {@code nodeId}. */
    static long releaseSharedDelta(int nodeId) {
        return -readerBit(nodeId);
    }

    /** FAA operand of case 1: X passes from {@code from} to {@code to} in one atomic add. */
    static long handoverDelta(int from, int to) {
        checkNode(from);
        checkNode(to);
        return (long) (to - from) << WRITER_SHIFT;
    }

    /**
     * FAA operand of case 2: writer {@code from} downgrades and {@code reader} joins it, both as readers.
     */
    static long downgradeDelta(int from, int reader) {
        return -exclusive(from) + readerBit(from) + readerBit(reader);
    }

    /** SEL mode: the FAA operand of one shared acquire (a reader count, see class doc). */
    static final long SEL_READER_UNIT = 1L;

    static String toString(long word) {
        return "LatchWord[writer=" + writer(word) + ", readers=0x" + Long.toHexString(readers(word)) + "]";
    }

    private static void checkNode(int nodeId) {
        if (nodeId < 0 || nodeId >= MAX_COMPUTE_NODES) {
            throw new IllegalArgumentException(
                "compute node id out of range: nodeId=" + nodeId + " max=" + (MAX_COMPUTE_NODES - 1));
        }
    }
}
