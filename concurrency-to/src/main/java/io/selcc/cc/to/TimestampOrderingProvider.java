package io.selcc.cc.to;

import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;

/** Provides "to": each transaction takes its timestamp with one FAA on the global counter. */
public final class TimestampOrderingProvider implements ConcurrencyControlProvider {
    public static final String NAME = "to";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        return ConcurrencyControl.named(NAME, () -> new TimestampOrderingTransaction(environment.node(),
            environment.node().faa(environment.timestampCounter(), 1) + 1, environment.thomasWriteRule()));
    }
}
