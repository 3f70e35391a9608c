package io.selcc.engine;

import io.selcc.cache.ComputeNode;
import io.selcc.cache.SelccCluster;
import io.selcc.storage.Restamp;

import java.util.List;

/**
 * What every phase of one crash repair ({@link CrashRecovery}) works with: the cluster, the survivor's
 * compute node (whose thread repairs), the survivor's tables (by table id, from 1), the crashed node,
 * how the algorithm restamps what is restored, and the repair source (the base and the logged changes
 * after it).
 */
record RepairScope(SelccCluster cluster, ComputeNode survivor, List<Table> tables, int crashed, Restamp restamp,
                   CommitLog.RepairSource source) {

    /** Receives one row of the base checkpoint, of a known table. */
    @FunctionalInterface
    interface CheckpointRow {
        void row(Table table, long recordId, byte[] buffer, int offset);
    }

    int gclSize() {
        return survivor.gclSize();
    }

    /** The table with id {@code tableId}, or null if there is none. */
    Table tableOrNull(int tableId) {
        return tableId >= 1 && tableId <= tables.size() ? tables.get(tableId - 1) : null;
    }

    /**
     * Reads the base checkpoint once, every row to {@code visitor}; returns the rows read.
     *
     * @throws IllegalStateException if a row names a table this database does not have
     */
    long forEachCheckpointRow(CheckpointRow visitor) {
        long[] rows = {0};
        source.forEachBaseRow((tableId, recordId, buffer, offset) -> {
            rows[0]++;
            Table table = tableOrNull(tableId);
            if (table == null) {
                throw new IllegalStateException("checkpoint row of unknown table " + tableId + " at record id 0x"
                    + Long.toHexString(recordId));
            }
            visitor.row(table, recordId, buffer, offset);
        });
        return rows[0];
    }

    /** Adopts and releases lines that are current in memory as they are (nothing to put back on them). */
    void releaseAsInMemory(Iterable<Long> addresses) {
        for (long address : addresses) {
            survivor.unlock(survivor.adoptCrashedLine(address, crashed));
        }
    }
}
