package io.selcc.cc.to;

import io.selcc.cache.ComputeNode;
import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.storage.Restamp;

/**
 * Provides "to": each transaction takes its timestamp with one FAA on the global counter; the compute
 * node's id goes into the timestamp's low bits ({@link TimestampCounter}), so a write intent names its
 * owner's node. From its {@value #AHEAD_FROM_ATTEMPT}th attempt on, a transaction runs with the ahead
 * token: a timestamp younger than every transaction that begins while it runs.
 */
public final class TimestampOrderingProvider implements ConcurrencyControlProvider {
    public static final String NAME = "to";
    /**
     * The attempt of a transaction from which it runs with the ahead token (after three restarts; see
     * {@link TimestampCounter} and docs/decisions.md, "TO: a transaction that keeps failing").
     */
    static final int AHEAD_FROM_ATTEMPT = 4;

    private final String name;
    private final int aheadFromAttempt;

    public TimestampOrderingProvider() {
        this(NAME, AHEAD_FROM_ATTEMPT);
    }

    /** TO under another name, going ahead from attempt {@code aheadFromAttempt} on (for tests). */
    TimestampOrderingProvider(String name, int aheadFromAttempt) {
        if (aheadFromAttempt < 1) {
            throw new IllegalArgumentException("aheadFromAttempt must be >= 1: aheadFromAttempt=" + aheadFromAttempt);
        }
        this.name = name;
        this.aheadFromAttempt = aheadFromAttempt;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        ComputeNode node = environment.node();
        TimestampCounter timestamps = new TimestampCounter(node, environment.timestampCounter());
        return new ConcurrencyControl() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public CcTransaction begin() {
                return begin(ComputeNode.NO_AGE, 1);
            }

            @Override
            public CcTransaction begin(long age, int attempt) {
                long ts = attempt >= aheadFromAttempt ? timestamps.drawAhead() : timestamps.draw();
                return new TimestampOrderingTransaction(node, ts, timestamps);
            }

            /**
             * Restored tuples and leaves get timestamps no transaction has yet: the counter moves past every
             * timestamp drawn so far, ahead ones included ({@link TimestampCounter#passEveryTimestamp}),
             * and restored stamps take one above all of them, so a restored write timestamp
             * makes every older transaction abort on the row (never read it as older than it is), and a
             * restored read timestamp makes every older writer abort (a committed reader on the crashed
             * node may have read it). Intents on lost lines go: their owners abort at commit.
             */
            @Override
            public Restamp restamp() {
                long now = timestamps.passEveryTimestamp();
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
