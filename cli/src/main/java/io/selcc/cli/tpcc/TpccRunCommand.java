package io.selcc.cli.tpcc;

import io.selcc.cli.CliFailure;
import io.selcc.cli.ClusterOptions;
import io.selcc.cli.ClusterSettings;
import io.selcc.cli.Converters;
import io.selcc.cli.CsvFile;
import io.selcc.cli.FabricLauncher;
import io.selcc.cli.Flags;
import io.selcc.cli.JsonFile;
import io.selcc.cli.RunOptions;
import io.selcc.cli.RunSettings;
import io.selcc.cli.SelccCli;
import io.selcc.engine.cc.LockWaitPolicy;
import io.selcc.tpcc.driver.DriverConfig;
import io.selcc.tpcc.driver.Mix;
import io.selcc.tpcc.driver.TerminalPlacement;
import io.selcc.tpcc.run.ClusterSpec;
import io.selcc.tpcc.run.DataDir;
import io.selcc.tpcc.run.InvalidRunException;
import io.selcc.tpcc.run.RunOutcome;
import io.selcc.tpcc.run.RunSpec;
import io.selcc.tpcc.run.TpccDatabases;
import io.selcc.tpcc.run.TpccRun;
import io.selcc.wal.Recovery;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/** {@code selcc tpcc run}: load, drive terminals for a warm-up and a measured interval, report. */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Load (or, with --data-dir, recover), then run TPC-C terminals (--terminals per warehouse, each with a"
        + " fixed home warehouse and district) for --warmup and --duration; print a progress line each second and a"
        + " table per transaction type.",
    footer = {"", "Example: bin/selcc tpcc run --cc occ --warehouses 1 --compute-nodes 2 --terminals 10 --duration 30s"
        + " --warmup 5s --check --json result.json"})
