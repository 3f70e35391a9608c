package io.selcc.storage;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A buffer's own view: one object per buffer (no view allocated per row), always over that buffer.
 * Shown failing with a new view made on every call (not the same object).
 */
class TupleBufferTest {
    private static final Schema ROW = Schema.builder().addLong("id").addVarchar("name", 8).build();

    @Test
    void theOwnViewIsOneObjectOverItsBuffer() {
        TupleBuffer first = new TupleBuffer(ROW);
        TupleBuffer second = new TupleBuffer(ROW);
        TupleView view = first.view();
        assertSame(view, first.view(), "one view per buffer");
        view.setLong(0, 7);
        view.setString(1, "seven");
        second.view().setLong(0, 8);
        TupleView fresh = new TupleView(ROW).wrap(first);
        assertEquals(7, fresh.getLong(0), "written through the own view into its buffer");
        assertEquals("seven", fresh.getString(1));
        assertEquals(7, first.view().getLong(0), "another buffer's view did not move this one");
    }
}
