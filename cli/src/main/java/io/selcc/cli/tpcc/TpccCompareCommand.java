package io.selcc.cli.tpcc;

import io.selcc.cli.CliFailure;
import io.selcc.cli.Flags;
import io.selcc.cli.JsonFile;
import io.selcc.cli.JsonWriter;
import io.selcc.cli.SelccCli;
import io.selcc.tpcc.driver.DriverResult;
import io.selcc.tpcc.run.ModeReport;
import io.selcc.tpcc.run.RunOutcome;
import io.selcc.tpcc.run.RunSpec;
import io.selcc.tpcc.driver.TypeStats;
import io.selcc.tpcc.txn.TxnType;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.style.markers.SeriesMarkers;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code selcc tpcc compare}: the partitioning experiment. For each share of cross-partition New-Orders
 * it runs {@code tpcc run} twice, fully shared and partitioned (each on a fresh load, the same seed, so
 * both modes draw the same orders), then prints a table and writes {@code compare.json},
 * {@code compare.csv} and {@code compare.svg} (throughput against the share, one line per mode, and the
 * abort rates on a second axis) into {@code --out}. Every other option goes to each run as given.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, versionProvider = SelccCli.Version.class, sortOptions = false,
    description = "Run fully-shared and partitioned mode (2PC) at each --distribution share of cross-partition"
        + " New-Orders, each on a fresh load with the same seed; print a table and write DIR/compare.json,"
        + " DIR/compare.csv and DIR/compare.svg. Other options (--warehouses, --compute-nodes, --wal, --mix,"
        + " --duration, ...) go to every run, as for tpcc run; each run's own output goes to DIR/runs/.",
    footer = {"", "Example: bin/selcc tpcc compare --distribution 0,10,20,50,100 --warehouses 4 --compute-nodes 2"
        + " --wal sync --mix 100,0,0,0,0 --duration 10s --out compare-out"})
public final class TpccCompareCommand implements Callable<Integer> {
    private static final List<String> MODES = List.of("shared", "partitioned");
    /** Flags compare sets itself for each run. */
    private static final List<String> OWN = List.of("--mode", "--distribution", "--json", "--data-dir");

    @Spec
    private CommandSpec spec;

    @Option(names = "--distribution", paramLabel = "P,P,...", defaultValue = "0,10,20,50,100",
        description = "The shares (percent of New-Orders with a line from another compute node's warehouse) to run."
            + " Default: ${DEFAULT-VALUE}.")
    private String shares;

    @Option(names = "--out", paramLabel = "DIR", required = true,
        description = "Directory for compare.json, compare.csv, compare.svg and each run's output (created if missing).")
    private Path out;

    @Option(names = "--compare-access",
        description = "Compare SELCC with SEL instead of the modes: run every algorithm of --ccs with --access selcc"
            + " and with --access sel (the paper's first experiment; pass --rtt and --gbps for its latency model)"
            + " and write DIR/compare-access.json, .csv and .svg (txn/s per algorithm, one bar per access mode).")
    private boolean compareAccess;

    @Option(names = "--ccs", paramLabel = "CC,CC,...", defaultValue = "2pl,occ,to",
        description = "With --compare-access: the algorithms to run. Default: ${DEFAULT-VALUE}.")
    private String ccs;

    @Option(names = "--keep-data-dirs",
        description = "Load each run's database into DIR/data/MODE-SHARE (tpcc load --data-dir, --mode partitioned"
            + " for partitioned mode), run it from there (recovered, logged with --wal sync unless --wal says"
            + " otherwise, checkpointed at the end) and keep the directories for tpcc check --data-dir. Default: each"
            + " run loads in memory and leaves nothing behind.")
    private boolean keepDataDirs;

    @Unmatched
    private List<String> runArgs = new ArrayList<>();

