package io.selcc.storage;

import java.lang.foreign.MemorySegment;

/** A private copy of one tuple (header included): write buffers, undo images. Read and write it through a {@link TupleView}. */
public final class TupleBuffer {
    private final Schema schema;
    private final MemorySegment segment;

    public TupleBuffer(Schema schema) {
        this.schema = schema;
        this.segment = MemorySegment.ofArray(new byte[schema.tupleSize()]);
    }

    public Schema schema() {
        return schema;
    }

    /** Zeroes the whole tuple (header, null bitmap and columns), for reuse as a fresh row. */
    public void clear() {
        segment.fill((byte) 0);
    }

    MemorySegment segment() {
        return segment;
    }
}
