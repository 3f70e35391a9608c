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
     * A memory node registers the given bytes beyond its bump word: those pages are resident (as zeros), the
     * ones below it were taken already, the ones beyond are faulted in when first used. Written in, not read
     * in: a read fault maps the shared zero page, and the first write would still fault (the mapping's
     * Anonymous bytes tell them apart). Planted bugs seen failing: no registration (0 of 8,192 pages
     * resident); the bump word ignored (registered from the bottom: the pages below resident).
     */
    @Test
    void aMemoryNodeRegistersTheBytesBeyondItsBumpWord() throws Throwable {
        assumeTrue(OffHeap.lazilyZeroed(), "mapped lazily only on Linux");
        assumeTrue(List.of("amd64", "x86_64").contains(System.getProperty("os.arch")), "4 KiB pages");
        long bytes = 256L << 20;
        long bump = (96L << 20) + 2048; // what compute nodes have taken
        long registered = 32L << 20;
        try (LocalFabric fabric = new LocalFabric(1, bytes, 1, LatencyModel.OFF)) {
            fabric.endpoint(0).remoteFaa(0, bump);
            assertEquals(registered, fabric.registerAhead(registered), "this kernel registers (MADV_POPULATE_WRITE)");
            MemorySegment node = fabric.memoryNode(0);
            long page = bump - bump % PAGE;
            assertEquals((bump + registered - page) / PAGE, residentPages(node, page, bump + registered - page),
                "registered pages are resident");
            assertTrue(anonymousBytes(node.address()) >= registered, "written in: " + anonymousBytes(node.address()));
            // The bump word's own page was written (by the FAA); the margins hold the huge pages at either end.
            assertEquals(0, residentPages(node, 4L << 20, 90L << 20), "below the bump word: not registered (taken)");
            long beyond = ((bump + registered) / PAGE + 1024) * PAGE;
            assertEquals(0, residentPages(node, beyond, bytes - beyond), "beyond: faulted in when first used");
            for (long offset = bump; offset < bump + registered; offset += 4096) {
                assertEquals(0L, node.get(ValueLayout.JAVA_LONG, offset), "zero at " + offset);
            }
            assertEquals(bump, fabric.endpoint(0).remoteFaa(0, 0), "the bump word as it was");
            assertEquals(0, node.get(ValueLayout.JAVA_LONG, 4096), "below it, as it was");
            assertEquals(bytes - bump, fabric.registerAhead(2 * bytes), "capped at the node's end");
            assertEquals((bytes - page) / PAGE, residentPages(node, page, bytes - page));
            fabric.endpoint(0).remoteFaa(0, bytes); // the bump word runs past the end once the node is full
            assertEquals(0, fabric.registerAhead(bytes), "a full node registers nothing");
            assertThrows(IllegalArgumentException.class, () -> fabric.registerAhead(-1));
        }
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

    /** The Anonymous bytes of the mapping that holds {@code address} (/proc/self/smaps): pages written, not the zero page. */
    private static long anonymousBytes(long address) throws IOException {
        return Long.parseLong(smapsField(address, "Anonymous:").replace("kB", "").trim()) << 10;
    }

    /** The VmFlags of the mapping that holds {@code address}, as /proc/self/smaps lists them. */
    private static List<String> vmFlags(long address) throws IOException {
        return List.of(smapsField(address, "VmFlags:").trim().split(" +"));
    }

    /** What follows {@code field} in the /proc/self/smaps entry of the mapping that holds {@code address}. */
    private static String smapsField(long address, String field) throws IOException {
        boolean inside = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && line.substring(0, dash).chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                long start = HexFormat.fromHexDigitsToLong(line.substring(0, dash));
                long end = HexFormat.fromHexDigitsToLong(line.substring(dash + 1, space));
                inside = Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0;
            } else if (inside && line.startsWith(field)) {
                return line.substring(field.length());
            }
        }
        throw new AssertionError("no mapping holds 0x" + Long.toHexString(address));
    }
}
