package io.selcc.cli.tpcc;

import io.selcc.cli.Flags;
import io.selcc.engine.ConcurrencyControls;
import io.selcc.tpcc.TpccSchema;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Flags every tpcc subcommand shares. */
public final class TpccOptions {
    @Option(names = "--cc", paramLabel = "2pl|to|occ", defaultValue = "2pl",
        description = "Concurrency control. Default: ${DEFAULT-VALUE}.")
    String cc;

    @Option(names = "--warehouses", paramLabel = "W", defaultValue = "1",
        description = "Warehouses to load (each about 100 MB of tuples). Default: ${DEFAULT-VALUE}.")
    int warehouses;

    @Option(names = "--check", description = "Run the twelve consistency conditions of clause 3.3.2 and the"
        + " index/heap check at the end; exit code 1 if any fails.")
    boolean check;

    void validate(CommandLine cl) {
        Flags.require(ConcurrencyControls.available().contains(cc), cl, "--cc", cc,
            "unknown concurrency control; available: " + ConcurrencyControls.available());
        Flags.require(warehouses >= 1 && warehouses <= TpccSchema.MAX_WAREHOUSES, cl, "--warehouses", warehouses,
            "must be in [1, " + TpccSchema.MAX_WAREHOUSES + "]");
    }
}
