package io.selcc.cc.twopl;

import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.threads.PerThread;

/** Provides "2pl". */
public final class TwoPhaseLockingProvider implements ConcurrencyControlProvider {
    public static final String NAME = "2pl";

    @Override
    public String name() {
        return NAME;
    }

    /** Inserts and writes happen on pages held in X to the end of the transaction (no-wait 2PL). */
    @Override
    public boolean survivesCrashedNodes() {
        return true;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        PerThread<TwoPhaseLockingTransaction.Workspace> workspaces =
            PerThread.withInitial(TwoPhaseLockingTransaction.Workspace::new);
        return ConcurrencyControl.named(NAME, () -> new TwoPhaseLockingTransaction(environment.node(), workspaces));
    }
}
