package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.SelccCli;
import io.selcc.tpcc.run.DataDir;
import io.selcc.tpcc.run.RunSpec;
import io.selcc.tpcc.run.TpccRun;
import picocli.CommandLine;
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
    public Integer call() {
        CommandLine cl = spec.commandLine();
        java.util.Map<String, String> kept = tpcc.dataDir == null ? null : DataDir.peek(tpcc.dataDir);
        RunSpec.Mode mode = RunSpec.Mode.SHARED;
        if (kept != null) {
            // The kept database's warehouses and mode; a --warehouses given that differs is refused.
            if (cl.getParseResult().hasMatchedOption("--warehouses")) {
                RunSpec.Violation differing = DataDir.differingWarehouses(tpcc.dataDir, kept, tpcc.warehouses);
                TpccRunCommand.refuse(cl, differing == null ? java.util.List.of() : java.util.List.of(differing));
            }
            tpcc.warehouses = Integer.parseInt(kept.get(DataDir.WAREHOUSES));
            mode = DataDir.mode(kept);
        }
        if (json != null) {
            String problem = io.selcc.cli.JsonFile.whyNotWritable(json);
            io.selcc.cli.Flags.require(problem == null, cl, "--json", json, problem);
        }
        ClusterSettings cluster = TpccSetup.settings(clusterOptions, tpcc, cl);
        io.selcc.cli.Flags.require(json == null || tpcc.dataDir != null, cl, "--json", json, "needs --data-dir");
        RunSpec check = TpccSetup.spec(cluster, tpcc, cl, seed, true, mode);
        TpccRunCommand.refuse(cl, check.validateLoad());
        if (tpcc.dataDir != null) {
            return TpccSetup.recoverAndCheck(check, cl, json);
        }
        return TpccSetup.refusingBadInput(cl, () -> TpccRun.load(check, cl.getOut())) ? 0 : 1;
    }
}
