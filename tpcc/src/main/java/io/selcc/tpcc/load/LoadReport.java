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
 */
public record LoadReport(int warehouses, Map<String, Long> rowsPerTable, long millis, long memoryBytesUsed) {
    public LoadReport {
        rowsPerTable = Collections.unmodifiableMap(new LinkedHashMap<>(rowsPerTable));
    }

    /** Rows in all tables. */
    public long totalRows() {
        return rowsPerTable.values().stream().mapToLong(Long::longValue).sum();
    }
}
