package io.selcc.storage;

/**
 * The layout of a heap page: one GCL's data region (offsets relative to it).
 *
 * <pre>
 * offset  size  field
 * 0       4     magic {@link #MAGIC}
 * 4       4     table id
 * 8       4     slot count (capacity)
 * 12      4     used slots
 * 16      8     next page of the table (global address, 0 = last)
 * 24      ...   slots: slot i at 24 + i * tupleSize
 * </pre>
 */
final class HeapPageLayout {
    static final int MAGIC = 0x48454150; // "HEAP"
    static final int MAGIC_OFFSET = 0;
    static final int TABLE_ID_OFFSET = 4;
    static final int SLOT_COUNT_OFFSET = 8;
    static final int USED_OFFSET = 12;
    static final int NEXT_PAGE_OFFSET = 16;
    static final int SLOTS_OFFSET = 24;

    private HeapPageLayout() {
    }

    static int slotOffset(int slot, int tupleSize) {
        return SLOTS_OFFSET + slot * tupleSize;
    }

    static int capacity(int dataSize, int tupleSize) {
        return (dataSize - SLOTS_OFFSET) / tupleSize;
    }
}
