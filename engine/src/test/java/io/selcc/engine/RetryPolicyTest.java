package io.selcc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A retry's pause: jittered below base x 2^attempt, capped; on a fabric with a round trip, the base is at
 * least that round trip. Planted bug caught: the round trip ignored (every pause then stayed below 2 us
 * after the first attempt, and the scaled-pause count was 0).
 */
class RetryPolicyTest {
    private static final long SEED = 31;

    private static RetryPolicy policy() {
        SplittableRandom random = new SplittableRandom(SEED);
        return new RetryPolicy(1000, 1_000, 1_000_000, random::nextLong);
    }

    @Test
    void withoutARoundTripThePauseIsTheConfiguredOne() {
        RetryPolicy a = policy();
        RetryPolicy b = policy();
        for (int attempt = 1; attempt < 30; attempt++) {
            assertEquals(a.backoffNanos(attempt), b.backoffNanos(attempt, 0), "attempt " + attempt + " (seed " + SEED + ")");
        }
    }

    @Test
    void aRoundTripRaisesTheBaseAndTheCapStillHolds() {
        System.out.println("RetryPolicyTest: seed=" + SEED);
        RetryPolicy p = policy();
        long roundTrip = 100_000;
        int scaled = 0;
        for (int i = 0; i < 1_000; i++) {
            long first = p.backoffNanos(1, roundTrip);
            assertTrue(first >= 0 && first < 2 * roundTrip, "after one attempt: below 2 round trips, was " + first);
            if (first >= 2_000) {
                scaled++; // beyond what the 1 us base alone allows after one attempt
            }
            long late = p.backoffNanos(25, roundTrip);
            assertTrue(late >= 0 && late < 1_000_000, "capped at the maximum, was " + late);
        }
        assertTrue(scaled > 900, "pauses scaled to the round trip: " + scaled + " of 1000 (seed " + SEED + ")");
        long huge = p.backoffNanos(1, 10_000_000_000L);
        assertTrue(huge < 1_000_000, "a round trip above the maximum is capped: " + huge);
    }
}
