package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.SelccCli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code selcc tpcc check}: loads a database and runs the twelve consistency conditions and the index check on it. */
@Command(name = "check", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Load a fresh database (or, with --data-dir, recover the one kept there) and run the twelve"
        + " consistency conditions of clause 3.3.2 on it, and check that every index agrees with its table (exit"
        + " code 1 if any fails). With --data-dir it also reports ordersSinceLoad: count(ORDER) minus the load's.")
public final class TpccCheckCommand extends TpccDatabaseCommand {
    @Option(names = "--json", paramLabel = "FILE",
        description = "With --data-dir: also write the result (ordersSinceLoad, conditions failed, recovery) as JSON.")
    private java.nio.file.Path json;

    @Override
    Integer runLocked() {
        if (tpcc.dataDir != null) {
            io.selcc.tpcc.run.DataDir.Kept kept = hold(() -> io.selcc.tpcc.run.DataDir.open(tpcc.dataDir));
            if (spec.commandLine().getParseResult().hasMatchedOption("--warehouses")) {
                io.selcc.tpcc.run.RunSpec.Violation differing = io.selcc.tpcc.run.DataDir.differingWarehouses(
                    tpcc.dataDir, kept.properties(), tpcc.warehouses);
                TpccRunCommand.refuse(spec.commandLine(), differing == null ? java.util.List.of() : java.util.List.of(differing));
            }
            tpcc.warehouses = kept.warehouses();
            tpcc.partitions = kept.partitions();
            tpcc.recoveredBytes = kept.recoveredBytes();
        }
        if (json != null) {
            String problem = io.selcc.cli.JsonFile.whyNotWritable(json);
            io.selcc.cli.Flags.require(problem == null, spec.commandLine(), "--json", json, problem);
        }
        ClusterSettings cluster = TpccSetup.settings(clusterOptions, tpcc, spec.commandLine());
        if (tpcc.dataDir != null) {
            return TpccSetup.recoverAndCheck(cluster, tpcc, json, spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        io.selcc.cli.Flags.require(json == null, spec.commandLine(), "--json", json, "needs --data-dir");
        return TpccSetup.loadAndMaybeCheck(cluster, tpcc, seed, true, spec.commandLine().getOut());
    }
}
