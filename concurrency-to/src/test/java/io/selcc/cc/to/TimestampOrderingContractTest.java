package io.selcc.cc.to;

import io.selcc.engine.ConcurrencyControlContractTest;

class TimestampOrderingContractTest extends ConcurrencyControlContractTest {
    @Override
    protected String cc() {
        return "to";
    }

    @Override
    protected long roundTripsAtBegin() {
        return 1; // one FAA on the global timestamp counter
    }
}
