package io.selcc.cc.to;

import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;

/**
 * "to-ahead-on-retry", for tests: TO whose every retry (attempt 2 on) runs with the ahead token, so the
 * contract suite's histories mix ahead attempts into everything they check
 * ({@link TimestampOrderingAheadContractTest}).
 */
public final class AheadOnEveryRetryProvider implements ConcurrencyControlProvider {
    public static final String NAME = "to-ahead-on-retry";
    private final TimestampOrderingProvider to = new TimestampOrderingProvider(NAME, 2);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        return to.create(environment);
    }

    @Override
    public boolean survivesCrashedNodes() {
        return to.survivesCrashedNodes();
    }
}
