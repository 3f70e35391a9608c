package io.selcc.storage;

/**
 * The layout of a table's root GCL (its data region): what another compute node needs to open the
 * table, and the head of its page chain.
 *
 * <pre>
 * offset  size  field
 * 0       4     magic {@link #MAGIC}
 * 4       4     table id
 * 8       4     tuple size
 * 12      4     slots per page
 * 16      8     first page (global address, 0 = none)
 * 24      8     page count
 * 32      4     flags: bit 0 {@link #FLAG_INSERT_ONLY} (rows are never updated or deleted)
 * 36      2     name length n, then n bytes of name (ISO-8859-1)
 * 38+n    2     column count c, then c column records:
 *                 1 type ordinal, 1 nullable (0/1), 2 max length, 1 name length m, m name bytes
 * </pre>
 */
final class TableRootLayout {
    static final int MAGIC = 0x54424C52; // "TBLR"
    static final int MAGIC_OFFSET = 0;
    static final int TABLE_ID_OFFSET = 4;
    static final int TUPLE_SIZE_OFFSET = 8;
    static final int SLOTS_PER_PAGE_OFFSET = 12;
    static final int FIRST_PAGE_OFFSET = 16;
    static final int PAGE_COUNT_OFFSET = 24;
    static final int FLAGS_OFFSET = 32;
    static final int FLAG_INSERT_ONLY = 1;
    static final int NAME_OFFSET = 36;
    static final int MAX_NAME_LENGTH = 64;

    private TableRootLayout() {
    }
}
