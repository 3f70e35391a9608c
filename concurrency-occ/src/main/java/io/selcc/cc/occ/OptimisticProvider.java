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

    /**
     * Its only uncommitted in-place change is an inserted slot (on a page it does not hold): the commit
     * checks each is still its own ({@code WriteSet.insertsIntact}) and aborts if a crash took it.
     */
    @Override
    public boolean survivesCrashedNodes() {
        return true;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        return ConcurrencyControl.named(NAME, () -> new OptimisticTransaction(environment.node()));
    }
}
