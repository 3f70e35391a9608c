package io.selcc.cli;

import io.selcc.cli.micro.MicroCommand;
import io.selcc.cli.tpcc.TpccCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;

/**
 * Entry point of {@code bin/selcc}. Exit codes: {@value ExitCode#OK} success, {@value ExitCode#USAGE}
 * bad input (one line on stderr naming the flag and the value), {@value ExitCode#SOFTWARE} runtime
 * failure.
 *
 * <p>A new benchmark is one more class in {@code subcommands}; it reuses {@link ClusterOptions} and
 * {@link RunOptions} as mixins and throws {@link ParameterException} (see {@link Flags}) for bad values.
 */
@Command(name = "selcc", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class,
    subcommands = {TpccCommand.class, MicroCommand.class, MemoryNodeCommand.class},
    description = "An OLTP engine over SELCC (cache coherence for disaggregated memory): TPC-C and the"
        + " protocol's micro-benchmark, with every node in this process (--fabric local), memory and compute nodes"
        + " as processes on this machine over TCP (--fabric tcp), or as processes on several machines (--cluster,"
        + " memory-node).")
public final class SelccCli implements Runnable {
    @Spec
    private CommandSpec spec;

    /** Called only when no subcommand was given. */
    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
            "missing subcommand: use one of " + spec.subcommands().keySet() + " (see selcc --help)");
    }

    /** Held so the level set in {@link #main} stays (java.util.logging keeps loggers weakly). */
    private static final java.util.logging.Logger CHRONICLE_LOG = java.util.logging.Logger.getLogger("net.openhft");

    public static void main(String[] args) {
        CHRONICLE_LOG.setLevel(java.util.logging.Level.WARNING); // Chronicle Queue's warnings, not its chatter
        System.exit(commandLine().execute(args));
    }

    /** The configured command line; tests call {@code execute} on it with their own out/err writers. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new SelccCli());
        cl.setParameterExceptionHandler(SelccCli::badInput);
        cl.setExecutionExceptionHandler((ex, failed, parseResult) -> reportFailure(ex, failed));
        return cl;
    }

    private static int badInput(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        // One line, no usage dump: scripts grep for it and people see the problem at once.
        cl.getErr().println(cl.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
        cl.getErr().flush();
        return ExitCode.USAGE;
    }

    /**
     * Reports {@code ex}, which ended the command {@code failed}: one line for an expected failure, with
     * the trace for anything else (a bug); the exit code (1).
     */
    public static int reportFailure(Exception ex, CommandLine failed) {
        PrintWriter err = failed.getErr();
        Throwable lostMemory = ex;
        while (lostMemory != null && !(lostMemory instanceof io.selcc.fabric.tcp.MemoryNodeFailedException)) {
            lostMemory = lostMemory.getCause();
        }
        if (lostMemory != null) {
            // A memory node's process died or went silent: expected in a distributed run, not a bug.
            err.println(failed.getCommandSpec().qualifiedName() + ": failed: " + lostMemory.getMessage());
            err.flush();
            return ExitCode.SOFTWARE;
        }
        err.println(failed.getCommandSpec().qualifiedName() + ": failed: " + ex.getMessage());
        if (!expected(ex)) {
            // Anything else is a bug in the benchmark or the protocol: keep the trace for the report.
            ex.printStackTrace(err);
        }
        err.flush();
        return ExitCode.SOFTWARE;
    }

    /**
     * Whether {@code ex} is an expected failure, reported in one line without a trace: the command line's
     * own, a TPC-C run's, or a run of compute-node processes that could not go on together.
     */
    private static boolean expected(Exception ex) {
        return ex instanceof CliFailure || ex instanceof io.selcc.tpcc.run.RunFailedException
            || ex instanceof io.selcc.fabric.tcp.ClusterRunException;
    }

    /** The version from the jar manifest (set by the shade plugin); "dev" when run from classes. */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = SelccCli.class.getPackage().getImplementationVersion();
            return new String[] {"selcc " + (version != null ? version : "dev")};
        }
    }
}
