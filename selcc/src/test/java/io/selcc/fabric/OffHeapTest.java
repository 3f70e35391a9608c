package io.selcc.fabric;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OffHeapTest {
    /**
     * A region is zero everywhere, writable, aligned, and gone with its arena. On Linux (where the
     * tests run) it is mapped lazily: the test JVM has native access, so the fallback would mean the
     * mapping path broke.
     */
    @Test
    void regionsAreZeroedWritableAndFreedWithTheirArena() {
        assertEquals(System.getProperty("os.name").toLowerCase().contains("linux"), OffHeap.lazilyZeroed());
        long bytes = 1L << 30; // 1 GiB: resident only where touched
        MemorySegment region;
        try (Arena arena = Arena.ofShared()) {
            region = OffHeap.zeroed(arena, bytes, 4096);
            assertEquals(bytes, region.byteSize());
            assertEquals(0, region.address() % 4096);
            for (long offset = 0; offset < bytes; offset += 64L << 20) {
                assertEquals(0L, region.get(ValueLayout.JAVA_LONG, offset), "offset " + offset);
                region.set(ValueLayout.JAVA_LONG, offset, offset + 1);
                assertEquals(offset + 1, region.get(ValueLayout.JAVA_LONG, offset));
            }
            assertEquals(0L, region.get(ValueLayout.JAVA_LONG, bytes - 8));
            assertTrue(region.scope().isAlive());
        }
        assertFalse(region.scope().isAlive(), "freed with the arena");
        assertThrows(IllegalArgumentException.class, () -> OffHeap.zeroed(Arena.global(), 4096, 8192));
    }
}
