package io.selcc.tpcc.check;

/**
 * The outcome of one check of a {@link CheckReport}.
 *
 * @param condition which check: a consistency condition of [SPEC] 3.3.2, or {@link Condition#INDEXES}
 * @param passed    whether it holds everywhere
 * @param detail    what was checked, or the number of violations and the first one (warehouse, district, values)
 */
public record ConditionResult(Condition condition, boolean passed, String detail) {
    /** The condition's number in [SPEC] 3.3.2, 1..12; 0 for {@link Condition#INDEXES}. */
    public int number() {
        return condition.number();
    }

    @Override
    public String toString() {
        return condition.label() + (passed ? " ok: " : " FAILED: ") + detail;
    }
}
