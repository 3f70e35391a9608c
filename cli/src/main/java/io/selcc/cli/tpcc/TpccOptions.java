package io.selcc.cli.tpcc;

import io.selcc.cli.CacheSize;
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

    @Option(names = "--memory", paramLabel = "SIZE",
        description = "Shared memory per memory node, bytes with a unit (4GiB, 1500MB). Default: twice the"
            + " initial population (with --data-dir: twice the checkpoint and logs there, if more) plus 512 MiB,"
            + " spread over the memory nodes; for run, plus 64 MiB per compute node"
            + " and second of warm-up and run (Linux, where it is mapped lazily). A run that fills it stops early"
            + " with its results so far (exit code 1). With --cluster the memory nodes hold what their --size"
            + " gave them, and this flag is not used.")
    String memory;
    /** Parsed --memory after {@link #validate}: bytes per memory node, 0 for the default. */
    long memoryPerNode;

    @Option(names = "--data-dir", paramLabel = "DIR",
        description = "Keep the database in DIR: load writes a checkpoint there; run and check recover from it"
            + " (run logs its commits there, --wal sync by default, and checkpoints at the end). The warehouses"
            + " come from DIR; --warehouses, if given, must match, and so does the mode (load --mode partitioned"
            + " keeps a table set per compute node; run then needs as many --compute-nodes). Not with"
            + " --cluster.")
    java.nio.file.Path dataDir;

    @Option(names = "--check", description = "Run the twelve consistency conditions of clause 3.3.2 and the"
        + " index/heap check at the end; exit code 1 if any fails.")
    boolean check;


    /** Bytes per memory node given with --memory, or 0 when absent. */
    long memoryBytes(CommandLine cl) {
        if (memory == null) {
            return 0;
        }
        CacheSize size;
        try {
            size = CacheSize.parse(memory);
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--memory", memory, e.getMessage().replace("cache size", "memory size"));
        }
        Flags.require(size.inBytes(), cl, "--memory", memory, "needs a unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. 4GiB");
        Flags.require(size.amount() >= MIN_MEMORY_BYTES, cl, "--memory", memory, "must be at least 64MiB");
        return size.amount();
    }

    static final long MIN_MEMORY_BYTES = 64L << 20;

    void validate(CommandLine cl) {
        Flags.require(ConcurrencyControls.available().contains(cc), cl, "--cc", cc,
            "unknown concurrency control; available: " + ConcurrencyControls.available());
        Flags.require(warehouses >= 1 && warehouses <= TpccSchema.MAX_WAREHOUSES, cl, "--warehouses", warehouses,
            "must be in [1, " + TpccSchema.MAX_WAREHOUSES + "]");
        memoryPerNode = memoryBytes(cl);
    }
}
