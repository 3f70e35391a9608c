package io.selcc.storage;

import java.lang.foreign.MemorySegment;

/** A private copy of one tuple (header included): write buffers, undo images. Read and write it through a {@link TupleView}. */
public final class TupleBuffer {
    private final Schema schema;
    private final MemorySegment segment;
    /** This buffer's own view, made on first use (see {@link #view()}). */
    private TupleView view;

    public TupleBuffer(Schema schema) {
        this.schema = schema;
        this.segment = MemorySegment.ofArray(new byte[schema.tupleSize()]);
    }

    public Schema schema() {
        return schema;
    }

    /**
     * A view of this buffer, the same object on every call (re-wrapped onto this buffer each time), so
     * code that reads or fills a buffer allocates no view per row. It lives as long as the buffer and
     * must not be wrapped onto anything else.
     */
    public TupleView view() {
        if (view == null) {
            view = new TupleView(schema);
        }
        return view.wrap(this);
    }

    /** Zeroes the whole tuple (header, null bitmap and columns), for reuse as a fresh row. */
    public void clear() {
        segment.fill((byte) 0);
    }

    /** Bytes of the row after the tuple header (null bitmap and columns): what a redo log keeps of it. */
    public int rowBytes() {
        return schema.tupleSize() - TupleLayout.HEADER_SIZE;
    }

    /** Copies the row's bytes after the tuple header ({@link #rowBytes()} of them) to {@code to} at {@code offset}. */
    public void copyRowTo(byte[] to, int offset) {
        view().copyRowTo(to, offset);
    }

    /** Sets the row's bytes after the tuple header from {@code from} at {@code offset} (a redo image); the header stays. */
    public void copyRowFrom(byte[] from, int offset) {
        view().setRowFrom(from, offset);
    }

    MemorySegment segment() {
        return segment;
    }
}
