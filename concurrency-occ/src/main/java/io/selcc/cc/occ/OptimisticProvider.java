package io.selcc.cc.occ;

import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;

/** Provides "occ". */
public final class OptimisticProvider implements ConcurrencyControlProvider {
    public static final String NAME = "occ";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        return ConcurrencyControl.named(NAME, () -> new OptimisticTransaction(environment.node()));
    }
}
