package io.selcc.tpcc.run;

import java.util.List;

/**
 * A run refused before it started: the spec's violations ({@link RunSpec#validate}), or what its data
 * directory says against it. The command line reports the first as bad input (exit 2).
 */
public final class InvalidRunException extends RuntimeException {
    private final transient List<RunSpec.Violation> violations;

    public InvalidRunException(List<RunSpec.Violation> violations) {
        super(violations.toString());
        this.violations = List.copyOf(violations);
    }

    public InvalidRunException(RunSpec.Violation violation) {
        this(List.of(violation));
    }

    public List<RunSpec.Violation> violations() {
        return violations;
    }
}
