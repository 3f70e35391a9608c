package io.selcc.twopc;

import io.selcc.engine.Database;
import io.selcc.engine.TableDefinition;
import io.selcc.storage.Schema;
import io.selcc.storage.TupleView;

/**
 * A bank across partitions for the tests: node {@code n} owns table {@code account_n} with accounts
 * 0..accounts-1, each starting with {@link #START} cents; transfers move money between any two.
 */
final class Bank {
    static final long START = 1_000_00;
    static final Schema ACCOUNT = Schema.builder().addLong("id").addMoney("balance").addLong("transfers").build();

    private Bank() {
    }

    static String table(int node) {
        return "account_" + node;
    }

    static Database database(int nodes) {
        return database(nodes, null);
    }

    /** With {@code logs} (may be null) as the commit logs: prepare records then carry the branch's changes. */
    static Database database(int nodes, io.selcc.engine.CommitLog.Factory logs) {
        Database.Builder b = Database.builder().computeNodes(nodes).cc("2pl");
        if (logs != null) {
            b.commitLog(logs);
        }
        for (int n = 0; n < nodes; n++) {
            b.table(TableDefinition.of(table(n), ACCOUNT, row -> row.getLong(0)).withOnePerPage());
        }
        return b.build();
    }

    static void open(Database db, int accounts) {
        for (int n = 0; n < db.computeNodeCount(); n++) {
            var node = db.node(n);
            var table = node.table(table(n));
            for (int a = 0; a < accounts; a++) {
                long id = a;
                if (!node.run(tx -> tx.insert(table, row -> {
                    row.setLong(0, id);
                    row.setMoney(1, START);
                    row.setLong(2, 0);
                })).committed()) {
                    throw new IllegalStateException("account not opened: node " + n + " id " + a);
                }
            }
        }
    }

    static long balance(Database db, int node, long account) {
        var n = db.node(node);
        return n.run(tx -> tx.get(n.table(table(node)), account).getMoney(1)).value();
    }

    /** The sum of every balance, read in one transaction per node (call when no transfer runs). */
    static long total(Database db, int accounts) {
        long sum = 0;
        for (int n = 0; n < db.computeNodeCount(); n++) {
            for (int a = 0; a < accounts; a++) {
                sum += balance(db, n, a);
            }
        }
        return sum;
    }

    /** Moves {@code cents} from one account to another within the transaction. */
    static void transfer(DistributedTransaction tx, int fromNode, long from, int toNode, long to, long cents) {
        if (!tx.update(fromNode, table(fromNode), from, row -> debit(row, cents))) {
            throw new IllegalStateException("no account " + fromNode + "/" + from);
        }
        if (!tx.update(toNode, table(toNode), to, row -> debit(row, -cents))) {
            throw new IllegalStateException("no account " + toNode + "/" + to);
        }
    }

    private static void debit(TupleView row, long cents) {
        row.setMoney(1, row.getMoney(1) - cents);
        row.setLong(2, row.getLong(2) + 1);
    }
}
