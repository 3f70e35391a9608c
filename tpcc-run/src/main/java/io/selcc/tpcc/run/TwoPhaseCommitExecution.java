package io.selcc.tpcc.run;

import io.selcc.engine.Database;
import io.selcc.engine.RetryPolicy;
import io.selcc.engine.Transaction;
import io.selcc.engine.TxnResult;
import io.selcc.tpcc.txn.PartitionedExecution;
import io.selcc.tpcc.txn.WarehouseRouter;
import io.selcc.twopc.PartitionedDatabase;

import java.util.function.BiFunction;

/**
 * Partitioned mode's execution over the two-phase-commit baseline: a terminal's transaction is a
 * distributed transaction homed on its node, and its router ships the work on another node's warehouses
 * to that node's partition.
 */
public final class TwoPhaseCommitExecution implements PartitionedExecution {
    private final PartitionedDatabase partitions;

    public TwoPhaseCommitExecution(PartitionedDatabase partitions) {
        this.partitions = partitions;
    }

    @Override
    public Database database() {
        return partitions.database();
    }

    @Override
    public Runner terminal(int home) {
        PartitionRouter router = new PartitionRouter(partitions.database().computeNodeCount(), home);
        return new Runner() {
            @Override
            public <T> TxnResult<T> run(RetryPolicy retry, BiFunction<Transaction, WarehouseRouter, T> body) {
                return partitions.run(home, retry, tx -> body.apply(tx.local(), router.bind(tx)));
            }
        };
    }
}
