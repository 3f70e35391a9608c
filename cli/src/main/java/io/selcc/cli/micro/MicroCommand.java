package io.selcc.cli.micro;

import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.Converters;
import io.selcc.cli.Flags;
import io.selcc.cli.JsonFile;
import io.selcc.cli.RunOptions;
import io.selcc.cli.RunSettings;
import io.selcc.cli.SelccCli;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code selcc micro}: the micro-benchmark of paper section 7.1. Validates the flags into a
 * {@link MicroConfig}, runs {@link MicroRun}, prints the summary and writes the JSON report.
 */
@Command(name = "micro", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class,
    sortOptions = false,
    description = "Micro-benchmark of paper section 7.1: threads on each compute node lock single GCLs (the shared"
        + " set plus their node's private partition) and read or increment them, for a fixed time.",
    footer = "Without --cache, each compute node caches " + MicroConfig.DEFAULT_CACHE_PERCENT + "%% of --gcls.")
public final class MicroCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions clusterOptions;

    @Mixin
    private RunOptions runOptions;

    @Option(names = "--gcls", paramLabel = "N", defaultValue = "100000",
        description = "GCLs allocated in total before the run (with compute nodes as processes at most about two"
            + " million: node 0 sends every address in one message). Default: ${DEFAULT-VALUE}.")
    private int gcls;

    @Option(names = "--read-ratio", paramLabel = "PERCENT", defaultValue = "95",
        converter = Converters.PercentConverter.class,
        description = "Percent of operations that read (sLock); the rest increment (xLock). Default: ${DEFAULT-VALUE}.")
    private int readRatio;

    @Option(names = "--sharing", paramLabel = "PERCENT", defaultValue = "100",
        converter = Converters.PercentConverter.class,
        description = "Percent of GCLs shared by all nodes; the rest is split into one private partition per node."
            + " Default: ${DEFAULT-VALUE}.")
    private int sharing;

    @Option(names = "--theta", paramLabel = "THETA", defaultValue = "0", converter = ThetaConverter.class,
        description = "Zipf skew in [0, 1); 0 = uniform. Default: ${DEFAULT-VALUE}.")
    private double theta;

    @Option(names = "--locality", paramLabel = "PERCENT", defaultValue = "0",
        converter = Converters.PercentConverter.class,
        description = "Percent chance an operation accesses the thread's previous GCL again. Default: ${DEFAULT-VALUE}.")
    private int locality;

    @Option(names = "--writer-nodes", paramLabel = "K", defaultValue = "0",
        description = "When K > 0, the first K compute nodes only write and the others only read"
            + " (overrides --read-ratio; the fairness experiment). Default: ${DEFAULT-VALUE}.")
    private int writerNodes;

    /** Operations in flight per thread at most (each a virtual thread with its own per-thread state). */
    static final int MAX_IN_FLIGHT = 1024;

    @Option(names = "--in-flight", paramLabel = "K", defaultValue = "1",
        description = "Operations in flight per thread: with K > 1 each thread becomes K workers on virtual threads, so"
            + " one waiting on a round trip leaves the core to another. Default: ${DEFAULT-VALUE}.")
    private int inFlight;

    @Override
    public Integer call() throws InterruptedException {
        MicroConfig config = validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MicroReport.printParameters(out, config);
        if (config.inFlight() == 1 && config.cluster().latencyIsCpuBound()) {
            err.printf("warning: the latency model spins and %d threads exceed %d processors:"
                    + " figures are CPU-bound, not network-bound%n",
                config.cluster().totalThreads(), Runtime.getRuntime().availableProcessors());
            err.flush();
        }
        MicroResult result;
        if (config.cluster().fabric() == ClusterSettings.FabricChoice.TCP && !config.cluster().separateProcesses()) {
            // --fabric tcp: every node a process; this one is compute node 0.
            java.util.List<String> args = spec.commandLine().getParseResult().originalArgs();
            int at = args.indexOf("micro");
            try (var processes = io.selcc.cli.FabricLauncher.launchCluster(config.cluster(), config.memoryPerNode(),
                args.subList(at + 1, args.size()), java.util.List.of("micro"))) {
                config = config.withCluster(config.cluster().inCluster(processes.map(), 0));
                result = new MicroRun(config, out).execute();
            }
        } else {
            result = new MicroRun(config, out).execute();
        }
        if (config.cluster().separateProcesses() && config.cluster().node() != 0) {
            return ExitCode.OK; // compute node 0 prints and writes the run's report
        }
        MicroReport.printSummary(out, config, result);
        if (config.run().json() != null) {
            JsonFile.write(config.run().json(), MicroReport.json(config, result));
            out.println("wrote " + config.run().json());
            out.flush();
        }
        if (config.run().csv() != null) {
            io.selcc.cli.CsvFile.append(config.run().csv(), MicroReport.CSV_HEADER, MicroReport.csvRows(config, result));
            out.println("appended to " + config.run().csv());
            out.flush();
        }
        return ExitCode.OK;
    }

    /** Every check that needs no cluster, before anything is allocated or run. */
    private MicroConfig validate() {
        CommandLine cl = spec.commandLine();
        ClusterSettings cluster = clusterOptions.settings(cl, MicroConfig.defaultCacheFrames(gcls));
        // At least one GCL per node, so every node has something to access even with --sharing 0.
        Flags.require(gcls >= cluster.computeNodes(), cl, "--gcls", gcls,
            "must be >= --compute-nodes=" + cluster.computeNodes());
        Flags.require(writerNodes >= 0 && writerNodes <= cluster.computeNodes(), cl, "--writer-nodes", writerNodes,
            "must be in [0, --compute-nodes=" + cluster.computeNodes() + "]");
        if (cluster.fabric() == ClusterSettings.FabricChoice.TCP) {
            // Node 0 sends every GCL's address to the other processes in one message.
            long maxGcls = (io.selcc.fabric.tcp.TcpFabric.MAX_MESSAGE_BYTES - 4096) / Long.BYTES;
            Flags.require(gcls <= maxGcls, cl, "--gcls", gcls, "at most " + maxGcls + " with compute nodes as processes");
        }
        Flags.require(inFlight >= 1 && inFlight <= MAX_IN_FLIGHT, cl, "--in-flight", inFlight,
            "must be 1-" + MAX_IN_FLIGHT);
        // Every worker may hold frames while it waits: the cache's minimum counts workers, not threads.
        long needed = (long) io.selcc.cli.ClusterOptions.MIN_CACHE_FRAMES_PER_THREAD * cluster.threads() * inFlight;
        if (cluster.cacheFrames() < needed) {
            Flags.require(!cl.getParseResult().hasMatchedOption("--cache"), cl, "--cache", cluster.cacheFrames() + " frames",
                "needs at least " + io.selcc.cli.ClusterOptions.MIN_CACHE_FRAMES_PER_THREAD + " per worker (--threads x"
                    + " --in-flight = " + cluster.threads() * inFlight + ")");
            cluster = cluster.withThreads(cluster.threads(), (int) Math.min(Integer.MAX_VALUE, needed)); // the default grows to fit
        }
        RunSettings run = runOptions.settings(cl, MicroReport.CSV_HEADER);
        return new MicroConfig(cluster, run, gcls, readRatio, sharing, theta, locality, writerNodes, inFlight);
    }

    /** A Zipf skew in [0, 1): the generator's formula has a pole at 1. */
    static final class ThetaConverter implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            try {
                double theta = Double.parseDouble(value.strip());
                if (theta >= 0 && theta < 1) {
                    return theta;
                }
            } catch (NumberFormatException e) {
                // reported below, with the expected range
            }
            throw new TypeConversionException("'" + value + "' is not a Zipf skew in [0, 1) (0 = uniform)");
        }
    }
}
