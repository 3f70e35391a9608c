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

    MemorySegment segment() {
        return segment;
    }
}
