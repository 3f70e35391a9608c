package io.selcc.tpcc.check;

/**
 * What a {@link CheckReport} holds a result for: the twelve consistency conditions of [SPEC] 3.3.2
 * ({@code C1}..{@code C12}, numbered as there), then {@link #INDEXES}, a check of this project's own.
 */
public enum Condition {
    C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12,
    /**
     * Every index agrees with its table's heap: each entry points at a live row that has the entry's
     * key, and each live row is in each of its table's indexes under its key. Not a TPC-C condition.
     */
    INDEXES;

    /** The condition's number in [SPEC] 3.3.2 (1..12); 0 for {@link #INDEXES}. */
    public int number() {
        return this == INDEXES ? 0 : ordinal() + 1;
    }

    /** True for the twelve conditions of [SPEC] 3.3.2. */
    public boolean isSpecCondition() {
        return this != INDEXES;
    }

    /** Condition {@code number} (1..12) of [SPEC] 3.3.2. */
    public static Condition spec(int number) {
        if (number < 1 || number > 12) {
            throw new IllegalArgumentException("no such condition: number=" + number);
        }
        return values()[number - 1];
    }

    /** How reports name it: "C8", or "indexes". */
    public String label() {
        return this == INDEXES ? "indexes" : name();
    }
}
