package io.selcc.junit5;

import io.selcc.engine.DatabaseNode;
import io.selcc.engine.Table;
import io.selcc.engine.TxnResult;
import io.selcc.engine.cc.AbortReason;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An insert that finds shared memory full is counted as that, not as a user's abort. (Shown to fail
 * before the fix: the rollback counted USER_ABORT and the abort itself was then not counted.)
 */
class SharedMemoryFullCountTest {
    @Test
    @SelccDatabase(computeNodes = 1, memoryMiB = 1, gclSize = 512, cacheFrames = 256, schema = Accounts.class)
    void aFullMemoryIsCountedAsSuch(DatabaseNode node, DatabaseCounters counters) {
        Table accounts = node.table("account");
        counters.reset();
        TxnResult<Boolean> last = null;
        long inserted = 0;
        for (long id = 1; id < 1_000_000; id++) {
            long key = id;
            last = node.run(tx -> tx.insert(accounts, row -> {
                row.setLong(0, key);
                row.setMoney(1, key);
            }));
            if (!last.committed()) {
                break;
            }
            inserted++;
        }
        assertFalse(last.committed(), "1 MiB of shared memory filled up");
        assertEquals(AbortReason.SHARED_MEMORY_FULL, last.outcome().reason(), last.toString());
        assertTrue(inserted > 0, "rows went in before it filled");
        assertEquals(inserted, counters.committed());
        assertEquals(1, counters.aborted(AbortReason.SHARED_MEMORY_FULL), counters.transactions().toString());
        assertEquals(0, counters.aborted(AbortReason.USER_ABORT), counters.transactions().toString());
    }
}
