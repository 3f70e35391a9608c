package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * What {@code tpcc load} and {@code tpcc check} share: the cluster and TPC-C flags, the seed, and a data
 * directory's lock released when the command ends.
 */
abstract class TpccDatabaseCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ClusterOptions clusterOptions;

    @Mixin
    TpccOptions tpcc;

    @Option(names = "--seed", paramLabel = "LONG", defaultValue = "42",
        description = "Seed of the population and of the NURand constants. Default: ${DEFAULT-VALUE}.")
    long seed;

    /** The data directory this command holds, released when it ends (a test runs commands in one process). */
    private io.selcc.tpcc.run.DataDir.Held held;

    @Override
    public final Integer call() {
        try {
            return runLocked();
        } finally {
            if (held != null) {
                held.close();
            }
        }
    }

    /** Takes the data directory for this command: {@code take} opens it; what it refuses is bad input. */
    final <T extends io.selcc.tpcc.run.DataDir.Held> T hold(java.util.function.Supplier<T> take) {
        try {
            T taken = take.get();
            held = taken;
            return taken;
        } catch (io.selcc.tpcc.run.InvalidRunException e) {
            TpccRunCommand.refuse(spec.commandLine(), e.violations());
            throw e;
        }
    }

    /** The command, with any data directory it takes locked until it returns. */
    abstract Integer runLocked();
}
