package io.selcc.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Large zeroed off-heap regions (memory nodes, cache pools) that cost resident memory only where
 * they are touched. {@link Arena#allocate} writes every byte to zero it, so a memory node sized
 * for a long run was resident, and paid for, from the start. On Linux an anonymous private mapping
 * is zero by definition and the kernel supplies its pages on first touch; elsewhere, or when the
 * native call is not permitted, this falls back to {@code Arena.allocate}. Either way the region is
 * zeroed and freed when its arena closes.
 *
 * <p>The native calls are restricted methods: the launcher and the tests run with
 * {@code --enable-native-access=ALL-UNNAMED}; without it the JDK warns once (or, when denied, this
 * class uses the fallback).
 */
@SuppressWarnings("restricted")
public final class OffHeap {
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    /** MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE (the same values on x86-64 and AArch64 Linux). */
    private static final int MAP_FLAGS = 0x02 | 0x20 | 0x4000;
    private static final long MAP_FAILED = -1L;
    /** madvise advice: back the range with transparent huge pages where the kernel allows it. */
    private static final int MADV_HUGEPAGE = 14;
    /** madvise advice (Linux 5.14+): fault the range in writable now, as a first write would. */
    private static final int MADV_POPULATE_WRITE = 23;
    /** A huge page: regions below one gain nothing from the advice; a multiple of every base page size. */
    static final long HUGE_PAGE = 2L << 20;

    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;

    static {
        MethodHandle mmap = null;
        MethodHandle munmap = null;
        MethodHandle madvise = null;
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.contains("linux")) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                    ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(), FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            } catch (RuntimeException | LinkageError e) {
                // No native access (or no libc symbol): the portable path below is correct, only eager.
                mmap = null;
                munmap = null;
                madvise = null;
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
        MADVISE = madvise;
    }

    private OffHeap() {
    }

    /** Whether regions are mapped lazily here (Linux with native access), else allocated and zeroed at once. */
    public static boolean lazilyZeroed() {
        return MMAP != null;
    }

    /**
     * A zeroed region of {@code bytes}, aligned to {@code alignment} (at most 4096), freed when
     * {@code arena} closes.
     */
    public static MemorySegment zeroed(Arena arena, long bytes, long alignment) {
        if (alignment > 4096 || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment must be a power of two <= 4096: alignment=" + alignment);
        }
        if (MMAP != null) {
            MemorySegment mapped;
            try {
                mapped = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, bytes, PROT_READ_WRITE, MAP_FLAGS, -1, 0L);
            } catch (Throwable e) {
                throw new IllegalStateException("mmap of " + bytes + " bytes failed", e);
            }
            if (mapped.address() != MAP_FAILED) {
                adviseHugePages(mapped, bytes);
                return mapped.reinterpret(bytes, arena, unused -> unmap(mapped.address(), bytes));
            }
            // Out of address space or refused: try the ordinary allocator, which reports it properly.
        }
        return arena.allocate(bytes, alignment);
    }

    /**
     * Faults {@code [offset, offset + length)} of a region from {@link #zeroed} in as if written, without
     * writing it ({@code madvise(MADV_POPULATE_WRITE)}, Linux 5.14+): safe while others write the same
     * memory. {@code offset} must be a multiple of 4096. False where this is not possible (an older kernel, a
     * mapping that is not lazy, no native access): nothing was done.
     */
    static boolean populateWritable(MemorySegment region, long offset, long length) {
        if (MADVISE == null || length <= 0) {
            return false;
        }
        try {
            return (int) MADVISE.invokeExact(region.asSlice(offset, length), length, MADV_POPULATE_WRITE) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Asks for transparent huge pages: rows, B-link nodes and cached lines are reached at random over
     * hundreds of MiB, and with 4 KiB pages nearly every such access also missed the TLB (a costly
     * walk under virtualisation). Advice only: where the kernel has huge pages off ({@code never}) or
     * refuses, the region keeps small pages and works the same.
     */
    private static void adviseHugePages(MemorySegment mapped, long bytes) {
        if (bytes < HUGE_PAGE) {
            return;
        }
        try {
            int ignored = (int) MADVISE.invokeExact(mapped, bytes, MADV_HUGEPAGE);
        } catch (Throwable e) {
            // Advice is optional: a region without huge pages is only slower.
        }
    }

    private static void unmap(long address, long bytes) {
        try {
            int result = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(address), bytes);
            if (result != 0) {
                throw new IllegalStateException("munmap failed: address=0x" + Long.toHexString(address) + " bytes=" + bytes);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("munmap failed", e);
        }
    }
}
