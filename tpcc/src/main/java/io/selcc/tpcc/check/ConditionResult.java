package io.selcc.tpcc.check;

/**
 * The outcome of one consistency condition.
 *
 * @param number the condition's number in [SPEC] 3.3.2, 1..12
 * @param passed whether it holds everywhere
 * @param detail what was checked, or the number of violations and the first one (warehouse, district, values)
 */
public record ConditionResult(int number, boolean passed, String detail) {
    @Override
    public String toString() {
        return "C" + number + (passed ? " ok: " : " FAILED: ") + detail;
    }
}
