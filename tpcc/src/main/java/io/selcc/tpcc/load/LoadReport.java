package io.selcc.tpcc.load;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link TpccLoader#load()} did.
 *
 * @param warehouses      warehouses loaded
 * @param rowsPerTable    committed rows per table name, in schema order
 * @param millis          wall-clock time of the load
 * @param memoryBytesUsed bytes of the heap pages of the nine tables (pages x GCL size) after the load;
 *                        index pages are not counted
 * @param sharedBytesInUse bytes of every GCL in use after the load: heap pages, B-link nodes, catalog
 */
public record LoadReport(int warehouses, Map<String, Long> rowsPerTable, long millis, long memoryBytesUsed,
                         long sharedBytesInUse) {
    public LoadReport {
        rowsPerTable = Collections.unmodifiableMap(new LinkedHashMap<>(rowsPerTable));
    }

    /** Shared memory that is not heap pages: the indexes' B-link nodes and the catalog. */
    public long indexBytes() {
        return sharedBytesInUse - memoryBytesUsed;
    }

    /** Rows in all tables. */
    public long totalRows() {
        return rowsPerTable.values().stream().mapToLong(Long::longValue).sum();
    }
}
