package io.selcc.storage;

/**
 * The layout of one tuple in a heap page (offsets relative to the tuple's start).
 *
 * <pre>
 * offset  size  field
 * 0       8     version: OCC version / TO write timestamp of the last committed write
 * 8       8     read timestamp (TO: the largest timestamp that read this tuple)
 * 16      4     flags: {@link #USED} | {@link #VISIBLE} | {@link #WRITE_INTENT}
 * 20      4     incarnation: +1 each time the slot takes a new tuple, so a record id read before a
 *               delete cannot be mistaken for the unrelated tuple that reuses its slot (ABA)
 * 24      b     null bitmap, one bit per column (b = ceil(columns / 8))
 * 24+b    ...   columns at their fixed offsets ({@link Column#offset()})
 * </pre>
 *
 * A slot is {@link #USED} from insert until its tuple is removed; it is {@link #VISIBLE} once the
 * inserting transaction committed. Readers skip tuples that are used but not visible.
 * {@link #WRITE_INTENT} is TO's prewrite mark: the transaction whose timestamp is the read timestamp
 * will write this tuple when it commits.
 */
public final class TupleLayout {
    public static final int VERSION_OFFSET = 0;
    public static final int READ_TIMESTAMP_OFFSET = 8;
    public static final int FLAGS_OFFSET = 16;
    public static final int INCARNATION_OFFSET = 20;
    public static final int HEADER_SIZE = 24;

    /** The slot holds a tuple (committed or not). */
    public static final int USED = 1;
    /** The tuple's insert committed. */
    public static final int VISIBLE = 1 << 1;
    /**
     * TO: the transaction whose timestamp is the read timestamp has read this tuple to update or delete
     * it and will install its write at commit; a younger transaction must not read it meanwhile.
     */
    public static final int WRITE_INTENT = 1 << 2;

    private TupleLayout() {
    }
}
