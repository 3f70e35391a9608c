package io.selcc.engine;

/**
 * The catalog: a chain of GCLs starting at the compute nodes' well-known catalog root, mapping names to
 * table roots and index roots. Offsets are within a GCL's data region.
 *
 * <pre>
 * offset  size  field
 * 0       4     magic {@link #MAGIC} (0 = catalog not created yet)
 * 4       4     entries in this page
 * 8       8     next catalog page (global address, 0 = last)
 * 16      8     counters GCL (root page only): a GCL that is never latched, holding global words
 * 24      8     durability GCL (root page only): a GCL that is never latched, word 8n = compute node n's
 *               {@link DurabilityWord} (n &lt; {@code Fabric.MAX_COMPUTE_NODES}; 0 until its log opens)
 * 32      ...   entries of {@link #ENTRY_SIZE} bytes:
 *                 0   1   kind ({@link #KIND_TABLE} or {@link #KIND_INDEX})
 *                 1   1   name length n
 *                 2   46  name (ISO-8859-1)
 *                 48  8   root address (table root or tree root)
 *                 56  8   reserved
 * </pre>
 *
 * Counters GCL words (offsets in its data region): 0 = global timestamp counter (TO), 8 = commit
 * sequence counter (the commit log's global order; see {@link CommitLog}), 16 + 8n = the repair claim
 * of compute node n (n &lt; {@code Fabric.MAX_COMPUTE_NODES}; compute nodes as processes, see
 * {@link Database}): 0 while no process repairs node n, else state (high 32 bits:
 * {@link #REPAIR_CLAIMED}, {@link #REPAIR_DONE} or {@link #REPAIR_FAILED}) and the repairing node.
 */
final class CatalogLayout {
    static final int MAGIC = 0x4341544C; // "CATL"
    static final int MAGIC_OFFSET = 0;
    static final int COUNT_OFFSET = 4;
    static final int NEXT_OFFSET = 8;
    static final int COUNTERS_OFFSET = 16;
    static final int DURABILITY_OFFSET = 24;
    static final int ENTRIES_OFFSET = 32;
    static final int ENTRY_SIZE = 64;
    static final int ENTRY_KIND = 0;
    static final int ENTRY_NAME_LENGTH = 1;
    static final int ENTRY_NAME = 2;
    static final int MAX_NAME_LENGTH = 46;
    static final int ENTRY_ROOT = 48;
    static final byte KIND_TABLE = 1;
    static final byte KIND_INDEX = 2;
    static final int TIMESTAMP_COUNTER_WORD = 0;
    static final int COMMIT_SEQUENCE_WORD = 8;
    static final int REPAIR_CLAIMS_WORD = 16;
    static final long REPAIR_CLAIMED = 1;
    static final long REPAIR_DONE = 2;
    static final long REPAIR_FAILED = 3;

    /** A repair claim word: {@code state} and {@code repairer}. */
    static long repairClaim(long state, int repairer) {
        return state << 32 | repairer;
    }

    static long repairState(long claim) {
        return claim >>> 32;
    }

    static int repairer(long claim) {
        return (int) claim;
    }

    private CatalogLayout() {
    }

    static int entryOffset(int index) {
        return ENTRIES_OFFSET + index * ENTRY_SIZE;
    }

    static int capacity(int dataSize) {
        return (dataSize - ENTRIES_OFFSET) / ENTRY_SIZE;
    }
}