    /** One run's figures: {@code mode} is the series (a mode, or an access mode), {@code x} its label on the x axis. */
    record Point(String mode, String x, int share, double txnPerSec, long committed, long aborted, double abortRate,
                 double newOrderP50Millis, double newOrderP99Millis, double roundTripsPerTxn, double messagesPerTxn,
                 long invalidations, long distributedCommits, double forcesPerDistributedCommit, long walForces,
                 double forcedWritesPerTxn) {
    }

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (compareAccess) {
            return compareAccess(cl);
        }
        List<Integer> points = parseShares(cl);
        if (keepDataDirs) {
            for (int share : points) {
                for (String mode : MODES) {
                    Path kept = dataDir(mode, share);
                    Flags.require(!Files.exists(kept), cl, "--keep-data-dirs", out.resolve("data"),
                        kept + " exists already: keep each comparison's databases in a new --out directory");
                }
            }
        }
        for (String arg : runArgs) {
            String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (OWN.contains(flag)) {
                throw Flags.invalid(cl, flag, arg, switch (flag) {
                    case "--json" -> "compare writes DIR/compare.json itself (see --out)";
                    case "--data-dir" -> "compare loads afresh for every run (--keep-data-dirs keeps each run's database)";
                    default -> "compare sets it for each run (see --distribution)";
                });
            }
        }
        Path runs = prepareOut(cl);
        RunSpec base = baseSpec();
        // Every flag checked as each run would, before the first one loads anything.
        for (int share : points) {
            for (String mode : MODES) {
                TpccRunCommand.refuse(runLine, modeSpec(base, mode, share, null).validate());
            }
        }
        PrintWriter say = cl.getOut();
        List<Point> results = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            int share = points.get(i);
            // Alternating which mode goes first: the JVM (JIT, heap) warms up over the runs.
            List<String> order = i % 2 == 0 ? MODES : MODES.reversed();
            for (String mode : order) {
                Path log = runs.resolve(mode + "-" + share + ".txt");
                Path kept = null;
                if (keepDataDirs) {
                    kept = dataDir(mode, share);
                    if (!load(cl, mode, kept, log)) {
                        return lastExit;
                    }
                }
                List<String> extra = new ArrayList<>(List.of("--mode", mode, "--distribution", Integer.toString(share)));
                if (kept != null) {
                    extra.addAll(List.of("--data-dir", kept.toString()));
                }
                Point p = runOnce(cl, modeSpec(base, mode, share, kept), extra, mode, Integer.toString(share), share, log);
                if (p == null) {
                    return lastExit;
                }
                results.add(p);
                writeJson(results, points); // what ran so far survives a later failure
                writeCsv(results);
                say.printf(Locale.ROOT, "%-11s distribution %3d%%: %,10.1f txn/s, abort rate %.3f, NO p50 %.2f ms p99 %.2f ms%n",
                    mode, share, p.txnPerSec(), p.abortRate(), p.newOrderP50Millis(), p.newOrderP99Millis());
                say.flush();
            }
        }
        printTable(say, results);
        writePlot(results);
        say.println("wrote " + out.resolve("compare.json") + ", " + out.resolve("compare.csv") + ", "
            + out.resolve("compare.svg"));
        say.flush();
        return 0;
    }

    private int lastExit;
    /** The first run's parameters as a JSON object (every run has the same but for the compared ones). */
    private String parameters;

    /** {@code --compare-access}: every algorithm with SELCC and with SEL. */
    private int compareAccess(CommandLine cl) throws IOException, InterruptedException {
        List<String> algorithms = new ArrayList<>();
        for (String cc : ccs.split(",", -1)) {
            String name = cc.strip().toLowerCase(Locale.ROOT);
            Flags.require(List.of("2pl", "occ", "to").contains(name), cl, "--ccs", ccs, "each must be 2pl, occ or to");
            Flags.require(!algorithms.contains(name), cl, "--ccs", ccs, name + " is listed twice");
            algorithms.add(name);
        }
        Flags.require(!spec.commandLine().getParseResult().hasMatchedOption("--distribution"), cl, "--distribution",
            shares, "is for the modes' comparison, not with --compare-access");
        Flags.require(!keepDataDirs, cl, "--keep-data-dirs", true, "is for the modes' comparison, not with --compare-access");
        for (String arg : runArgs) {
            String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (List.of("--access", "--cc", "--json", "--data-dir", "--mode").contains(flag)) {
                throw Flags.invalid(cl, flag, arg, "compare --compare-access sets it for each run (see --ccs)");
            }
        }
        Path runs = prepareOut(cl);
        RunSpec base = baseSpec();
        List<String> accesses = List.of("selcc", "sel");
        for (String cc : algorithms) {
            for (String access : accesses) {
                TpccRunCommand.refuse(runLine, accessSpec(base, cc, access).validate());
            }
        }
        PrintWriter say = cl.getOut();
        List<Point> results = new ArrayList<>();
        for (int i = 0; i < algorithms.size(); i++) {
            String cc = algorithms.get(i);
            for (String access : i % 2 == 0 ? accesses : accesses.reversed()) {
                Point p = runOnce(cl, accessSpec(base, cc, access), List.of("--cc", cc, "--access", access), access, cc, -1,
                    runs.resolve("access-" + cc + "-" + access + ".txt"));
                if (p == null) {
                    return lastExit;
                }
                results.add(p);
                writeAccessJson(results);
                say.printf(Locale.ROOT, "%-3s %-5s: %,10.1f txn/s, abort rate %.3f, %.2f round trips per transaction%n",
                    cc, access, p.txnPerSec(), p.abortRate(), p.roundTripsPerTxn());
                say.flush();
            }
        }
        say.printf(Locale.ROOT, "%n%-4s %14s %14s %8s%n", "cc", "SELCC txn/s", "SEL txn/s", "ratio");
        for (String cc : algorithms) {
            double selcc = throughput(results, cc, "selcc");
            double sel = throughput(results, cc, "sel");
            say.printf(Locale.ROOT, "%-4s %14.1f %14.1f %8.2f%n", cc, selcc, sel, sel == 0 ? 0 : selcc / sel);
        }
        writeAccessPlot(results, algorithms);
        say.println("wrote " + out.resolve("compare-access.json") + ", " + out.resolve("compare-access.csv") + ", "
            + out.resolve("compare-access.svg"));
        say.flush();
        return 0;
    }

    private static double throughput(List<Point> results, String cc, String access) {
        for (Point p : results) {
            if (p.x().equals(cc) && p.mode().equals(access)) {
                return p.txnPerSec();
            }
        }
        return 0;
    }

    private Path prepareOut(CommandLine cl) {
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw Flags.invalid(cl, "--out", out, "is a file, not a directory");
        }
        Path runs = out.resolve("runs");
        try {
            Files.createDirectories(runs);
        } catch (IOException e) {
            throw Flags.invalid(cl, "--out", out, "cannot create it: " + e.getMessage());
        }
        return runs;
    }

    private void writeAccessJson(List<Point> results) throws IOException {
        JsonWriter json = new JsonWriter().beginObject().field("benchmark", "tpcc-compare-access");
        json.name("runArguments").beginArray();
        for (String arg : runArgs) {
            json.value(arg);
        }
        json.endArray();
        json.field("load", "fresh per run, same seed");
        json.name("parameters").raw(parameters == null ? "null" : parameters);
        json.field("runReports", "runs/access-<cc>-<access>.json: each run's own report, every parameter included");
        json.name("runs").beginArray();
        StringBuilder csv = new StringBuilder("cc,access,txnPerSec,committed,aborted,abortRate,newOrderP50Millis,"
            + "newOrderP99Millis,roundTripsPerTxnAllNodes,messagesPerTxnAllNodes,invalidationsBetweenNodes\n");
        for (Point p : results) {
            json.beginObject().field("cc", p.x()).field("access", p.mode()).field("txnPerSec", p.txnPerSec())
                .field("committed", p.committed()).field("aborted", p.aborted()).field("abortRate", p.abortRate())
                .field("newOrderP50Millis", p.newOrderP50Millis()).field("newOrderP99Millis", p.newOrderP99Millis())
                .field("roundTripsPerTxnAllNodes", p.roundTripsPerTxn()).field("messagesPerTxnAllNodes", p.messagesPerTxn())
                .field("invalidationsBetweenNodes", p.invalidations()).endObject();
            csv.append(String.format(Locale.ROOT, "%s,%s,%.1f,%d,%d,%.5f,%.3f,%.3f,%.3f,%.3f,%d%n", p.x(), p.mode(),
                p.txnPerSec(), p.committed(), p.aborted(), p.abortRate(), p.newOrderP50Millis(), p.newOrderP99Millis(),
                p.roundTripsPerTxn(), p.messagesPerTxn(), p.invalidations()));
        }
        json.endArray().endObject();
        JsonFile.write(out.resolve("compare-access.json"), json.toString());
        Files.writeString(out.resolve("compare-access.csv"), csv.toString(), StandardCharsets.UTF_8);
    }

    private void writeAccessPlot(List<Point> results, List<String> algorithms) {
        System.setProperty("java.awt.headless", "true");
        org.knowm.xchart.CategoryChart chart = new org.knowm.xchart.CategoryChartBuilder().width(800).height(500)
            .title("TPC-C: SELCC (coherent cache) vs SEL (no cache)").xAxisTitle("concurrency control")
            .yAxisTitle("committed txn/s").build();
        for (String access : List.of("selcc", "sel")) {
            List<Double> values = new ArrayList<>();
            for (String cc : algorithms) {
                values.add(throughput(results, cc, access));
            }
            chart.addSeries(access.toUpperCase(Locale.ROOT), algorithms, values);
        }
        save(chart, "compare-access");
    }

    private void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, String name) {
        try {
            // The encoder adds the ".svg" extension itself.
            VectorGraphicsEncoder.saveVectorGraphic(chart, out.resolve(name).toString(),
                VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        } catch (IOException | RuntimeException | Error e) {
            throw new CliFailure("cannot write the plot " + out.resolve(name + ".svg") + ": " + e, e);
        }
    }

    /** Where {@code --keep-data-dirs} keeps the database of the run of {@code mode} at {@code share}. */
    private Path dataDir(String mode, int share) {
        return out.resolve("data").resolve(mode + "-" + share);
    }

    /**
     * {@code tpcc load --data-dir kept} in {@code mode} with the run arguments that load takes (the cluster,
     * the warehouses, the algorithm, the seed), its output into {@code log}; whether it succeeded.
     */
    private boolean load(CommandLine cl, String mode, Path kept, Path log) throws IOException {
        CommandLine load = SelccCli.commandLine();
        CommandSpec loadSpec = load.getSubcommands().get("tpcc").getSubcommands().get("load").getCommandSpec();
        CommandSpec runSpec = SelccCli.commandLine().getSubcommands().get("tpcc").getSubcommands().get("run").getCommandSpec();
        List<String> args = new ArrayList<>(List.of("tpcc", "load", "--mode", mode, "--data-dir", kept.toString()));
        for (int i = 0; i < runArgs.size(); i++) {
            String arg = runArgs.get(i);
            String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            picocli.CommandLine.Model.OptionSpec runOption = runSpec.findOption(flag);
            boolean valueFollows = runOption != null && runOption.arity().max() > 0 && !arg.contains("=")
                && i + 1 < runArgs.size();
            if (loadSpec.findOption(flag) != null && !"--check".equals(flag)) {
                args.add(arg);
                if (valueFollows) {
                    args.add(runArgs.get(i + 1));
                }
            }
            if (valueFollows) {
                i++;
            }
        }
        int exit;
        try (PrintWriter file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
            load.setOut(file);
            load.setErr(cl.getErr());
            exit = load.execute(args.toArray(String[]::new));
        }
        if (exit != 0) {
            cl.getErr().println("selcc tpcc compare: " + String.join(" ", args) + " failed (exit " + exit
                + ", its output: " + log + ")");
            cl.getErr().flush();
            lastExit = exit;
            return false;
        }
        return true;
    }

    /** {@code tpcc run}'s command line, parsed from the run arguments, that names the runs' bad input. */
    private CommandLine runLine;
    /** Whether the run arguments give {@code --wal} (a kept database is logged with sync unless they do). */
    private boolean walGiven;

    /**
     * The run every comparison varies: the run arguments as {@code tpcc run} reads them (its checks, its
     * messages), with the mode and distribution compare sets for each run.
     */
    private RunSpec baseSpec() {
        CommandLine run = SelccCli.commandLine();
        runLine = run.getSubcommands().get("tpcc").getSubcommands().get("run");
        runLine.setOut(new PrintWriter(java.io.Writer.nullWriter()));
        runLine.setErr(spec.commandLine().getErr());
        List<String> args = new ArrayList<>(List.of("tpcc", "run"));
        args.addAll(runArgs);
        run.parseArgs(args.toArray(String[]::new));
        walGiven = runLine.getParseResult().hasMatchedOption("--wal");
        return ((TpccRunCommand) runLine.getCommand()).spec();
    }

    /** The run of {@code mode} at {@code share}; from the database kept in {@code kept} unless it is null. */
    private RunSpec modeSpec(RunSpec base, String mode, int share, Path kept) {
        RunSpec run = base.with(RunSpec.Mode.valueOf(mode.toUpperCase(Locale.ROOT)), java.util.OptionalInt.of(share));
        return kept == null ? run : run.withDataDir(kept, walGiven ? base.log() : RunSpec.LogMode.SYNC);
    }

    /** The run of {@code cc} with {@code access} (SELCC's cache, or SEL without one). */
    private static RunSpec accessSpec(RunSpec base, String cc, String access) {
        return base.withCc(cc).withCluster(base.cluster().withAccess(
            access.equals("sel") ? io.selcc.cache.AccessMode.SEL : io.selcc.cache.AccessMode.SELCC));
    }

    /**
     * One run, as {@code tpcc run} with the run arguments and {@code extra} would do it (compute nodes as
     * processes with {@code --fabric tcp}, rows appended to {@code --csv}), its output into {@code log} and
     * its report beside it; null (and {@link #lastExit} set) if it did not succeed.
     */
    private Point runOnce(CommandLine cl, RunSpec run, List<String> extra, String series, String x, int share, Path log)
            throws IOException, InterruptedException {
        // With --keep-data-dirs the load wrote its output into the file first.
        java.nio.file.OpenOption[] open = keepDataDirs
            ? new java.nio.file.OpenOption[] {java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND}
            : new java.nio.file.OpenOption[0];
        TpccRunCommand command = runLine.getCommand();
        io.selcc.cli.RunSettings asked = command.outputs();
        // Every parameter and figure of the run, beside its output.
        Path report = log.resolveSibling(log.getFileName().toString().replaceFirst("\\.txt$", ".json"));
        io.selcc.cli.RunSettings outputs = new io.selcc.cli.RunSettings(asked.durationNanos(), asked.warmupNanos(),
            asked.seed(), report, asked.csv());
        List<String> childArgs = new ArrayList<>(runArgs);
        childArgs.addAll(extra);
        RunOutcome outcome = null;
        int exit;
        try (PrintWriter file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8, open))) {
            try {
                outcome = command.runAndReport(run, outputs, childArgs, file, cl.getErr());
                exit = TpccRunCommand.exitCode(outcome, file, cl.getErr());
            } catch (RuntimeException e) {
                if (e instanceof CommandLine.ParameterException) {
                    throw e; // bad input, named in one line as tpcc run names it
                }
                exit = SelccCli.reportFailure(e, runLine);
            }
        }
        if (exit != 0) {
            cl.getErr().println("selcc tpcc compare: the run " + String.join(" ", extra) + " failed"
                + " (its output: " + log + ")");
            cl.getErr().flush();
            lastExit = exit;
            return null;
        }
        if (parameters == null) {
            JsonWriter p = new JsonWriter().beginObject();
            TpccReport.parameters(p, outcome);
            parameters = p.endObject().toString();
        }
        DriverResult r = outcome.result();
        ModeReport m = outcome.mode();
        TypeStats newOrders = r.stats(TxnType.NEW_ORDER);
        long attempts = r.committed() + r.aborted();
        return new Point(series, x, share, r.txnPerSec(), r.committed(), r.aborted(),
            attempts == 0 ? 0 : r.aborted() / (double) attempts,
            newOrders.percentileMicros(50) / 1000.0, newOrders.percentileMicros(99) / 1000.0, m.roundTripsPerTxn(),
            m.messagesPerTxn(), m.invalidations(), m.twoPc() == null ? 0 : m.twoPc().distributedCommits(),
            m.forcesPerDistributedCommit(), outcome.log().forces(), m.forcedWritesPerTxn());
    }

    private List<Integer> parseShares(CommandLine cl) {
        List<Integer> points = new ArrayList<>();
        for (String part : shares.split(",", -1)) {
            int p;
            try {
                p = Integer.parseInt(part.strip());
            } catch (NumberFormatException e) {
                throw Flags.invalid(cl, "--distribution", shares, "a comma-separated list of percentages, 0-100");
            }
            Flags.require(p >= 0 && p <= 100, cl, "--distribution", shares, "each share must be 0-100, not " + p);
            Flags.require(!points.contains(p), cl, "--distribution", shares, "share " + p + " is listed twice");
            points.add(p);
        }
        return points;
    }

    private static void printTable(PrintWriter say, List<Point> results) {
        say.printf(Locale.ROOT, "%n%-11s %5s %12s %8s %10s %10s %9s %9s %13s %12s %11s %10s%n", "mode", "dist%", "txn/s",
            "abort%", "NO p50 ms", "NO p99 ms", "RT/txn", "msg/txn", "invalidations", "dist.commits", "forces/dc", "forced/txn");
        for (Point p : results) {
            say.printf(Locale.ROOT, "%-11s %5d %12.1f %8.2f %10.2f %10.2f %9.2f %9.2f %13d %12d %11.2f %10.3f%n", p.mode(),
                p.share(), p.txnPerSec(), 100 * p.abortRate(), p.newOrderP50Millis(), p.newOrderP99Millis(),
                p.roundTripsPerTxn(), p.messagesPerTxn(), p.invalidations(), p.distributedCommits(),
                p.forcesPerDistributedCommit(), p.forcedWritesPerTxn());
        }
        say.flush();
    }

    private void writeJson(List<Point> results, List<Integer> points) throws IOException {
        JsonWriter json = new JsonWriter().beginObject().field("benchmark", "tpcc-compare");
        json.name("runArguments").beginArray();
        for (String arg : runArgs) {
            json.value(arg);
        }
        json.endArray();
        json.name("distribution").beginArray();
        for (int p : points) {
            json.value(p);
        }
        json.endArray();
        json.field("load", keepDataDirs ? "per run with the same seed, kept in data/<mode>-<share> (--keep-data-dirs)" : "fresh per run, same seed");
        json.name("parameters").raw(parameters == null ? "null" : parameters);
        json.field("runReports", "runs/<mode>-<share>.json: each run's own report, every parameter included");
        json.field("window", "every figure covers the measured interval (warm-up excluded), counted on all nodes;"
            + " walForcesWholeRun includes the warm-up");
        json.name("runs").beginArray();
        for (Point p : results) {
            json.beginObject()
                .field("mode", p.mode())
                .field("distribution", p.share())
                .field("txnPerSec", p.txnPerSec())
                .field("committed", p.committed())
                .field("aborted", p.aborted())
                .field("abortRate", p.abortRate())
                .field("newOrderP50Millis", p.newOrderP50Millis())
                .field("newOrderP99Millis", p.newOrderP99Millis())
                .field("roundTripsPerTxnAllNodes", p.roundTripsPerTxn())
                .field("messagesPerTxnAllNodes", p.messagesPerTxn())
                .field("invalidationsBetweenNodes", p.invalidations())
                .field("distributedCommits", p.distributedCommits())
                .field("twoPcForcesPerDistributedCommit", p.forcesPerDistributedCommit())
                .field("forcedWritesPerTxn", p.forcedWritesPerTxn())
                .field("walForcesWholeRun", p.walForces())
                .endObject();
        }
        json.endArray().endObject();
        JsonFile.write(out.resolve("compare.json"), json.toString());
    }

    private void writeCsv(List<Point> results) throws IOException {
        StringBuilder csv = new StringBuilder("mode,distribution,txnPerSec,committed,aborted,abortRate,newOrderP50Millis,"
            + "newOrderP99Millis,roundTripsPerTxnAllNodes,messagesPerTxnAllNodes,invalidationsBetweenNodes,distributedCommits,"
            + "twoPcForcesPerDistributedCommit,forcedWritesPerTxn,walForcesWholeRun\n");
        for (Point p : results) {
            csv.append(String.format(Locale.ROOT, "%s,%d,%.1f,%d,%d,%.5f,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3f,%.4f,%d%n",
                p.mode(), p.share(), p.txnPerSec(), p.committed(), p.aborted(), p.abortRate(), p.newOrderP50Millis(),
                p.newOrderP99Millis(), p.roundTripsPerTxn(), p.messagesPerTxn(), p.invalidations(), p.distributedCommits(),
                p.forcesPerDistributedCommit(), p.forcedWritesPerTxn(), p.walForces()));
        }
        Files.writeString(out.resolve("compare.csv"), csv.toString(), StandardCharsets.UTF_8);
    }

    private void writePlot(List<Point> results) {
        System.setProperty("java.awt.headless", "true");
        XYChart chart = new XYChartBuilder().width(800).height(500)
            .title("TPC-C: fully shared (SELCC) vs partitioned (2PC)")
            .xAxisTitle("cross-partition New-Orders (%)").yAxisTitle("committed txn/s").build();
        chart.setYAxisGroupTitle(1, "aborts per attempt");
        chart.getStyler().setYAxisMin(0, 0.0);
        chart.getStyler().setYAxisMin(1, 0.0);
        for (String mode : MODES) {
            List<Double> x = new ArrayList<>();
            List<Double> throughput = new ArrayList<>();
            List<Double> aborts = new ArrayList<>();
            for (Point p : results) {
                if (p.mode().equals(mode)) {
                    x.add((double) p.share());
                    throughput.add(p.txnPerSec());
                    aborts.add(p.abortRate());
                }
            }
            String name = mode.equals("shared") ? "fully shared" : "partitioned, 2PC";
            chart.addSeries(name + ": txn/s", x, throughput).setMarker(SeriesMarkers.CIRCLE);
            var abortSeries = chart.addSeries(name + ": abort rate", x, aborts);
            abortSeries.setYAxisGroup(1);
            abortSeries.setMarker(SeriesMarkers.DIAMOND);
        }
        save(chart, "compare");
    }
}
