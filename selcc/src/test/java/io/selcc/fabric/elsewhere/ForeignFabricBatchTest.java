package io.selcc.fabric.elsewhere;

import io.selcc.fabric.VerbBatch;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A fabric in another package (a TCP or RDMA one) can read every verb of a batch and report the atomics'
 * results: this test is such a reader, in a package of its own.
 */
class ForeignFabricBatchTest {
    @Test
    void everyVerbCanBeReadAndCompletedFromOutsideThePackage() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(64);
            VerbBatch batch = new VerbBatch();
            int cas = batch.cas(0x1000, 5, 6);
            int read = batch.read(0x2000, buffer, 8, 32);
            int write = batch.write(0x3000, buffer, 0, 16);
            int faa = batch.faa(0x4000, -2);
            assertEquals(4, batch.size());
            assertEquals(VerbBatch.Kind.CAS, batch.kind(cas));
            assertEquals(0x1000, batch.address(cas));
            assertEquals(5, batch.operand(cas));
            assertEquals(6, batch.update(cas));
            assertNull(batch.segment(cas));
            assertEquals(VerbBatch.Kind.READ, batch.kind(read));
            assertSame(buffer, batch.segment(read));
            assertEquals(8, batch.segmentOffset(read));
            assertEquals(32, batch.length(read));
            assertEquals(VerbBatch.Kind.WRITE, batch.kind(write));
            assertEquals(16, batch.length(write));
            assertEquals(VerbBatch.Kind.FAA, batch.kind(faa));
            assertEquals(-2, batch.operand(faa));
            assertEquals(8 + 32 + 16 + 8, batch.payloadBytes());
            batch.complete(cas, 5);
            batch.complete(faa, 40);
            assertEquals(5, batch.result(cas));
            assertEquals(40, batch.result(faa));
            assertThrows(IndexOutOfBoundsException.class, () -> batch.kind(4));
            assertThrows(IndexOutOfBoundsException.class, () -> batch.complete(-1, 0));
        }
    }
}
