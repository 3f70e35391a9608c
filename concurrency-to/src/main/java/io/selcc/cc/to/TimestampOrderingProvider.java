package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.storage.Restamp;

/**
 * Provides "to": each transaction takes its timestamp with one FAA on the global counter; the compute
 * node's id goes into the timestamp's low bits ({@link TimestampOrderingTransaction#timestamp}), so a
 * write intent names its owner's node.
 */
public final class TimestampOrderingProvider implements ConcurrencyControlProvider {
    public static final String NAME = "to";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        ComputeNode node = environment.node();
        long counter = environment.timestampCounter();
        return new ConcurrencyControl() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public CcTransaction begin() {
                return new TimestampOrderingTransaction(node,
                    TimestampOrderingTransaction.timestamp(node.faa(counter, 1) + 1, node.nodeId()));
            }

            /**
             * Restored tuples and leaves get timestamps no transaction has yet: every timestamp drawn so
             * far is at most the counter's value with the highest node id, so a restored write timestamp
             * makes every older transaction abort on the row (never read it as older than it is), and a
             * restored read timestamp makes every older writer abort (a committed reader on the crashed
             * node may have read it). Intents on lost lines go: their owners abort at commit.
             */
            @Override
            public Restamp restamp() {
                long now = TimestampOrderingTransaction.timestamp(node.faa(counter, 0), TimestampOrderingTransaction.NODE_MASK);
                return new Restamp() {
                    @Override
                    public long version(long memoryVersion) {
                        return Math.max(memoryVersion, now);
                    }

                    @Override
                    public long timestamp(long memoryTimestamp) {
                        return Math.max(memoryTimestamp, now);
                    }

                    @Override
                    public boolean keepsIntents() {
                        return false;
                    }
                };
            }
        };
    }

    /**
     * Yes: a write intent of a crashed node's transaction is ignored (its node is in the timestamp);
     * one of a live transaction that a crashed cache took with it makes that transaction abort at
     * commit; an insert slot lost the same way too ({@code WriteSet.insertsIntact}); restored stamps
     * are timestamps ({@link ConcurrencyControl#restamp}).
     */
    @Override
    public boolean survivesCrashedNodes() {
        return true;
    }
}
