package io.selcc.tpcc.check;

/** Counts the violations of one condition and keeps the first, for the result's detail. */
final class Violations {
    private final Condition condition;
    private long count;
    private String first;

    Violations(Condition condition) {
        this.condition = condition;
    }

    void add(String violation) {
        if (count++ == 0) {
            first = violation;
        }
    }

    long count() {
        return count;
    }

    ConditionResult result(String whatHeld) {
        return count == 0
            ? new ConditionResult(condition, true, whatHeld)
            : new ConditionResult(condition, false, "violations=" + count + " first: " + first);
    }
}
