package io.selcc.cc.twopl;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.GclHandle;
import io.selcc.engine.cc.AbortException;
import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.CommitHook;
import io.selcc.engine.cc.kit.LongMap;
import io.selcc.engine.cc.kit.ReadSet;
import io.selcc.engine.index.LeafGuard;
import io.selcc.engine.index.LeafView;
import io.selcc.fabric.GlobalAddress;
import io.selcc.storage.HeapTable;
import io.selcc.storage.TupleBuffer;
import io.selcc.storage.TupleLayout;
import io.selcc.storage.TupleView;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One 2PL transaction, no-wait or wait-die: on a busy latch a no-wait transaction aborts at once; a
 * wait-die one (it has an age) waits while it is older than every holder and aborts otherwise
 * ({@link ComputeNode#lockOrDie}). Writes happen in place under the page's X latch, after the tuple's
 * before-image is saved for abort; each write bumps the tuple's version.
 *
 * <p>Upgrade S to X without deadlock: release the S latch, take X refusing when busy (abort), and abort
 * unless every tuple this transaction read on the page still has the version it read. Inserts go into
 * a page this transaction holds in X until commit, marked visible at commit.
 *
 * <p>Phantoms: B-link leaves are GCLs with latches too, and the latches are the locks. A predicate
 * read (a scan, or a lookup that found nothing) keeps the S latch of every leaf it covered until the
 * transaction ends, so no other transaction can insert into or delete from that range, or split it,
 * meanwhile; an index change at commit takes the leaf in X (no-wait, upgrading this transaction's own
 * S latch) and keeps it until the end. Other index nodes are latched briefly, as the tree always does.
 *
 * <p>Over 600 lines on purpose: reads, upgrades, inserts, predicate latches and the wait-die variant all
 * act on the one set of held latches, whose release rules must be read together.
 */
final class TwoPhaseLockingTransaction implements CcTransaction {
    private final ComputeNode node;
    /** Wait-die age (kept across the retries of one logical transaction); {@link ComputeNode#NO_AGE} for no-wait. */
    private final long age;
    /** The thread's collections, lent for this transaction's lifetime (see {@link Workspace}). */
    private final Workspace workspace;
    /** Latches held, by page address, in acquisition order. */
    private final LongMap<Held> held;
    /** Before-images of the rows this transaction changed, in change order. */
    private final UndoLog undo;
    /** This transaction's inserts still alive: record id -> table. */
    private final LongMap<HeapTable> inserts;
    /** Rows this transaction deleted (existing before it): record id -> table; freed at commit. */
    private final LongMap<HeapTable> deletes;
    private final ViewsByTable views;
    private final ViewsByTable copyViews;
    private final LockingGuard guard = new LockingGuard(true);
    /** Undoing its own index changes must not fail: waits instead of refusing where nothing is held. */
    private final LockingGuard undoGuard = new LockingGuard(false);
    private final LeafView leafView = new LeafView();
    private AbortReason refusal;
    /** The leaf (or root) whose latch was refused, for the abort's message. */
    private long refusedAt;
    private boolean active = true;

    private static final class Held {
        GclHandle handle;
        /**
         * A kept handle for this record's heap page latches ({@link ComputeNode#keptHandle}): a hit binds
         * it instead of taking a handle from the node's pool. Made on first use by the thread using the
         * workspace (a transaction moved to another thread gets pooled handles instead), kept when the
         * record is recycled; latched only while it is {@link #handle}.
         */
        private GclHandle spare;
        /** While shared: this transaction read tuples here (their marks are in readMarks, checked on upgrade). */
        boolean hasReads;
        /** A B-link leaf a predicate read covered: its version then (checked on upgrade); -1 otherwise. */
        long leafVersion = -1;

        Held(GclHandle handle) {
            this.handle = handle;
        }

        GclHandle spare(ComputeNode node) {
            if (spare == null) {
                spare = node.keptHandle();
            }
            return spare;
        }
    }

    /**
     * Tuples read under shared page latches: version and incarnation then, checked when their page is
     * upgraded. One map per transaction rather than one per page: most pages hold one or two reads.
     */
    private final ReadSet readMarks;

    /** See {@link #lastFrame()}. */
    private int lastFrame = ComputeNode.NO_FRAME;

    /**
     * @param workspaces the calling thread's workspace, borrowed when free (a thread runs one
     *                   transaction at a time; a nested one gets a fresh workspace)
     */
    TwoPhaseLockingTransaction(ComputeNode node, ThreadLocal<Workspace> workspaces, long age) {
        this.node = node;
        this.age = age;
        Workspace ws = workspaces.get();
        if (ws.inUse) {
            ws = new Workspace();
        }
        ws.inUse = true;
        this.workspace = ws;
        this.held = ws.held;
        this.undo = ws.undo;
        this.inserts = ws.inserts;
        this.deletes = ws.deletes;
        this.views = ws.views;
        this.copyViews = ws.copyViews;
        this.readMarks = ws.readMarks;
    }

    /**
     * The per-transaction collections, kept per thread and cleared between transactions: maps keep
     * their arrays, views their tables, and before-images share one growing byte array, so a
     * transaction allocates little beyond its first run on a thread (issue 8: these were about a
     * fifth of New-Order's allocated bytes). A transaction that ended gives its workspace back and
     * never touches it again (every entry point checks that it is active).
     */
    static final class Workspace {
        final LongMap<Held> held = new LongMap<>(16);
        final UndoLog undo = new UndoLog();
        final LongMap<HeapTable> inserts = new LongMap<>();
        final LongMap<HeapTable> deletes = new LongMap<>();
        final ViewsByTable views = new ViewsByTable();
        final ViewsByTable copyViews = new ViewsByTable();
        final ReadSet readMarks = new ReadSet();
        /** The thread's optimistic handle on {@link #optimisticNode} (see {@code readCommittedForGood}). */
        private GclHandle optimistic;
        private ComputeNode optimisticNode;

        GclHandle optimisticHandle(ComputeNode node) {
            if (optimisticNode != node) {
                optimistic = node.optimisticHandle();
                optimisticNode = node;
            }
            return optimistic;
        }

        /** Latch records of ended transactions, for the next ones: a page latched allocates none. */
        private Held[] spareHeld = new Held[16];
        private int spareCount;
        boolean inUse;

        Held newHeld(GclHandle handle) {
            if (spareCount == 0) {
                return new Held(handle);
            }
            Held h = spareHeld[--spareCount];
            spareHeld[spareCount] = null;
            h.handle = handle;
            h.hasReads = false;
            h.leafVersion = -1;
            return h;
        }

        /** Takes back a record for a later latch: one released, or one that left or never made it into {@link #held}. */
        void recycle(Held h) {
            h.handle = null;
            if (spareCount == spareHeld.length) {
                spareHeld = Arrays.copyOf(spareHeld, spareCount * 2);
            }
            spareHeld[spareCount++] = h;
        }

        void release() {
            for (int i = 0; i < held.size(); i++) {
                recycle(held.valueAt(i));
            }
            held.clear();
            undo.clear();
            inserts.clear();
            deletes.clear();
            readMarks.clear();
            inUse = false;
        }
    }

    /** Before-images: record ids and tables in arrays, the images back to back in one byte array. */
    static final class UndoLog {
        /** Record ids with a saved image (value unused): one image per row, the first. */
        private final LongMap<Boolean> taken = new LongMap<>();
        private HeapTable[] tables = new HeapTable[16];
        private long[] rids = new long[16];
        private int[] offsets = new int[16];
        private byte[] images = new byte[4096];
        private int count;
        private int used;

        boolean has(long rid) {
            return taken.containsKey(rid);
        }

        void save(HeapTable table, long rid, TupleView row) {
            int size = table.schema().tupleSize();
            if (count == rids.length) {
                tables = Arrays.copyOf(tables, count * 2);
                rids = Arrays.copyOf(rids, count * 2);
                offsets = Arrays.copyOf(offsets, count * 2);
            }
            if (used + size > images.length) {
                images = Arrays.copyOf(images, Math.max(images.length * 2, used + size));
            }
            row.copyTo(images, used);
            tables[count] = table;
            rids[count] = rid;
            offsets[count] = used;
            count++;
            used += size;
            taken.put(rid, Boolean.TRUE);
        }

        int size() {
            return count;
        }

        HeapTable table(int i) {
            return tables[i];
        }

        long rid(int i) {
            return rids[i];
        }

        /** Restores entry {@code i} into {@code row}. */
        void restore(int i, TupleView row) {
            row.copyFrom(images, offsets[i]);
        }

        void clear() {
            Arrays.fill(tables, 0, count, null);
            count = 0;
            used = 0;
            taken.clear();
        }
    }

    @Override
    public boolean read(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer into) {
        return read(table, rid, ComputeNode.NO_FRAME, expected, into);
    }

    @Override
    public boolean read(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected, TupleBuffer into) {
        if (table.insertOnly() && held.get(table.pageOf(rid)) == null) {
            return readCommittedForGood(table, rid, frameHint, expected, into);
        }
        if (latchToRead(table, rid, frameHint, expected) == null) {
            return false;
        }
        copyView(table).wrap(into).copyFrom(view(table)); // latchToRead left the table's view on the row
        return true;
    }

    /**
     * The row in place: its page stays latched until this transaction ends, so the row cannot change
     * under the caller, and the copy {@link #read} makes is left out. A committed row of an insert-only
     * table is read without holding its page (see {@link #readCommittedForGood}), so it is still copied.
     */
    @Override
    public TupleView readView(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                              TupleBuffer into, TupleView rowView) {
        if (table.insertOnly() && held.get(table.pageOf(rid)) == null) {
            return CcTransaction.super.readView(table, rid, frameHint, expected, into, rowView); // copied
        }
        Held page = latchToRead(table, rid, frameHint, expected);
        return page == null ? null : rowView.wrapReadOnly(page.handle, table.slotOf(rid));
    }

    /**
     * The row's page, latched to commit (S, or the X held), when the row is readable and expected, with
     * the table's shared view left on the row; else null.
     */
    private Held latchToRead(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected) {
        Held page = latch(table.pageOf(rid), false, frameHint);
        lastFrame = page.handle.frameIndex();
        TupleView row = view(table).wrap(page.handle, table.slotOf(rid));
        if (!readable(row, rid) || !expected.test(row)) {
            return null;
        }
        if (!page.handle.isExclusive() && readMarks.indexOf(rid) < 0) {
            readMarks.add(rid, table, row.version(), row.incarnation());
            page.hasReads = true;
        }
        return page;
    }

    @Override
    public boolean update(HeapTable table, long rid, Predicate<TupleView> expected, Consumer<TupleView> updater,
                          TupleBuffer before, TupleBuffer after) {
        return update(table, rid, ComputeNode.NO_FRAME, expected, updater, before, after);
    }

    @Override
    public boolean update(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                          Consumer<TupleView> updater, TupleBuffer before, TupleBuffer after) {
        // A view of its own for the updater (not a shared one, which a nested read would move); this method
        // is for callers of the algorithm itself (Transaction updates through updateView).
        TupleView updated = updateView(table, rid, frameHint, expected, updater, before, after,
            new TupleView(table.schema()));
        if (updated == null) {
            return false;
        }
        after.view().copyFrom(updated); // this method's contract: the row as updated, in after
        return true;
    }

    /**
     * The update in place: the page is X-latched until this transaction ends and the row's image is in
     * the undo log, so {@code updater} writes the row itself (through {@code rowView}, which refuses
     * writes to the CC header) instead of a copy that is then copied back: two whole-row copies fewer
     * per update. An updater that throws leaves the row half changed; the caller aborts, and the undo
     * image restores it. {@code after} is left unused.
     */
    @Override
    public TupleView updateView(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                                Consumer<TupleView> updater, TupleBuffer before, TupleBuffer after,
                                TupleView rowView) {
        Held page = latch(table.pageOf(rid), true, frameHint);
        lastFrame = page.handle.frameIndex();
        int slot = table.slotOf(rid);
        TupleView row = view(table).wrap(page.handle, slot);
        if (!readable(row, rid) || !expected.test(row)) {
            return null;
        }
        saveUndo(table, rid, row);
        if (before != null) {
            copyView(table).wrap(before).copyFrom(row);
        }
        updater.accept(rowView.wrapColumns(page.handle, slot));
        if (!active) { // a nested call aborted the transaction and the updater carried on: its page is gone
            throw new IllegalStateException("the transaction ended while its updater ran (a nested call aborted it)");
        }
        // Re-wrapped: the updater may have read this table through the shared page view meanwhile.
        row = view(table).wrap(page.handle, slot);
        row.version(row.version() + 1);
        return rowView.wrapReadOnly(page.handle, slot);
    }

    @Override
    public boolean delete(HeapTable table, long rid, Predicate<TupleView> expected, TupleBuffer before) {
        Held page = latch(table.pageOf(rid), true);
        TupleView row = view(table).wrap(page.handle, table.slotOf(rid));
        if (!readable(row, rid) || !expected.test(row)) {
            return false;
        }
        before.view().copyFrom(row);
        if (inserts.remove(rid) != null) {
            table.freeSlot(page.handle, table.slotOf(rid)); // never visible to anyone
            return true;
        }
        saveUndo(table, rid, row);
        row.flags(TupleLayout.USED); // invisible from now on; freed at commit
        row.version(row.version() + 1);
        deletes.put(rid, table);
        return true;
    }

    @Override
    public long insert(HeapTable table, TupleBuffer image) {
        TupleView source = image.view();
        while (true) {
            long pageAddress = table.targetPage();
            Held page = latch(pageAddress, true);
            int slot = table.insertCopy(page.handle, source);
            if (slot >= 0) {
                long rid = table.recordId(pageAddress, slot);
                inserts.put(rid, table);
                return rid;
            }
            table.pageFull(pageAddress);
        }
    }

    @Override
    public CommitOutcome commit(CommitHook hook) {
        checkActive();
        AbortReason refused = hook.beforeInstall();
        if (refused != null) {
            rollback();
            return CommitOutcome.aborted(refused);
        }
        AbortReason notLogged = hook.commitPoint(); // every write latch still held: logged in commit order
        if (notLogged != null) {
            hook.undo();
            rollback();
            return CommitOutcome.aborted(notLogged);
        }
        for (int i = 0; i < inserts.size(); i++) {
            HeapTable table = inserts.valueAt(i);
            long rid = inserts.keyAt(i);
            GclHandle page = held.get(table.pageOf(rid)).handle;
            TupleView row = view(table).wrap(page, table.slotOf(rid));
            row.version(row.version() + 1); // a slot's version only grows, across reuse too
            table.markVisible(page, table.slotOf(rid));
        }
        for (int i = 0; i < deletes.size(); i++) {
            HeapTable table = deletes.valueAt(i);
            long rid = deletes.keyAt(i);
            table.freeSlot(held.get(table.pageOf(rid)).handle, table.slotOf(rid));
        }
        releaseAll();
        return CommitOutcome.COMMITTED;
    }

    @Override
    public int lastFrame() {
        return lastFrame;
    }

    @Override
    public LeafGuard leafGuard() {
        return guard;
    }

    @Override
    public void indexReadDone() {
        checkActive();
        if (refusal != null) {
            AbortReason reason = refusal;
            rollback();
            throw new AbortException(reason, "index node busy: " + GlobalAddress.toString(refusedAt));
        }
    }

    @Override
    public AbortReason indexRefusal() {
        return refusal;
    }

    @Override
    public LeafGuard undoGuard() {
        return undoGuard; // the leaves changed at commit are held in X: undo reuses them
    }

    @Override
    public void abort(AbortReason reason) {
        if (active) {
            rollback();
        }
    }

    /**
     * A committed row of an insert-only table never changes, so a lock on it protects nothing: it is
     * read without a latch when its page is cached readable (copied, then validated against the frame's
     * version: nothing shared is written, so terminals reading the same ITEM page do not pass its latch
     * word between their cores), else under a short S latch, released at once; the page is never held to
     * commit (a New-Order held ten ITEM pages until its commit, and unlatched each there). A row this
     * transaction inserted is on a page it holds and goes the usual way; an absent key is covered by its
     * index leaf. {@code into} may be written when the answer is false.
     */
    private boolean readCommittedForGood(HeapTable table, long rid, int frameHint, Predicate<TupleView> expected,
                                         TupleBuffer into) {
        checkActive();
        long pageAddress = table.pageOf(rid);
        GclHandle optimistic = workspace.optimisticHandle(node);
        if (node.tryOptimisticRead(pageAddress, optimistic, frameHint)) {
            lastFrame = optimistic.frameIndex();
            TupleView copy = copyView(table).wrap(into);
            copy.copyFrom(view(table).wrap(optimistic, table.slotOf(rid)));
            if (node.validate(optimistic)) { // a consistent copy: judged on the copy, never on the live row
                return copy.isVisible() && expected.test(copy);
            }
        }
        GclHandle page = acquire(node, pageAddress, false, frameHint);
        if (page == null) {
            throw abortWith(AbortReason.LOCK_CONFLICT, pageAddress);
        }
        lastFrame = page.frameIndex();
        try {
            TupleView row = view(table).wrap(page, table.slotOf(rid));
            if (!row.isVisible() || !expected.test(row)) {
                return false;
            }
            copyView(table).wrap(into).copyFrom(row);
            return true;
        } finally {
            node.unlock(page);
        }
    }

    // ------------------------------------------------------------ internals

    /** A row this transaction may see: visible, or its own insert (not deleted). */
    private boolean readable(TupleView row, long rid) {
        return row.isVisible() && !deletes.containsKey(rid) || row.isUsed() && inserts.containsKey(rid);
    }

    private TupleView view(HeapTable table) {
        return views.of(table);
    }

    /** A view for one copy into a caller's buffer, used and dropped before any callback runs. */
    private TupleView copyView(HeapTable table) {
        return copyViews.of(table);
    }

    /**
     * One view per table, found by the table's id (an array load and an identity check; a hash map
     * lookup per row access showed in profiles). A table of another database with the same id takes
     * the slot over: views hold nothing between uses.
     */
    static final class ViewsByTable {
        private static final int MAX_TABLE_ID = 4096;
        private HeapTable[] tables = new HeapTable[16];
        private TupleView[] views = new TupleView[16];

        TupleView of(HeapTable table) {
            int id = table.tableId();
            if (id >= 0 && id < tables.length && tables[id] == table) {
                return views[id];
            }
            if (id < 0 || id >= MAX_TABLE_ID) {
                return new TupleView(table.schema()); // ids the engine does not hand out
            }
            if (id >= tables.length) {
                int length = Math.max(id + 1, tables.length * 2);
                tables = Arrays.copyOf(tables, length);
                views = Arrays.copyOf(views, length);
            }
            tables[id] = table;
            views[id] = new TupleView(table.schema());
            return views[id];
        }
    }

    private void saveUndo(HeapTable table, long rid, TupleView row) {
        if (!inserts.containsKey(rid) && !undo.has(rid)) {
            undo.save(table, rid, row);
        }
    }

    /**
     * A latch this transaction may be refused: without waiting (no-wait), or waiting while older than
     * every holder (wait-die). Null when refused: the caller aborts.
     */
    private GclHandle acquire(ComputeNode computeNode, long address, boolean exclusive) {
        return acquire(computeNode, address, exclusive, ComputeNode.NO_FRAME);
    }

    /** {@link #acquire(ComputeNode, long, boolean)} with a guess at the line's cache frame (no-wait only: wait-die ignores it). */
    private GclHandle acquire(ComputeNode computeNode, long address, boolean exclusive, int frameHint) {
        return acquire(computeNode, address, exclusive, frameHint, null);
    }

    /**
     * {@link #acquire(ComputeNode, long, boolean, int)}, a no-wait latch binding the kept handle of
     * {@code into} (a heap page's latch record) where there is one, else a pooled handle.
     */
    private GclHandle acquire(ComputeNode computeNode, long address, boolean exclusive, int frameHint, Held into) {
        if (age == ComputeNode.NO_AGE) {
            return into != null ? computeNode.tryLock(into.spare(computeNode), address, exclusive, frameHint)
                : computeNode.tryLock(address, exclusive, frameHint);
        }
        return computeNode.lockOrDie(address, exclusive, age);
    }

    /**
     * A no-wait transaction waits a while for its first latch: holding nothing, it cannot be part of a
     * waits-for cycle among transactions that each wait on one thread, so queueing behind the holder spares
     * a restart. On a hot row that every transaction of a warehouse takes first (a Payment's warehouse
     * row), no-wait otherwise restarted the others for as long as the holder waited on its round trips
     * (over TCP about 60 aborts per committed Payment). The wait is bounded ({@link #firstLatchWaitNanos}):
     * one thread may interleave two transactions, and the second must not wait for the first for ever.
     * Heap pages only: an index leaf may be latched inside a tree operation. Not for a branch of a
     * distributed transaction: its other branches hold latches elsewhere meanwhile.
     */
    private GclHandle acquireHeapPage(long page, boolean exclusive, int frameHint, Held into) {
        GclHandle handle = acquire(node, page, exclusive, frameHint, into);
        if (handle != null || age != ComputeNode.NO_AGE || !firstLatchWaits || held.size() != 0) {
            return handle;
        }
        node.counters().increment(io.selcc.fabric.Counter.FIRST_LATCH_WAITS);
        long deadline = System.nanoTime() + firstLatchWaitNanos(node.roundTripNanos());
        long pause = FIRST_PAUSE_NANOS;
        while (System.nanoTime() - deadline < 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(pause); // a virtual thread leaves its carrier
            pause = Math.min(2 * pause, MAX_PAUSE_NANOS);
            handle = exclusive ? node.tryXLock(page) : node.trySLock(page);
            if (handle != null) {
                return handle;
            }
        }
        return null;
    }

    /** First and longest pause between looks at a busy first latch. */
    private static final long FIRST_PAUSE_NANOS = 1_000;
    private static final long MAX_PAUSE_NANOS = 100_000;
    /** The shortest a first latch is waited for; longer on a slow fabric (a queue of holders' round trips). */
    static final long MIN_FIRST_LATCH_WAIT_NANOS = 50_000_000;

    /** How long a first latch is waited for on a fabric whose round trip takes {@code roundTripNanos}. */
    static long firstLatchWaitNanos(long roundTripNanos) {
        return Math.max(MIN_FIRST_LATCH_WAIT_NANOS, 256 * roundTripNanos);
    }

    /** False for a branch of a distributed transaction (see {@link #refuseEveryBusyLatch}). */
    private boolean firstLatchWaits = true;

    @Override
    public void refuseEveryBusyLatch() {
        firstLatchWaits = false;
    }

    /** The page's latch in the mode needed, taking or upgrading it as {@link #acquire} may; aborts when refused. */
    private Held latch(long page, boolean exclusive) {
        return latch(page, exclusive, ComputeNode.NO_FRAME);
    }

    /** {@link #latch(long, boolean)} with a guess at the page's cache frame, for a page not held yet. */
    private Held latch(long page, boolean exclusive, int frameHint) {
        checkActive();
        Held h = held.get(page);
        if (h == null) {
            h = workspace.newHeld(null);
            GclHandle handle = acquireHeapPage(page, exclusive, frameHint, h);
            if (handle == null) {
                workspace.recycle(h);
                throw abortWith(AbortReason.LOCK_CONFLICT, page);
            }
            h.handle = handle;
            held.put(page, h);
            return h;
        }
        if (exclusive && !h.handle.isExclusive()) {
            int frame = h.handle.frameIndex(); // where the X latch will most likely find the page too
            node.unlock(h.handle);
            // Not held while upgrading: if the acquire throws (this node crashed), the rollback must not
            // unlock the released S latch a second time.
            held.remove(page);
            GclHandle upgraded = acquire(node, page, true, frame, h); // the S latch was released: its kept handle is free
            if (upgraded == null) {
                workspace.recycle(h); // out of held: the rollback would not give it back
                throw abortWith(AbortReason.UPGRADE_CONFLICT, page);
            }
            h.handle = upgraded;
            held.put(page, h);
            for (int i = 0; h.hasReads && i < readMarks.size(); i++) {
                HeapTable table = readMarks.table(i);
                long rid = readMarks.rid(i);
                if (table.pageOf(rid) != page) {
                    continue;
                }
                TupleView row = view(table).wrap(upgraded, table.slotOf(rid));
                if (!readMarks.unchanged(i, row.version(), row.incarnation())) {
                    throw abortWith(AbortReason.UPGRADE_CONFLICT, page); // changed while we held no latch
                }
            }
            h.hasReads = false;
        }
        return h;
    }

    /**
     * Leaves through this transaction's latches: reuses a latch it holds (latches are not reentrant),
     * never waits where it may refuse, keeps what a predicate read covered or a change touched.
     */
    private final class LockingGuard implements LeafGuard {
        /** False for undo: blocks where the tree would let it refuse (only the root can be busy then). */
        private final boolean refuses;

        LockingGuard(boolean refuses) {
            this.refuses = refuses;
        }

        @Override
        public GclHandle latch(ComputeNode computeNode, long address, boolean exclusive, boolean mayRefuseHere) {
            checkActive(); // an ended transaction's workspace belongs to the thread's next one
            boolean mayRefuse = refuses && mayRefuseHere;
            Held h = held.get(address);
            if (h != null) {
                if (!exclusive || h.handle.isExclusive()) {
                    return h.handle;
                }
                int frame = h.handle.frameIndex();
                computeNode.unlock(h.handle);
                held.remove(address); // not held while upgrading: an acquire that throws must not leave it to unlock again
                GclHandle upgraded = mayRefuse ? acquire(computeNode, address, true, frame) : computeNode.xLock(address);
                if (upgraded == null) {
                    workspace.recycle(h); // out of held: the rollback would not give it back
                    refusal = AbortReason.UPGRADE_CONFLICT;
                    refusedAt = address;
                    return null;
                }
                h.handle = upgraded;
                held.put(address, h);
                if (h.leafVersion >= 0 && leafView.wrap(upgraded).version() != h.leafVersion) {
                    refusal = AbortReason.UPGRADE_CONFLICT; // the range changed while no latch was held
                    refusedAt = address;
                    return null;
                }
                return upgraded;
            }
            GclHandle latched = mayRefuse
                ? acquire(computeNode, address, exclusive)
                : (exclusive ? computeNode.xLock(address) : computeNode.sLock(address));
            if (latched == null) {
                refusal = AbortReason.LOCK_CONFLICT;
                refusedAt = address;
            }
            return latched;
        }

        @Override
        public void unlatch(ComputeNode computeNode, GclHandle handle) {
            Held h = held.get(handle.address());
            if (h == null || h.handle != handle) {
                computeNode.unlock(handle); // a transient latch (an internal root, a lookup's hit)
            }
        }

        @Override
        public boolean latchesLeafToInsert() {
            return true;
        }

        @Override
        public void adopt(GclHandle newLeaf) {
            held.put(newLeaf.address(), workspace.newHeld(newLeaf));
        }

        @Override
        public boolean onRead(LeafView leaf) {
            Held h = keep(leaf);
            if (!h.handle.isExclusive()) {
                // Checked only when an S latch is upgraded; a leaf held in X (an insert's probe) never is,
                // and its version word (the header's second CPU cache line) is then not read here.
                h.leafVersion = leaf.version();
            }
            return true;
        }

        @Override
        public boolean beforeChange(LeafView leaf) {
            keep(leaf);
            return true;
        }

        /**
         * A root that was a leaf split in place: its range now lives in the two new leaves, which this
         * transaction holds in X. The root itself is an internal node from now on; holding it to the
         * end would block every descent of the tree (and every other transaction's undo), so it goes.
         */
        @Override
        public void afterSplit(LeafView split, long versionBefore, LeafView newLeaf) {
            if (!split.isLeaf()) {
                held.remove(split.address()); // the tree's unlatch of the root then releases it
            }
        }

        private Held keep(LeafView leaf) {
            Held h = held.get(leaf.address());
            if (h == null) {
                h = workspace.newHeld(leaf.handle());
                held.put(leaf.address(), h);
            }
            return h;
        }
    }

    private AbortException abortWith(AbortReason reason, long page) {
        rollback();
        return new AbortException(reason, "page=" + GlobalAddress.toString(page));
    }

    /** Restores before-images, frees this transaction's inserts, releases every latch. */
    private void rollback() {
        for (int i = undo.size() - 1; i >= 0; i--) {
            HeapTable table = undo.table(i);
            long rid = undo.rid(i);
            Held page = held.get(table.pageOf(rid));
            undo.restore(i, view(table).wrap(page.handle, table.slotOf(rid)));
        }
        for (int i = 0; i < inserts.size(); i++) {
            HeapTable table = inserts.valueAt(i);
            long rid = inserts.keyAt(i);
            table.freeSlot(held.get(table.pageOf(rid)).handle, table.slotOf(rid));
        }
        releaseAll();
    }

    private void releaseAll() {
        for (int i = 0; i < held.size(); i++) {
            node.unlock(held.valueAt(i).handle);
        }
        active = false;
        workspace.release();
    }

    private void checkActive() {
        if (!active) {
            throw new IllegalStateException("transaction is over");
        }
    }
}
