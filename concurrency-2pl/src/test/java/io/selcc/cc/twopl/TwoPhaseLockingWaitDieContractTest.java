package io.selcc.cc.twopl;

import io.selcc.engine.ConcurrencyControlContractTest;
import io.selcc.engine.cc.LockWaitPolicy;

/** The whole contract (serializability, no lost update, bank audits, phantoms...) under wait-die. */
class TwoPhaseLockingWaitDieContractTest extends ConcurrencyControlContractTest {
    @Override
    protected String cc() {
        return "2pl";
    }

    @Override
    protected LockWaitPolicy lockWait() {
        return LockWaitPolicy.WAIT_DIE;
    }
}
