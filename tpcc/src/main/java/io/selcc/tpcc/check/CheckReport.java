package io.selcc.tpcc.check;

import java.util.List;

/** The twelve conditions, in order. */
public record CheckReport(List<ConditionResult> conditions) {
    public CheckReport {
        conditions = List.copyOf(conditions);
    }

    /** True if every condition holds. */
    public boolean passed() {
        return conditions.stream().allMatch(ConditionResult::passed);
    }

    /** The result of condition {@code number} (1..12). */
    public ConditionResult condition(int number) {
        return conditions.stream().filter(c -> c.number() == number).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no such condition: number=" + number));
    }

    /** The conditions that failed. */
    public List<ConditionResult> failures() {
        return conditions.stream().filter(c -> !c.passed()).toList();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(passed() ? "consistency: all 12 conditions hold" : "consistency: FAILED");
        for (ConditionResult c : conditions) {
            s.append(System.lineSeparator()).append("  ").append(c);
        }
        return s.toString();
    }
}
