package io.selcc.cli.tpcc;

import io.selcc.cli.ClusterOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * What {@code tpcc load} and {@code tpcc check} share: the cluster and TPC-C flags and the seed.
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
}
