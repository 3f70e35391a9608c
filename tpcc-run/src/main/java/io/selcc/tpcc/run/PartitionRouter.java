package io.selcc.tpcc.run;

import io.selcc.engine.RowReader;
import io.selcc.engine.RowVisitor;
import io.selcc.storage.TupleView;
import io.selcc.tpcc.TpccSchema;
import io.selcc.tpcc.txn.WarehouseRouter;
import io.selcc.twopc.DistributedTransaction;

import java.util.function.Consumer;

/**
 * Partitioned mode's {@link WarehouseRouter}: warehouse {@code w} belongs to compute node
 * {@link TpccSchema#owner}; a row of a warehouse another node owns is read, updated or scanned through
 * the current distributed transaction, which ships the work to that node's partition. One per terminal,
 * bound to each transaction in turn ({@link #bind}).
 */
final class PartitionRouter implements WarehouseRouter {
    private final int partitions;
    private final int home;
    private DistributedTransaction tx;

    /** A router for transactions whose home is compute node {@code home} of {@code partitions}. */
    PartitionRouter(int partitions, int home) {
        if (home < 0 || home >= partitions) {
            throw new IllegalArgumentException("home node " + home + " outside 0.." + (partitions - 1));
        }
        this.partitions = partitions;
        this.home = home;
    }

    /** Routes the work of {@code transaction} (begun on the home node) from now on. */
    PartitionRouter bind(DistributedTransaction transaction) {
        if (transaction.homeNode() != home) {
            throw new IllegalArgumentException("transaction of node " + transaction.homeNode() + ", router of " + home);
        }
        this.tx = transaction;
        return this;
    }

    @Override
    public boolean isLocal(int w) {
        return TpccSchema.owner(w, partitions) == home;
    }

    @Override
    public boolean read(String table, int w, long key, RowReader reader) {
        int owner = TpccSchema.owner(w, partitions);
        TupleView row = tx.read(owner, TpccSchema.name(table, owner), key);
        if (row == null) {
            return false;
        }
        reader.read(row); // a private copy of the remote row: a reader's write (RowReader forbids it) would change nothing
        return true;
    }

    @Override
    public boolean update(String table, int w, long key, Consumer<TupleView> updater) {
        int owner = TpccSchema.owner(w, partitions);
        return tx.update(owner, TpccSchema.name(table, owner), key, updater);
    }

    @Override
    public int scan(String index, int w, long low, long high, int limit, RowVisitor visitor) {
        int owner = TpccSchema.owner(w, partitions);
        return tx.scan(owner, TpccSchema.name(index, owner), low, high, limit, false, visitor);
    }
}
