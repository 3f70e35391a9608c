package io.selcc.cc.to;

import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;

/** Provides "to". */
public final class TimestampOrderingProvider implements ConcurrencyControlProvider {
    public static final String NAME = "to";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        return new ConcurrencyControl() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public CcTransaction begin() {
                long timestamp = environment.node().faa(environment.timestampCounter(), 1) + 1;
                return new TimestampOrderingTransaction(environment.node(), timestamp, environment.thomasWriteRule());
            }
        };
    }
}
