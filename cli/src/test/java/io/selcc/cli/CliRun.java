package io.selcc.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One in-process execution of the command line with captured output. */
public record CliRun(int exitCode, String out, String err) {
    public static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = SelccCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    @Override
    public String toString() {
        return "exit=" + exitCode + "\n--- out:\n" + out + "--- err:\n" + err;
    }
}