public final class TpccRunCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions clusterOptions;

    @Mixin
    private TpccOptions tpcc;

    @Mixin
    private RunOptions runOptions;

    @Option(names = "--mix", paramLabel = "NO,P,OS,D,SL", defaultValue = "45,43,4,4,4",
        description = "Weights of New-Order, Payment, Order-Status, Delivery, Stock-Level (a shuffled card deck);"
            + " e.g. 0,0,100,0,0 runs Order-Status only. Default: ${DEFAULT-VALUE}.")
    private String mix;

    @Option(names = "--terminals", paramLabel = "N", defaultValue = "2",
        description = "Terminals per warehouse (at most 1000), each with its home warehouse and district, each a"
            + " virtual thread unless --terminal-threads platform (the spec has 10). Default: ${DEFAULT-VALUE}.")
    private int terminalsPerWarehouse;

    @Option(names = "--placement", paramLabel = "home|spread", defaultValue = "home",
        converter = Converters.PlacementConverter.class,
        description = "home: a warehouse's terminals run on its home compute node (node (w-1) mod N; with fewer"
            + " warehouses than nodes, the nodes sharing it); spread: every warehouse's terminals are dealt over all"
            + " compute nodes. Remote lines and payments cross nodes either way. Default: ${DEFAULT-VALUE}.")
    private TerminalPlacement.Placement placement;

    @Option(names = "--terminal-threads", paramLabel = "virtual|platform", defaultValue = "virtual",
        converter = Converters.TerminalThreadsConverter.class,
        description = "What runs a terminal: a virtual thread (its carrier runs other terminals while it waits) or a"
            + " platform thread of its own. Default: ${DEFAULT-VALUE}.")
    private DriverConfig.TerminalThreads terminalThreads;

    @Option(names = "--lock-wait", paramLabel = "no-wait|wait-die", defaultValue = "no-wait",
        description = "2PL on a held lock: no-wait aborts and retries, but waits a bounded while (at least 50 ms)"
            + " for a transaction's first heap-page latch, when it holds none; wait-die waits if older than every"
            + " holder and aborts if younger (a retry keeps its age, so it ends up oldest), --cc 2pl in shared mode"
            + " only. Default: ${DEFAULT-VALUE}.")
    private String lockWait;

    @Option(names = "--wait-times", description = "Wait the spec's keying and think times (clause 5.2.5.7);"
        + " off by default: terminals run back to back.")
    private boolean waitTimes;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "1000",
        description = "Attempts per transaction before it counts as failed (conflict aborts are retried with"
            + " jittered backoff). Default: ${DEFAULT-VALUE}.")
    private int maxAttempts;

    @Option(names = "--active-per-node", paramLabel = "auto|unlimited|N", defaultValue = "auto",
        converter = Converters.ActivePerNodeConverter.class,
        description = "At most N of a compute node's terminals run a transaction at once; the others queue for a"
            + " turn, and their response time includes the wait (a transaction monitor's server pool). auto: 1"
            + " where the compute nodes are at least as many as the cores, for a shared run with home placement and"
            + " every node in this JVM, with no --rtt, --gbps or --wal (there transactions beyond the cores add"
            + " conflicts, not work), else unlimited. Default: ${DEFAULT-VALUE}.")
    private int activePerNode;

    @Option(names = "--wal", paramLabel = "off|async|sync", defaultValue = "off",
        description = "Log every committed transaction: async acknowledges a commit once it and every earlier"
            + " commit are appended, without waiting for the disk (a killed process loses nothing acknowledged),"
            + " sync once its record is forced (one force covers every commit waiting then)."
            + " Without a data directory the log goes to a temporary directory removed at the end (with --cluster:"
            + " into --log-dir). Default: ${DEFAULT-VALUE}, sync with --data-dir.")
    private String wal;

    @Option(names = "--mode", paramLabel = "shared|partitioned", defaultValue = "shared",
        description = "shared: every compute node reads and writes all data through its SELCC cache (no 2PC)."
            + " partitioned: each compute node owns the warehouses w with (w-1) mod N = its id, in tables of its"
            + " own; work on another node's rows is shipped to it and commits by two-phase commit (--cc 2pl only,"
            + " a warehouse per compute node at least; not with --crash-node, --checkpoint-every, --cluster or"
            + " --lock-wait wait-die; with --fabric tcp its compute nodes stay in this process). With --data-dir the"
            + " directory's mode (tpcc load --mode). Default: ${DEFAULT-VALUE}.")
    private String mode;

    @Option(names = "--distribution", paramLabel = "P",
        description = "Percent (0-100) of New-Orders with one line supplied by a warehouse another compute node"
            + " owns (cross-partition), the others all local; replaces the spec's 1%% remote lines. Both --mode"
            + " values draw the same orders. Needs a warehouse per compute node and --placement home. Default: the"
            + " spec's remote lines.")
    private Integer distribution;

    @Option(names = "--checkpoint-every", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
        description = "With --data-dir and its log: also write a checkpoint every DURATION while the terminals run"
            + " (recovery then replays only the log after the newest); not in partitioned mode. Default: only at the end.")
    private Duration checkpointEvery;

    @Option(names = "--crash-node", paramLabel = "N",
        description = "Crash compute node N abruptly during the run (fault test; any --cc, --access selcc, a log"
            + " (--wal async or sync) and two or more compute nodes; not with --mode partitioned or --cluster, and"
            + " with --fabric tcp the compute nodes stay in this process): its cache is lost and its terminals stop;"
            + " the others repair its lines from the logs and go on. See --crash-after.")
    private Integer crashNode;

    @Option(names = "--crash-after", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
        description = "With --crash-node: when, from the start of the warm-up. Default: a third of warm-up plus run.")
    private Duration crashAfter;

    @Option(names = "--log-dir", paramLabel = "DIR",
        description = "With --cluster and a log (--wal async or sync): the directory every compute node's process"
            + " logs into (node-N inside), one all of them can read: when a compute node's process dies, a survivor"
            + " restores its committed work from its log. Must be empty or absent when the run starts. (--fabric"
            + " tcp makes a temporary one.)")
    private Path logDir;

    /** The cluster flags and the output flags as {@link #spec} checked them (checked once: they read files). */
    private ClusterSettings cluster;
    private RunSettings outputs;

    /**
     * The run these flags ask for. Where a data directory keeps the database, its warehouses and mode are
     * the run's unless given (a value given that differs is refused).
     *
     * @throws CommandLine.ParameterException naming the flag on bad input (exit 2)
     */
    RunSpec spec() {
        CommandLine cl = spec.commandLine();
        var given = cl.getParseResult();
        Flags.require(!given.hasMatchedOption("--threads"), cl, "--threads", clusterOptions.threads(),
            "is not a tpcc run flag: terminals are placed per warehouse, use --terminals N (per warehouse)");
        RunSpec.Mode runMode = parse(cl, "--mode", mode, RunSpec.Mode.class, false, "must be shared or partitioned");
        Map<String, String> stored = tpcc.dataDir == null ? null : DataDir.peek(tpcc.dataDir);
        if (stored != null) {
            // A kept database's mode and warehouses are the run's; a value given that differs is refused first
            // (before the checks it would fail for that reason), with the words the run uses when it opens one.
            if (given.hasMatchedOption("--mode")) {
                refuse(cl, nonNull(DataDir.differingMode(tpcc.dataDir, stored, runMode)));
            }
            if (given.hasMatchedOption("--warehouses")) {
                refuse(cl, nonNull(DataDir.differingWarehouses(tpcc.dataDir, stored, tpcc.warehouses)));
            }
            runMode = DataDir.mode(stored);
            tpcc.warehouses = Integer.parseInt(stored.get(DataDir.WAREHOUSES));
        }
        cluster = TpccSetup.settings(clusterOptions, tpcc, cl);
        RunSettings run = runOptions.settings(cl, TpccReport.CSV_HEADER);
        outputs = run;
        RunSpec.LogMode log = tpcc.dataDir != null && !given.hasMatchedOption("--wal")
            ? RunSpec.LogMode.SYNC // a kept database keeps what it acknowledged
            : parse(cl, "--wal", wal, RunSpec.LogMode.class, true, "must be off, async or sync");
        LockWaitPolicy lockWaitPolicy;
        try {
            lockWaitPolicy = LockWaitPolicy.byName(lockWait);
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--lock-wait", lockWait, "is no-wait or wait-die");
        }
        Mix weights;
        try {
            weights = Mix.parse(mix);
        } catch (IllegalArgumentException e) {
            throw Flags.invalid(cl, "--mix", mix, e.getMessage());
        }
        Flags.require(crashAfter == null || crashNode != null, cl, "--crash-after", crashAfter, "needs --crash-node");
        RunSpec runSpec = RunSpec.builder()
            .cc(tpcc.cc).warehouses(tpcc.warehouses).mode(runMode).log(log).dataDir(tpcc.dataDir).check(tpcc.check)
            .cluster(cluster.toSpec(given.hasMatchedOption("--cache")))
            .terminalsPerWarehouse(terminalsPerWarehouse).placement(placement).terminalThreads(terminalThreads)
            .lockWait(lockWaitPolicy)
            .duration(Duration.ofNanos(run.durationNanos())).warmup(Duration.ofNanos(run.warmupNanos()))
            .seed(run.seed()).mix(weights).waitTimes(waitTimes).maxAttempts(maxAttempts)
            .distribution(distribution == null ? OptionalInt.empty() : OptionalInt.of(distribution))
            .checkpointEvery(checkpointEvery)
            .crash(crashNode == null ? null : new RunSpec.CrashPlan(crashNode, crashAfter))
            .memoryPerNode(tpcc.memoryPerNode).logDir(logDir).activePerNode(activePerNode)
            .build();
        refuse(cl, runSpec.validate());
        return runSpec;
    }

    /** The first violation as bad input (exit 2) naming its flag; nothing if there is none. */
    static void refuse(CommandLine cl, List<RunSpec.Violation> violations) {
        if (!violations.isEmpty()) {
            RunSpec.Violation first = violations.get(0);
            throw Flags.invalid(cl, first.flag(), first.value(), first.problem());
        }
    }

    private static List<RunSpec.Violation> nonNull(RunSpec.Violation violation) {
        return violation == null ? List.of() : List.of(violation);
    }

    /** {@code value} as the constant of {@code type} it names (lower case, or in any case); else bad input. */
    private static <E extends Enum<E>> E parse(CommandLine cl, String flag, String value, Class<E> type,
                                               boolean anyCase, String problem) {
        for (E constant : type.getEnumConstants()) {
            String name = constant.name().toLowerCase(Locale.ROOT);
            if (anyCase ? name.equalsIgnoreCase(value) : name.equals(value)) {
                return constant;
            }
        }
        throw Flags.invalid(cl, flag, value, problem);
    }

    @Override
    public Integer call() throws InterruptedException {
        RunSpec runSpec = spec();
        List<String> args = new ArrayList<>(spec.commandLine().getParseResult().originalArgs());
        RunOutcome outcome = runAndReport(runSpec, outputs(), args.subList(args.indexOf("run") + 1, args.size()),
            spec.commandLine().getOut(), spec.commandLine().getErr());
        return outcome.reported() ? exitCode(outcome, spec.commandLine().getOut(), spec.commandLine().getErr()) : 0;
    }

    /** Where this command's flags ask for the report ({@code --json}) and the rows ({@code --csv}); after {@link #spec}. */
    RunSettings outputs() {
        return outputs;
    }

    /**
     * Runs {@code runSpec} as this command does and writes {@code outputs} once it is measured: with
     * {@code --fabric tcp}, compute nodes 1..N-1 as processes started with {@code childArgs} where the run
     * allows it, else in this process. A refusal is bad input naming its flag (exit 2).
     */
    RunOutcome runAndReport(RunSpec runSpec, RunSettings outputs, List<String> childArgs, PrintWriter out,
                            PrintWriter err) throws InterruptedException {
        if (runSpec.cluster().fabric().label().equals("tcp") && !runSpec.cluster().fabric().separateProcesses()
            && runSpec.inOneProcessBecause() == null) {
            return launchProcesses(runSpec, outputs, childArgs, out, err);
        }
        return execute(spec.commandLine(), runSpec, outputs, out, err);
    }

    /**
     * Runs {@code runSpec}, writing {@code outputs} as soon as it is measured (before a kept database's
     * final checkpoint); a refusal is bad input naming its flag (exit 2).
     */
    private static RunOutcome execute(CommandLine cl, RunSpec runSpec, RunSettings outputs, PrintWriter out,
                                      PrintWriter err) throws InterruptedException {
        try {
            return TpccRun.run(runSpec, out, err, outcome -> {
                if (outcome.reported()) {
                    writeReports(outputs, outcome, out);
                }
            });
        } catch (InvalidRunException e) {
            refuse(cl, e.violations());
            throw e;
        }
    }

    /** {@code --json} (the report with the log's, the mode's and the repairs' fields) and {@code --csv}, as asked. */
    private static void writeReports(RunSettings run, RunOutcome outcome, PrintWriter out) {
        if (run.json() != null) {
            JsonFile.write(run.json(), TpccReport.json(outcome));
            out.println("wrote " + run.json());
        }
        if (run.csv() != null) {
            CsvFile.append(run.csv(), TpccReport.CSV_HEADER, TpccReport.csvRows(outcome));
            out.println("appended to " + run.csv());
        }
    }

    /** 1 if the run stopped early on full shared memory (said on err) or a check failed, else 0. */
    static int exitCode(RunOutcome outcome, PrintWriter out, PrintWriter err) {
        out.flush();
        if (outcome.stoppedEarly()) {
            // Stopped early, the results above cover the run until then; what committed is in the database.
            err.printf(Locale.ROOT, "selcc: shared memory is full: the run stopped after %.1f s of measurement;"
                + " raise --memory (now %s per memory node)%n", outcome.result().seconds(),
                TpccDatabases.mebibytes(outcome.memoryPerNode()));
            err.flush();
            return 1;
        }
        return outcome.passed() ? 0 : 1;
    }

    /**
     * {@code --fabric tcp}: starts the memory nodes and compute nodes 1..N-1 as processes on localhost
     * (with {@code childArgs}, and a temporary shared log directory when logging) and runs as compute node 0.
     */
    private RunOutcome launchProcesses(RunSpec runSpec, RunSettings outputs, List<String> childArgs,
                                       PrintWriter out, PrintWriter err) throws InterruptedException {
        List<String> args = new ArrayList<>(childArgs);
        Path temporaryLogs = null;
        if (runSpec.log() != RunSpec.LogMode.OFF) {
            try {
                temporaryLogs = Files.createTempDirectory("selcc-wal-");
            } catch (IOException e) {
                throw new CliFailure("cannot create a temporary log directory: " + e.getMessage(), e);
            }
            args.addAll(List.of("--log-dir", temporaryLogs.toString()));
        }
        try (var processes = FabricLauncher.launchCluster(cluster, TpccRun.memoryPerNode(runSpec), args,
            List.of("tpcc", "run"))) {
            ClusterSpec.Placement nodeZero = cluster.inCluster(processes.map(), 0).toSpec(false).fabric();
            RunSpec asNodeZero = runSpec.toBuilder().cluster(runSpec.cluster().withFabric(nodeZero))
                .logDir(temporaryLogs).build();
            return execute(spec.commandLine(), asNodeZero, outputs, out, err);
        } finally {
            if (temporaryLogs != null) {
                Recovery.deleteTree(temporaryLogs);
            }
        }
    }
}
