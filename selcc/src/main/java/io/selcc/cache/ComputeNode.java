package io.selcc.cache;

import io.selcc.fabric.NodeCounters;

/**
 * One compute node's view of shared memory: the API of paper Table 1. Thread-safe; any number of
 * threads of this node may call it. Handles belong to the thread that took them.
 *
 * <p>Lock calls latch the local frame and, when the ownership memo does not permit the access,
 * the global latch (one round trip on a miss). {@code unlock} releases only the local latch in SELCC
 * mode (lazy release); the global latch goes when another node asks or the frame is evicted.
 *
 * <p>Latches are not reentrant: a thread that locks a GCL it already holds waits for itself.
 */
public interface ComputeNode {
    int nodeId();

    AccessMode accessMode();

    /** Bytes of one GCL, header included. */
    int gclSize();

    /** Bytes of a GCL's data region, the part a {@link GclHandle} exposes. */
    int dataSize();

    /**
     * A GCL reserved for the layer above's catalog, at the same well-known address on every compute
     * node and never handed out by {@link #allocate()}. It starts zeroed.
     */
    long catalogRoot();

    /** Allocates a GCL (round-robin over memory nodes) whose data region is zero. */
    long allocate();

    /**
     * Allocates a GCL for a writer that fills it before anyone can reach it (a loader's heap page), and
     * returns an exclusive handle over {@code image}, a private buffer of {@link #gclSize()} bytes the
     * caller owns and may reuse once {@link #publish} returned: zeroed, allocated, never latched or
     * cached. {@link #publish} writes it to memory in one WRITE. A fresh line, filled once, gains nothing
     * from the cache: through it, a load paid for a frame and an eviction's write-back per page. When this
     * node has freed GCLs to reuse (another node may still have one cached), the handle is an ordinary
     * latched one instead, and {@link #publish} unlocks it.
     *
     * @throws SharedMemoryFullException if every memory node is out of GCLs
     */
    GclHandle allocateImage(java.lang.foreign.MemorySegment image);

    /**
     * Writes a handle from {@link #allocateImage} to memory (its bytes up to the last one written) and
     * releases it; from then on the line is read and latched like any other.
     */
    void publish(GclHandle image);

    /**
     * {@link #publish}es {@code handles[0..count-1]} together: the images' WRITEs go in one verb batch
     * (one round trip per memory node they span, where {@link #publish} takes one per handle), then the
     * latched handles among them are unlocked. A loader that fills many pages pays a round trip per
     * run of pages instead of per page (issue 27).
     */
    void publishAll(GclHandle[] handles, int count);

    /** Frees a GCL. Throws {@link IllegalStateException} if it is not allocated (double free). */
    void free(long address);

    /**
     * GCLs the compute nodes have taken from the memory nodes so far, in allocation chunks: one FAA of 0
     * on each memory node's bump word (for reports, not for hot paths).
     */
    long takenGcls();

    /**
     * The fabric's round trip as this node sees it, in nanoseconds: the latency model's on the in-JVM fabric
     * (0 when off), a running mean of measured verb round trips over TCP. For waits that should last about
     * a round trip (a retry that comes back sooner finds the holder still mid-round-trip).
     */
    long roundTripNanos();

    /**
     * GCLs this node has taken but does not use: the rest of its allocation chunks and its freed GCLs
     * waiting for reuse. Local, no round trip.
     */
    long idleGcls();

    /** Shared access; blocks until granted. */
    GclHandle sLock(long address);

    /** Exclusive access; blocks until granted. */
    GclHandle xLock(long address);

    /**
     * Shared access without waiting on local holders and with a bounded number of remote retries.
     *
     * @return the handle, or null when the latch is busy (an expected outcome, not an error)
     */
    GclHandle trySLock(long address);

    /** Exclusive counterpart of {@link #trySLock}; null when busy. Used by no-wait 2PL. */
    GclHandle tryXLock(long address);

    /** No frame: the {@link GclHandle#frameIndex()} of a line this node does not cache, and no hint. */
    int NO_FRAME = -1;

    /**
     * {@link #trySLock} or {@link #tryXLock} with a guess at the frame that caches the line: the
     * {@link GclHandle#frameIndex()} of an earlier latch of it. A hit then goes from the guess straight to
     * the frame's header, without the lookup from address to frame. The guess is only a hint: the frame's
     * tag (the address it caches, read before the latch is taken from that same word) confirms it, and a
     * frame that has since cached another line, a guess out of range or {@link #NO_FRAME} cost the
     * lookup it would have saved, nothing else (a stale guess is counted as {@code FRAME_HINT_MISSES}).
     * SEL mode caches nothing and ignores it.
     */
    GclHandle tryLock(long address, boolean exclusive, int frameHint);

    /**
     * A handle for the calling thread to keep and latch again and again with {@link #tryLock(GclHandle,
     * long, boolean, int)}: a hit then binds it instead of taking a handle from the thread's pool (one
     * per-thread lookup and a pool's take and give-back fewer per access). It is released by
     * {@link #unlock} as any handle, stays the caller's, and is readable only while latched; it must not
     * be offered to {@code tryLock} again before its unlock.
     */
    GclHandle keptHandle();

    /**
     * {@link #tryLock(long, boolean, int)} into {@code spare}, a {@link #keptHandle()} of this node that is
     * not latched: returns {@code spare} latched, or null when refused. On a thread other than the one that
     * made {@code spare} the latch comes in a handle of the calling thread's own, returned instead, and
     * {@code spare} is not touched, latched or not (a kept handle counts its latches on its thread's
     * counters, which only that thread writes).
     *
     * @throws IllegalArgumentException if {@code spare} is not a kept handle of this node
     * @throws IllegalStateException if {@code spare} is latched (offered by its own thread)
     */
    GclHandle tryLock(GclHandle spare, long address, boolean exclusive, int frameHint);

