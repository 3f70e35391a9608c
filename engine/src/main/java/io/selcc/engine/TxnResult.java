package io.selcc.engine;

import io.selcc.engine.cc.AbortReason;
import io.selcc.engine.cc.CommitOutcome;
import java.util.Map;

/**
 * What {@link DatabaseNode#run} did: the body's value (when committed), the final outcome, how many
 * attempts it took, and the reasons of the aborted attempts.
 */
public record TxnResult<T>(T value, CommitOutcome outcome, int attempts, Map<AbortReason, Integer> aborts) {
    public boolean committed() {
        return outcome.committed();
    }
}
