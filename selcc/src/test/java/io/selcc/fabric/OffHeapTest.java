package io.selcc.fabric;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

    /**
     * Regions of a huge page or more carry the huge-page advice ("hg" in the mapping's VmFlags in
     * /proc/self/smaps); whether the kernel then backs them with huge pages is its choice. Fails if
     * the advice is not given (checked by removing the call).
     */
    @Test
    void largeRegionsAreAdvisedToUseHugePages() throws IOException {
        assumeTrue(OffHeap.lazilyZeroed(), "mapped lazily only on Linux");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment large = OffHeap.zeroed(arena, 64L << 20, 4096);
            MemorySegment small = OffHeap.zeroed(arena, 64L << 10, 4096);
            assertTrue(vmFlags(large.address()).contains("hg"), "advised: " + vmFlags(large.address()));
            assertFalse(vmFlags(small.address()).contains("hg"), "not advised: " + vmFlags(small.address()));
        }
    }

    /**
     * A memory node registers the first bytes of its memory at start: those pages are resident (as zeros)
     * before anything is written, the rest only once used. Fails when LocalFabric does not make them resident
     * (checked by removing the call: 0 of 2,048 pages resident).
     */
    @Test
    void aMemoryNodeRegistersItsFirstBytesAtStart() throws Throwable {
        assumeTrue(OffHeap.lazilyZeroed(), "mapped lazily only on Linux");
        long bytes = 64L << 20;
        long registered = 8L << 20;
        try (LocalFabric fabric = new LocalFabric(1, bytes, 1, LatencyModel.OFF, registered)) {
            MemorySegment node = fabric.memoryNode(0);
            assertEquals(registered / PAGE, residentPages(node, 0, registered), "registered pages are resident");
            assertEquals(0, residentPages(node, 32L << 20, 32L << 20), "pages beyond are faulted in when first used");
            for (long offset = 0; offset < registered; offset += 4096) {
                assertEquals(0L, node.get(ValueLayout.JAVA_LONG, offset), "zero at " + offset);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new LocalFabric(1, bytes, 1, LatencyModel.OFF, -1));
    }

    private static final long PAGE = 4096;

    /** Resident pages of {@code region}'s [offset, offset + length), as mincore(2) reports them. */
    @SuppressWarnings("restricted")
    private static long residentPages(MemorySegment region, long offset, long length) throws Throwable {
        java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
        java.lang.invoke.MethodHandle mincore = linker.downcallHandle(
            linker.defaultLookup().find("mincore").orElseThrow(), java.lang.foreign.FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(length / PAGE);
            int result = (int) mincore.invokeExact(region.asSlice(offset, length), length, vector);
            assertEquals(0, result, "mincore");
            long resident = 0;
            for (long page = 0; page < length / PAGE; page++) {
                resident += vector.get(ValueLayout.JAVA_BYTE, page) & 1;
            }
            return resident;
        }
    }

    /** The VmFlags of the mapping that holds {@code address}, as /proc/self/smaps lists them. */
    private static List<String> vmFlags(long address) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        boolean inside = false;
        for (String line : lines) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && line.substring(0, dash).chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                long start = HexFormat.fromHexDigitsToLong(line.substring(0, dash));
                long end = HexFormat.fromHexDigitsToLong(line.substring(dash + 1, space));
                inside = Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
            } else if (inside && line.startsWith("VmFlags:")) {
                return List.of(line.substring("VmFlags:".length()).trim().split(" +"));
            }
        }
        throw new AssertionError("no mapping holds 0x" + Long.toHexString(address));
    }
}
