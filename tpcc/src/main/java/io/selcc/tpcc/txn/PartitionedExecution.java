package io.selcc.tpcc.txn;

import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;

import java.util.function.BiFunction;

/**
 * How partitioned mode runs a terminal's transactions: each compute node owns the warehouses of its
 * table set, a transaction begins on its terminal's node, and the rows of another node's warehouses are
 * reached through the {@link WarehouseRouter} handed to the profile (the work is shipped to their owner
 * and the transaction commits across partitions). The workload knows only this and the router; the
 * two-phase-commit baseline implements it (in {@code tpcc-run}).
 */
public interface PartitionedExecution {
    /** The database whose per-node table sets are the partitions. */
    Database database();

    /** What runs the transactions of one terminal homed on compute node {@code home} (one per terminal). */
    Runner terminal(int home);

    /** Runs one terminal's transactions, one at a time. */
    interface Runner {
        /**
         * Runs {@code body} as a transaction homed on this runner's node, retrying conflicts as {@code retry}
         * says: the body gets the home partition's transaction and the router to the others.
         */
        <T> TxnResult<T> run(RetryPolicy retry, BiFunction<Transaction, WarehouseRouter, T> body);
    }
}
