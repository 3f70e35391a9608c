package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.SelccCluster;

import java.util.function.Consumer;

/**
 * Restores what a crashed compute node's cache held, on a survivor, while the other nodes go on
 * (fully-shared mode; the recovery the SELCC paper's section 6.5 sketches and leaves open).
 *
 * <p>When a node crashes its lines are fenced, not lost: every GCL it held exclusive keeps its writer
 * tag, which keeps every survivor off the line (they wait). Memory holds each such line as it was last
 * written back; what the crashed cache held on top is committed work of that node and of others whose
 * dirty lines were handed over to it. The repair, in order:
 * <ol>
 *   <li>seals the crashed node's log: what it appended stays and is forced; it appends nothing more
 *       (a number is drawn under the log's append lock, so none is on its way in);</li>
 *   <li>scans every latch word ({@code SelccCluster.claimLinesOf}): the crashed node's reader bits go,
 *       its exclusive lines are listed and stay tagged;</li>
 *   <li>opens a repair source ({@link CommitLog.Factory#openRepair}): a base and every change logged
 *       after it. The base is the newest checkpoint this run published, whose rows carry their record
 *       ids (so repair time is bounded by the checkpoint and the log since it, and checkpoints may
 *       truncate the logs), or, before the first one, memory as it was when logging started
 *       ({@link Database#writeBackCaches});</li>
 *   <li>reads every node's log back from the base on, node by node, keeping only the changes of lost
 *       pages (ordered by commit sequence number here);</li>
 *   <li>heap pages: adopts each (the tag moves to the survivor by CAS, memory's copy comes with it),
 *       puts the base on it (a checkpoint's rows of that page slot by slot, every other slot emptied;
 *       memory's copy is the base itself otherwise), then every logged change of its rows after the
 *       base, slot by slot in commit order, then frees the slots of inserts that never committed;</li>
 *   <li>every other line but the leaves (table roots, inner nodes, unused GCLs) is current in memory,
 *       also by write-through: it is adopted and released ({@link Stage#PAGES_RESTORED}: survivors that
 *       waited for those go on while the leaves are rebuilt, which needs the base's rows of whole
 *       tables);</li>
 *   <li>index leaves: a leaf's entries are a function of its table's visible rows, so each lost leaf
 *       gets exactly the pairs in its range: rows the log changed (read back a second time), from their
 *       last logged image; the others as the base holds them (the checkpoint's rows, or memory's:
 *       nothing committed changed those since logging started). Memory's tree is well formed because
 *       every structure change is written through.</li>
 * </ol>
 * Each line is released once repaired; the survivors waiting for it go on with it. {@link #run} is that
 * sequence; the lost lines are sorted by {@code LostLines}, the heap pages restored by {@code LostPages},
 * the leaves rebuilt by {@code LostLeaves}, each returning what it did, and {@code RepairScope} is what
 * they share. Memory is read many
 * lines per round trip ({@code ComputeNode.snapshots}: the lost lines, the trees level by level;
 * {@code SelccCluster.forEachGclInMemory}: one sweep for the pages of the tables that lost leaves), not a
 * round trip per line along the links: over TCP that took 5-20 s for a TPC-C warehouse.
 *
 * <p>Why a survivor's live transaction cannot be hurt: with an algorithm that keeps its uncommitted
 * in-place state on lines it holds exclusive to the end ({@code survivesCrashedNodes}, no-wait
 * 2PL), no live transaction of another node has state on a crashed node's line; a survivor's commit
 * that would change a lost leaf's range waits for the leaf, so the rows read for it are the committed
 * ones either way.
 */
public final class CrashRecovery {
    private CrashRecovery() {
    }

