package io.selcc.tpcc.check;

import java.util.List;

/** The twelve conditions in order, then the index check ({@link Condition#INDEXES}). */
public record CheckReport(List<ConditionResult> conditions) {
    public CheckReport {
        conditions = List.copyOf(conditions);
    }

    /** True if every condition and the index check hold. */
    public boolean passed() {
        return conditions.stream().allMatch(ConditionResult::passed);
    }

    /** The result of condition {@code number} (1..12) of [SPEC] 3.3.2. */
    public ConditionResult condition(int number) {
        return result(Condition.spec(number));
    }

    /** The result of {@code condition}. */
    public ConditionResult result(Condition condition) {
        return conditions.stream().filter(c -> c.condition() == condition).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("not in this report: condition=" + condition));
    }

    /** The conditions that failed. */
    public List<ConditionResult> failures() {
        return conditions.stream().filter(c -> !c.passed()).toList();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(passed() ? "consistency: all 12 conditions and the index check hold"
            : "consistency: FAILED");
        for (ConditionResult c : conditions) {
            s.append(System.lineSeparator()).append("  ").append(c);
        }
        return s.toString();
    }
}
