package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.SelccCli;
import io.selcc.tpcc.run.RunSpec;
import io.selcc.tpcc.run.TpccRun;
import picocli.CommandLine.Command;

/** {@code selcc tpcc load}: loads the initial population and reports rows, time and memory. */
@Command(name = "load", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Load the initial population (clause 4.3.3.1) in parallel over compute nodes and threads (with"
        + " --cluster, compute node 0's); report rows per table, time and memory. With --check, run the consistency checks after it. With"
        + " --data-dir, keep the database in a directory (a checkpoint) for run and check.")
public final class TpccLoadCommand extends TpccDatabaseCommand {
    @picocli.CommandLine.Option(names = "--mode", paramLabel = "shared|partitioned", defaultValue = "shared",
        description = "shared: one set of tables every compute node reads and writes. partitioned: a set of tables per"
            + " compute node, warehouse w in node (w-1) mod N's (what tpcc run --mode partitioned runs on; with"
            + " --data-dir, run and check take the mode from the directory). Default: ${DEFAULT-VALUE}.")
    private String mode;

    @Override
    public Integer call() {
        ClusterSettings cluster = TpccSetup.settings(clusterOptions, tpcc, spec.commandLine());
        RunSpec.Mode loaded = switch (mode) {
            case "shared" -> RunSpec.Mode.SHARED;
            case "partitioned" -> {
                io.selcc.cli.Flags.require(!cluster.separateProcesses(), spec.commandLine(), "--mode", mode,
                    "is not loaded by compute nodes as processes (--cluster)");
                yield RunSpec.Mode.PARTITIONED;
            }
            default -> throw io.selcc.cli.Flags.invalid(spec.commandLine(), "--mode", mode, "must be shared or partitioned");
        };
        RunSpec load = TpccSetup.spec(cluster, tpcc, spec.commandLine(), seed, tpcc.check, loaded);
        TpccRunCommand.refuse(spec.commandLine(), load.validateLoad());
        return TpccSetup.refusingBadInput(spec.commandLine(), () -> TpccRun.load(load, spec.commandLine().getOut())) ? 0 : 1;
    }
}