    /**
     * What one repair did.
     *
     * @param crashedNode the node that crashed
     * @param survivor the node whose thread repaired its lines
     * @param lostLines lines the crashed node held exclusive
     * @param heapPages heap pages among them, restored from the log
     * @param slotChanges lost pages' slots put back from their last logged change
     * @param slotsFreed slots of inserts that never committed, freed on them
     * @param leaves index leaves among them, rebuilt
     * @param leafEntries entries the rebuilt leaves hold
     * @param otherLines other lines, current in memory, released
     * @param base what the repair started from ({@link CommitLog.RepairSource#describeBase})
     * @param baseRowsRead rows of the base checkpoint read (0 when the base is memory)
     * @param changesRead logged changes after the base read back (all nodes)
     * @param seconds time the repair took
     */
    public record Report(int crashedNode, int survivor, int lostLines, int heapPages, long slotChanges, long slotsFreed,
                         int leaves, long leafEntries, int otherLines, String base, long baseRowsRead, long changesRead,
                         double seconds) {
        /** A repair another process did ({@code survivor} ran there): what this process knows of it. */
        public static Report elsewhere(int crashedNode, int survivor, double seconds) {
            return new Report(crashedNode, survivor, -1, 0, 0, 0, 0, 0, 0, "", 0, 0, seconds);
        }

        /** Whether the repair ran in another process ({@link #elsewhere}): then only who and when are known. */
        public boolean ranElsewhere() {
            return lostLines < 0;
        }

        public String describe() {
            if (ranElsewhere()) {
                return String.format(java.util.Locale.ROOT, "compute node %d crashed; compute node %d's process restored"
                    + " its lines (waited %.2f s here)", crashedNode, survivor, seconds);
            }
            return String.format(java.util.Locale.ROOT,
                "compute node %d crashed; node %d restored its %,d lines in %.2f s: %,d heap pages (%,d slots put"
                    + " back from the log, %,d uncommitted inserts freed), %,d index leaves rebuilt (%,d entries),"
                    + " %,d other lines released; from %s: %,d checkpoint rows and %,d logged changes read",
                crashedNode, survivor, lostLines, seconds, heapPages, slotChanges, slotsFreed, leaves, leafEntries,
                otherLines, base, baseRowsRead, changesRead);
        }
    }

    /** How far a repair got: which of the crashed node's lines survivors may take again. */
    public enum Stage {
        /**
         * Every lost heap page and every lost line that is not an index leaf is repaired and released:
         * survivors waiting for one of those go on while the leaves are rebuilt.
         */
        PAGES_RESTORED,
        /** Every lost line is repaired and released. */
        DONE
    }

    /**
     * Repairs crashed node {@code crashed}'s lines on {@code node}'s thread: the phases of the class
     * comment in order, each returning what it did. {@code reached} hears {@link Stage#PAGES_RESTORED}
     * (the caller tells {@link Stage#DONE} once this returns).
     */
    static Report run(SelccCluster cluster, CommitLog.Factory logs, DatabaseNode node, int crashed,
                      Consumer<Stage> reached) {
        long start = System.nanoTime();
        ComputeNode survivor = node.computeNode();
        logs.seal(crashed);
        long[] lost = cluster.claimLinesOf(crashed, survivor.nodeId());
        LostLines lines = LostLines.classify(survivor, node.tables(), lost);
        try (CommitLog.RepairSource source = logs.openRepair()) {
            RepairScope scope = new RepairScope(cluster, survivor, node.tables(), crashed, node.cc().restamp(), source);
            // Heap pages and the other lines first: they need only the log's changes of the lost pages (and
            // the checkpoint's rows of them), while the leaves need their tables' rows from the whole base.
            // A survivor waiting for a page goes on before the leaves are rebuilt.
            LostPages.Restored pages = LostPages.restore(scope, lines.heapPages());
            scope.releaseAsInMemory(lines.others());
            reached.accept(Stage.PAGES_RESTORED);
            LostLeaves.Rebuilt leaves = LostLeaves.rebuild(scope, lines.leafCandidates());
            return new Report(crashed, survivor.nodeId(), lost.length, lines.heapPages().size(), pages.slotChanges(),
                pages.slotsFreed(), leaves.leaves(), leaves.entries(), lines.others().size() + leaves.notLeaves(),
                source.describeBase(), Math.max(pages.baseRows(), leaves.baseRows()), pages.changesRead(),
                (System.nanoTime() - start) / 1e9);
        }
    }
}
