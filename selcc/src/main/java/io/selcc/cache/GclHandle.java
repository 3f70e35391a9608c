package io.selcc.cache;

import io.selcc.cache.GclLayout;
import io.selcc.fabric.GlobalAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Access to the local copy of a latched GCL's data region. Offsets are relative to the data region
 * (0 .. {@link #dataSize()}). Every write records its byte range so that a write-back carries only
 * the dirty bytes. Writes through the {@link #data()} view must be declared with
 * {@link #markDirty(int, int)}.
 *
 * <p>Not thread-safe: it belongs to the thread that locked the GCL, until {@code unlock}; a kept handle
 * ({@link ComputeNode#keptHandle}) belongs to the thread that made it, latched or not.
 */
public final class GclHandle {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    final AbstractComputeNode owner;
    /** The cache frame (SELCC) or null (SEL); rebound per read for an optimistic handle. */
    CacheFrame frame;
    /**
     * The GCL's own segment (remote reads and writes, allocation state); null for a frame's latch, whose
     * copy {@link #copy()} takes from the frame when asked (the hit path does not read the frame).
     */
    private MemorySegment copy;
    /**
     * Where the accessors read: a node's whole frame pool with this GCL at {@link #base}, so a cache
     * hit touches the pool's one hot segment object instead of a per-frame slice (one memory miss
     * fewer per access when frames are too many for the CPU caches); SEL's buffer at base 0.
     */
    private MemorySegment memory;
    /** Where this GCL's bytes start in {@link #memory} (for a frame: its index times the GCL size). */
    long base;
    long address;
    boolean exclusive;
    /** A reusable handle for optimistic reads (see {@link ComputeNode#tryOptimisticRead}): never unlocked. */
    final boolean optimistic;
    /** A private image of a never-used line ({@link ComputeNode#allocateImage}): published, never unlocked. */
    final boolean image;
    long stamp;
    boolean released;
    /** The data-region view, made on first use (one per lock, not one per access). */
    private MemorySegment dataView;
    int dirtyLow = CacheFrame.CLEAN;
    int dirtyHigh;
    /** The wait-die age the frame counts this latch under ({@link CacheFrame#agedHolders}); NO_AGE for others. */
    long age = ComputeNode.NO_AGE;
    /**
     * The pool this handle came from, where its unlock puts it back (null: made outside a pool); for a
     * kept handle, the pool of the thread it belongs to, whose counts its latches add to (never put back).
     */
    AbstractComputeNode.HandlePool pool;
    /**
     * A handle its caller keeps and latches again and again ({@link ComputeNode#keptHandle}): its unlock
     * does not put it in a pool, and {@link #pool} names the thread whose counts its latches add to.
     */
    final boolean kept;

    GclHandle(AbstractComputeNode owner, CacheFrame frame, MemorySegment copy, MemorySegment memory, long base,
              long address, boolean exclusive, long stamp) {
        this.owner = owner;
        this.optimistic = false;
        this.image = false;
        this.kept = false;
        rebind(frame, copy, memory, base, address, exclusive, stamp);
    }

    /** An unbound kept handle of {@code pool}'s thread (see {@link #kept}). */
    GclHandle(AbstractComputeNode owner, AbstractComputeNode.HandlePool pool) {
        this.owner = owner;
        this.optimistic = false;
        this.image = false;
        this.kept = true;
        this.pool = pool;
        this.released = true; // unusable until latched
    }

    /**
     * Binds a kept handle to a cached frame's latch just taken: what {@link #rebind} does, without the
     * stores that would rewrite what its last latch in the same node's frame pool left (the pool segment,
     * no copy, no view): a hit binds it on every access.
     */
    void bindKept(CacheFrame frame, MemorySegment pool, long base, long address, boolean exclusive, long stamp) {
        this.frame = frame;
        if (this.copy != null) {
            this.copy = null;
        }
        if (this.memory != pool) {
            this.memory = pool;
        }
        this.base = base;
        this.address = address;
        this.exclusive = exclusive;
        this.stamp = stamp;
        this.released = false;
        if (this.dataView != null) {
            this.dataView = null;
        }
        this.dirtyLow = CacheFrame.CLEAN;
        this.dirtyHigh = 0;
        this.age = ComputeNode.NO_AGE;
    }

    /**
     * Makes this kept handle the handle of the latch {@code from} holds (taken by the full path), and
     * {@code from} a released handle: the latch moves, it is neither released nor taken again.
     */
    void takeOver(GclHandle from) {
        rebind(from.frame, from.copy, from.memory, from.base, from.address, from.exclusive, from.stamp);
        this.dirtyLow = from.dirtyLow;
        this.dirtyHigh = from.dirtyHigh;
        this.age = from.age;
        from.released = true;
    }

    /** Makes a handle given back by unlock the handle of a new latch (see {@link AbstractComputeNode#handle}). */
    void rebind(CacheFrame frame, MemorySegment copy, MemorySegment memory, long base, long address, boolean exclusive,
                long stamp) {
        this.frame = frame;
        this.copy = copy;
        this.memory = memory;
        this.base = base;
        this.address = address;
        this.exclusive = exclusive;
        this.stamp = stamp;
        this.released = false;
        this.dataView = null;
        this.dirtyLow = CacheFrame.CLEAN;
        this.dirtyHigh = 0;
        this.age = ComputeNode.NO_AGE;
    }

    /** An unbound optimistic handle: reads only, bound by each successful optimistic read. */
    GclHandle(AbstractComputeNode owner) {
        this.owner = owner;
        this.exclusive = false;
        this.optimistic = true;
        this.image = false;
        this.kept = false;
        this.released = true; // unusable until bound
    }

    /** An exclusive handle over a private image of the never-used line at {@code address} (see {@link #image}). */
    GclHandle(AbstractComputeNode owner, MemorySegment image, long address) {
        this.owner = owner;
        this.optimistic = false;
        this.image = true;
        this.kept = false;
        rebind(null, image, image, 0, address, true, 0);
    }

    /** The GCL's own segment: a frame's copy, an image, a snapshot. */
    MemorySegment copy() {
        return copy != null ? copy : frame.copy;
    }

    /** Binds an optimistic handle to a frame read under {@code stamp}. */
    void bindOptimistic(CacheFrame frame, MemorySegment pool, long base, long address, long stamp) {
        this.frame = frame;
        this.copy = null;
        this.memory = pool;
        this.base = base;
        this.address = address;
        this.stamp = stamp;
        this.dataView = null;
        this.released = false;
    }

    /**
     * Binds an unbound optimistic handle to a private copy of a GCL read from memory without a latch
     * (see {@link ComputeNode#snapshot}): it reads like any handle and is never validated or unlocked.
     */
    void bindSnapshot(MemorySegment snapshot, long address) {
        this.frame = null;
        this.copy = snapshot;
        this.memory = snapshot;
        this.base = 0;
        this.address = address;
        this.stamp = 0;
        this.dataView = null;
        this.released = false;
    }

    public long address() {
        return address;
    }

    /**
     * The frame of its node's cache this handle's line was latched or read in, a hint for a later
     * {@link ComputeNode#tryLock} of the same line; {@link ComputeNode#NO_FRAME} where the node caches
     * nothing (SEL mode, a snapshot read from memory, an image).
     */
    public int frameIndex() {
        return frame == null ? ComputeNode.NO_FRAME : owner.frameAt(base);
    }

    public boolean isExclusive() {
        return exclusive;
    }

    /** True for a handle of optimistic reads: what it reads is trusted only after a successful validate. */
    public boolean isOptimistic() {
        return optimistic;
    }

    public int dataSize() {
        return owner.gclSize - GclLayout.DATA_OFFSET;
    }

    public long getLong(int offset) {
        return memory.get(LONG, at(position(offset, 8)));
    }

    public void putLong(int offset, long value) {
        memory.set(LONG, at(writePosition(offset, 8)), value);
    }

    public int getInt(int offset) {
        return memory.get(INT, at(position(offset, 4)));
    }

    public void putInt(int offset, int value) {
        memory.set(INT, at(writePosition(offset, 4)), value);
    }

    public byte getByte(int offset) {
        return memory.get(ValueLayout.JAVA_BYTE, at(position(offset, 1)));
    }

    public void putByte(int offset, byte value) {
        memory.set(ValueLayout.JAVA_BYTE, at(writePosition(offset, 1)), value);
    }

    public void getBytes(int offset, byte[] dst, int dstOffset, int length) {
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, at(position(offset, length)), dst, dstOffset, length);
    }

    public void putBytes(int offset, byte[] src, int srcOffset, int length) {
        MemorySegment.copy(src, srcOffset, memory, ValueLayout.JAVA_BYTE, at(writePosition(offset, length)), length);
    }

    /** A view of the data region; read-only under a shared latch. Declare writes with {@link #markDirty}. */
    public MemorySegment data() {
        checkHeld();
        if (dataView == null) {
            MemorySegment data = copy().asSlice(GclLayout.DATA_OFFSET);
            dataView = exclusive ? data : data.asReadOnly();
        }
        return dataView;
    }

    /**
     * The segment the data region lives in, for flyweights that must not allocate a view per latch
     * (a row read through {@link #data()} cost two segment objects per lock). It may hold other GCLs
     * too (a node's frame pool): callers stay within {@link #dataStart()} plus {@link #dataSize()},
     * write only under X, and declare writes with {@link #markDirty} in data-region offsets.
     */
    public MemorySegment backingSegment() {
        checkHeld();
        return memory;
    }

    /** Where data offset 0 is in {@link #backingSegment()}. */
    public long dataStart() {
        return base + GclLayout.DATA_OFFSET;
    }

    /** Records that {@code length} bytes at data offset {@code offset} were written through {@link #data()}. */
    public void markDirty(int offset, int length) {
        writePosition(offset, length);
    }

    /** The byte index in {@link #memory} of data offset {@code offset}, after the checks of {@link #position}. */
    private long at(long gclPosition) {
        return base + gclPosition;
    }

    private long position(int offset, int length) {
        checkHeld();
        if (offset < 0 || length < 0 || offset + length > dataSize()) {
            throw new IndexOutOfBoundsException("access outside the GCL data region: address="
                + GlobalAddress.toString(address) + " offset=" + offset + " length=" + length + " dataSize=" + dataSize());
        }
        return GclLayout.DATA_OFFSET + offset;
    }

    private long writePosition(int offset, int length) {
        long position = position(offset, length);
        if (!exclusive) {
            throw new IllegalStateException("write under a shared latch: address=" + GlobalAddress.toString(address));
        }
        extendDirty((int) position, (int) position + length);
        return position;
    }

    /** Marks bytes of the GCL header as dirty (allocation state); used by the allocator only. */
    void markHeaderDirty(int gclOffset, int length) {
        extendDirty(gclOffset, gclOffset + length);
    }

    /** Widens the dirty range, in GCL offsets, to cover [low, high). */
    private void extendDirty(int low, int high) {
        if (dirtyLow == CacheFrame.CLEAN) {
            dirtyLow = low;
            dirtyHigh = high;
        } else {
            dirtyLow = Math.min(dirtyLow, low);
            dirtyHigh = Math.max(dirtyHigh, high);
        }
    }

    private void checkHeld() {
        if (released) {
            throw new IllegalStateException("handle used after unlock: address=" + GlobalAddress.toString(address));
        }
    }

    @Override
    public String toString() {
        return "GclHandle[" + GlobalAddress.toString(address) + (exclusive ? ", X" : ", S") + (released ? ", released]" : "]");
    }
}