    /**
     * Brings into the CPU's cache, ahead of an access that will latch the line at {@code address}, the
     * header of frame {@code frameHint} and the bytes {@code [offset, offset + length)} of the data region
     * it caches (clamped to the region): a batch of such calls lets the memory system fetch them at once,
     * where the accesses that follow would each wait for their misses in turn (a New-Order's ten item and
     * stock rows). Only loads: no latch, no count, nothing changed; a frame that caches another line is
     * read all the same (a wasted load, no answer). The sum of what was read is returned so that the loads
     * are not optimised away, and means nothing. SEL mode caches nothing: 0.
     */
    long prefetch(long address, int frameHint, int offset, int length);

    /**
     * The age of no transaction: a latch taken without an age counts as held by a transaction younger
     * than every other (such holders are brief and wait for no aged latch).
     */
    long NO_AGE = Long.MAX_VALUE;

    /**
     * Wait-die acquire (2PL's WAIT_DIE policy) for a transaction of age {@code age}: smaller is older,
     * unique per transaction and kept across its retries. While the latch is busy the caller waits,
     * parking between attempts, as long as every conflicting holder with an age, on this node or
     * another, is younger than it; it gives up as soon as an older one holds the line (another node's
     * holder answers the invalidation "die") or waits for it (the latch keeps no queue: it must not
     * overtake an older waiter), or after waiting its longest, since a holder may be gone.
     * While the caller holds the handle (or acquires the line for it) its age is counted as a holder's.
     * SEL mode keeps no holders' ages: there it gives up like {@link #trySLock}/{@link #tryXLock}.
     *
     * @param age the transaction's age, below {@link #NO_AGE}
     * @return the handle, or null: the caller must abort (an expected outcome, counted as
     *     {@code WAIT_DIE_DIES} or {@code WAIT_DIE_TIMEOUTS})
     */
    GclHandle lockOrDie(long address, boolean exclusive, long age);

    /**
     * Writes what {@code handle} (held exclusive) changed so far to the GCL's memory node now, keeping the
     * latch: memory then holds the line as it is, whatever becomes of this node's cache. For structure
     * changes (a new page linked, a node split) that must outlive this node: a survivor of its crash reads
     * them from memory. Several handles go in one round trip, in the order given (a new node before the
     * line that links it). Nothing when nothing changed.
     */
    void writeThrough(GclHandle... handles);

    /**
     * A private copy of GCL {@code address} as its memory node holds it now, read without a latch (one
     * round trip): what caches hold on top is not in it. For repairing a crashed node's lines, whose
     * structure (written through, see {@link #writeThrough}) survivors walk in memory. Read-only; never
     * validated or unlocked.
     */
    GclHandle snapshot(long address);

    /**
     * {@link #snapshot} of each of {@code addresses}, in order, read in batches of up to
     * {@link #SNAPSHOT_BATCH} lines per round trip (each line read again until two reads in a row agree, as
     * {@link #snapshot} does): a crash repair walks whole trees and tables in memory, and one round trip
     * per line took seconds over a network fabric.
     */
    GclHandle[] snapshots(long[] addresses);

    /** Lines {@link #snapshots} reads per round trip at most. */
    int SNAPSHOT_BATCH = 256;

    /**
     * Takes over GCL {@code address}, which crashed compute node {@code crashedNode} held exclusive (see
     * {@link SelccCluster#claimLinesOf}): one FAA moves the writer tag from the crashed node to this one,
     * never through free, so no other node gets the line before the caller has repaired it; memory's copy
     * is read with it. Returns an exclusive handle; unlock it as usual.
     *
     * @throws IllegalStateException if the latch word does not name {@code crashedNode} as writer
     */
    GclHandle adoptCrashedLine(long address, int crashedNode);

    /** Whether compute node {@code computeNode} of this node's cluster has crashed (false for an unknown id). */
    boolean peerCrashed(int computeNode);

    /** Whether any compute node of this node's cluster has crashed, this one included. */
    boolean anyPeerCrashed();

    /** Releases a handle. Throws {@link IllegalStateException} if it was already released. */
    void unlock(GclHandle handle);

    /** A reusable handle for {@link #tryOptimisticRead}; one per thread, not thread-safe. */
    GclHandle optimisticHandle();

    /**
     * Reads a line this node caches readable without latching it (no round trip, no shared write):
     * binds {@code handle} to the cached copy and returns true, or returns false when the line is not
     * cached readable here or a local writer holds it (then latch it). What is read through the handle
     * may be torn or changing: act on it only after {@link #validate} returns true, and expect bounds
     * errors from garbage (catch them, then validate fails). Always false in SEL mode.
     */
    boolean tryOptimisticRead(long address, GclHandle handle);

    /** {@link #tryOptimisticRead} with a guess at the frame that caches the line, as {@link #tryLock} takes one. */
    boolean tryOptimisticRead(long address, GclHandle handle, int frameHint);

    /** True if what was read through {@code handle} since {@link #tryOptimisticRead} is a consistent copy. */
    boolean validate(GclHandle handle);

    /** Global fetch-and-add on an 8-byte word in a GCL's data region; returns the previous value. */
    long faa(long address, long delta);

    /** Global compare-and-swap on an 8-byte word in a GCL's data region; returns the previous value. */
    long cas(long address, long expected, long update);

    /**
     * One round trip: posts {@code batch}, whose verbs act on whole 8-byte words in the data regions of
     * GCLs that are never latched (shared counters), in the batch's order per memory node. Checked as
     * {@link #faa} checks its word: each verb's range must be aligned words of one GCL's data region.
     */
    void postWords(io.selcc.fabric.VerbBatch batch);

    NodeCounters counters();
}
