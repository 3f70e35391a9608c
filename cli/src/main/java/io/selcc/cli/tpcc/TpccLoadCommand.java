package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterSettings;
import io.selcc.cli.SelccCli;
import picocli.CommandLine.Command;

/** {@code selcc tpcc load}: loads the initial population and reports rows, time and memory. */
@Command(name = "load", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Load the initial population (clause 4.3.3.1) in parallel over compute nodes and threads (with"
        + " --cluster, compute node 0's); report rows per table, time and memory. With --check, run the consistency checks after it. With"
        + " --data-dir, keep the database in a directory (a checkpoint) for run and check.")
public final class TpccLoadCommand extends TpccDatabaseCommand {
    @Override
    Integer runLocked() {
        ClusterSettings cluster = TpccSetup.settings(clusterOptions, tpcc, spec.commandLine());
        if (tpcc.dataDir != null) {
            DataDir.forLoad(tpcc.dataDir, spec.commandLine());
        }
        return TpccSetup.loadAndMaybeCheck(cluster, tpcc, seed, tpcc.check, spec.commandLine().getOut());
    }
}
