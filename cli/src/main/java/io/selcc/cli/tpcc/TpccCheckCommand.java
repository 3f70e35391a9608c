package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.SelccCli;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code selcc tpcc check}: loads a database and runs the twelve consistency conditions and the index check on it. */
@Command(name = "check", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Load a fresh database and run the twelve consistency conditions of clause 3.3.2 on it, and"
        + " check that every index agrees with its table (exit code 1 if any fails). To check after a workload,"
        + " use 'tpcc run --check'.")
public final class TpccCheckCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions clusterOptions;

    @Mixin
    private TpccOptions tpcc;

    @Option(names = "--seed", paramLabel = "LONG", defaultValue = "42",
        description = "Seed of the population. Default: ${DEFAULT-VALUE}.")
    private long seed;

    @Override
    public Integer call() {
        ClusterSettings cluster = TpccSetup.settings(clusterOptions, tpcc, spec.commandLine());
        return TpccSetup.loadAndMaybeCheck(cluster, tpcc, seed, true, spec.commandLine().getOut());
    }
}
