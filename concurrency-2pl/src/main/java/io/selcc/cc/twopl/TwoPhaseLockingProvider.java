package io.selcc.cc.twopl;

import io.selcc.engine.cc.CcEnvironment;
import io.selcc.engine.cc.ConcurrencyControl;
import io.selcc.engine.cc.ConcurrencyControlProvider;
import io.selcc.engine.cc.CcTransaction;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.cache.ComputeNode;
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

    /** No-wait and wait-die (see {@link LockWaitPolicy}). */
    @Override
    public boolean supports(LockWaitPolicy policy) {
        return true;
    }

    @Override
    public ConcurrencyControl create(CcEnvironment environment) {
        PerThread<TwoPhaseLockingTransaction.Workspace> workspaces =
            PerThread.withInitial(TwoPhaseLockingTransaction.Workspace::new);
        if (environment.lockWait() == LockWaitPolicy.NO_WAIT) {
            return ConcurrencyControl.named(NAME, () -> new TwoPhaseLockingTransaction(environment.node(), workspaces,
                ComputeNode.NO_AGE));
        }
        WaitDieAges ages = new WaitDieAges(environment.node().nodeId(), WaitDieAges.systemMicros());
        return new ConcurrencyControl() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public CcTransaction begin() {
                return begin(newAge());
            }

            @Override
            public long newAge() {
                return ages.next();
            }

            @Override
            public CcTransaction begin(long age) {
                return new TwoPhaseLockingTransaction(environment.node(), workspaces, age);
            }
        };
    }
}
