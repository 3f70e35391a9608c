package io.selcc.cli.tpcc;

import io.selcc.cli.SelccCli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code selcc tpcc}: groups load, run and check. */
@Command(name = "tpcc", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class,
    subcommands = {TpccLoadCommand.class, TpccRunCommand.class, TpccCheckCommand.class, TpccCompareCommand.class},
    description = "TPC-C (spec v5.11). By default every compute and memory node runs in this process (--fabric tcp"
        + " and --cluster make processes of them), and the database lives as long as the command (--data-dir"
        + " keeps it in a directory).")
public final class TpccCommand implements Runnable {
    @Spec
    private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "missing subcommand: use one of " + spec.subcommands().keySet() + " (see selcc tpcc --help)");
    }
}
