package io.selcc.cc.to;

import io.selcc.engine.ConcurrencyControlContractTest;

/**
 * The contract suite for TO with every retry ahead ({@link AheadOnEveryRetryProvider}): an ahead attempt
 * is a TO transaction with an unusual timestamp, and it waits for intents and latches leaves in X where a
 * normal one does not, so the suite's histories, bank totals and phantom checks must hold for it as they
 * do for {@link TimestampOrderingContractTest}.
 */
class TimestampOrderingAheadContractTest extends ConcurrencyControlContractTest {
    @Override
    protected String cc() {
        return AheadOnEveryRetryProvider.NAME;
    }

    @Override
    protected long roundTripsAtBegin() {
        return 1; // a first attempt: one FAA on the global timestamp counter
    }
}
