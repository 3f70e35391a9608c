package io.selcc.junit5;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.Database;
import io.selcc.engine.TransactionCounts;
import io.selcc.fabric.Counter;
import io.selcc.fabric.CounterSnapshot;

/**
 * What a test's transactions did, over every compute node, from the start of the test (or the last
 * {@link #reset}): commits and aborts by reason, and the fabric's counts (round trips, messages,
 * invalidations). All are exact counts, so a test may assert them: a transaction that reads one row
 * cached nowhere costs a known number of round trips on every run.
 */
public final class DatabaseCounters {
    private final Database db;
    private CounterSnapshot fabricFrom;
    private TransactionCounts.Snapshot transactionsFrom;

    DatabaseCounters(Database db) {
        this.db = db;
        reset();
    }

    /** Counts from now on (say, after the test's setup). */
    public void reset() {
        fabricFrom = db.cluster().totalCounters();
        transactionsFrom = db.transactionCounts();
    }

    /** Transactions' ends since the reset: commits, aborts by reason (every retried attempt counts). */
    public TransactionCounts.Snapshot transactions() {
        return db.transactionCounts().minus(transactionsFrom);
    }

    public long committed() {
        return transactions().committed();
    }

    public long aborted() {
        return transactions().abortedTotal();
    }

    public long aborted(AbortReason reason) {
        return transactions().aborted(reason);
    }

    /** Every fabric and cache counter since the reset, summed over the compute nodes. */
    public CounterSnapshot fabric() {
        return db.cluster().totalCounters().minus(fabricFrom);
    }

    /** Round trips to the memory nodes (one per verb batch). */
    public long roundTrips() {
        return fabric().get(Counter.ROUND_TRIPS);
    }

    /** Messages between compute nodes (invalidations and their answers). */
    public long messages() {
        return fabric().get(Counter.MESSAGES_SENT);
    }

    /** Invalidations one compute node sent another for a line it held. */
    public long invalidations() {
        return fabric().invalidationsSent();
    }
}
