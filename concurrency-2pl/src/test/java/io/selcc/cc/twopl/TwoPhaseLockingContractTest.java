package io.selcc.cc.twopl;

import io.selcc.engine.ConcurrencyControlContractTest;

class TwoPhaseLockingContractTest extends ConcurrencyControlContractTest {
    @Override
    protected String cc() {
        return "2pl";
    }
}
