package io.selcc.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/** Bad-value errors in the same form as picocli's own conversion errors, so every message names the flag. */
public final class Flags {
    private Flags() {
    }

    /** {@code Invalid value for option '--flag': 'value' (reason)}; exit code 2 via {@link SelccCli}. */
    public static ParameterException invalid(CommandLine cl, String flag, Object value, String reason) {
        return new ParameterException(cl, "Invalid value for option '" + flag + "': '" + value + "' (" + reason + ")");
    }

    /** Throws {@link #invalid} unless {@code condition} holds. */
    public static void require(boolean condition, CommandLine cl, String flag, Object value, String reason) {
        if (!condition) {
            throw invalid(cl, flag, value, reason);
        }
    }
}
