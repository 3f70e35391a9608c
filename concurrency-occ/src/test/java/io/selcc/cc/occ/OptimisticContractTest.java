package io.selcc.cc.occ;

import io.selcc.engine.ConcurrencyControlContractTest;

class OptimisticContractTest extends ConcurrencyControlContractTest {
    @Override
    protected String cc() {
        return "occ";
    }
}
