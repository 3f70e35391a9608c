package io.selcc.cli.tpcc;

import io.selcc.cli.CliFailure;
import io.selcc.cli.Flags;
import io.selcc.cli.JsonFile;
import io.selcc.cli.JsonWriter;
import io.selcc.cli.SelccCli;
import io.selcc.tpcc.driver.DriverResult;
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

    @Unmatched
    private List<String> runArgs = new ArrayList<>();

    /** One run's figures. */
    record Point(String mode, int share, double txnPerSec, long committed, long aborted, double abortRate,
                 double newOrderP50Millis, double newOrderP99Millis, double roundTripsPerTxn, double messagesPerTxn,
                 long invalidations, long distributedCommits, double forcesPerDistributedCommit, long walForces) {
    }

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        List<Integer> points = parseShares(cl);
        for (String arg : runArgs) {
            String flag = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (OWN.contains(flag)) {
                throw Flags.invalid(cl, flag, arg, switch (flag) {
                    case "--json" -> "compare writes DIR/compare.json itself (see --out)";
                    case "--data-dir" -> "compare loads afresh for every run";
                    default -> "compare sets it for each run (see --distribution)";
                });
            }
        }
        if (Files.exists(out) && !Files.isDirectory(out)) {
            throw Flags.invalid(cl, "--out", out, "is a file, not a directory");
        }
        Path runs = out.resolve("runs");
        try {
            Files.createDirectories(runs);
        } catch (IOException e) {
            throw Flags.invalid(cl, "--out", out, "cannot create it: " + e.getMessage());
        }
        // Every flag checked as each run would, before the first one loads anything.
        for (int share : points) {
            for (String mode : MODES) {
                int exit = validate(cl, mode, share);
                if (exit != 0) {
                    return exit;
                }
            }
        }
        PrintWriter say = cl.getOut();
        List<Point> results = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            int share = points.get(i);
            // Alternating which mode goes first: the JVM (JIT, heap) warms up over the runs.
            List<String> order = i % 2 == 0 ? MODES : MODES.reversed();
            for (String mode : order) {
                Point p = runOnce(cl, mode, share, runs);
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

    /** Runs tpcc run's flag checks for one (mode, share) without loading; its exit code. */
    private int validate(CommandLine cl, String mode, int share) {
        CommandLine run = SelccCli.commandLine();
        run.setOut(new PrintWriter(java.io.Writer.nullWriter()));
        run.setErr(cl.getErr());
        return run.execute(runArguments(mode, share, true).toArray(String[]::new));
    }

    private List<String> runArguments(String mode, int share, boolean validateOnly) {
        List<String> args = new ArrayList<>(List.of("tpcc", "run"));
        args.addAll(runArgs);
        args.addAll(List.of("--mode", mode, "--distribution", Integer.toString(share)));
        if (validateOnly) {
            args.add("--validate-only");
        }
        return args;
    }

    /** One {@code tpcc run}; null (and {@link #lastExit} set) if it did not succeed. */
    private Point runOnce(CommandLine cl, String mode, int share, Path runs) throws IOException {
        List<String> args = runArguments(mode, share, false);
        Path log = runs.resolve(mode + "-" + share + ".txt");
        CommandLine run = SelccCli.commandLine();
        int exit;
        try (PrintWriter file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8))) {
            run.setOut(file);
            run.setErr(cl.getErr());
            exit = run.execute(args.toArray(String[]::new));
        }
        if (exit != 0) {
            if (exit != CommandLine.ExitCode.USAGE) { // bad input was named in one line already
                cl.getErr().println("selcc tpcc compare: the " + mode + " run at distribution " + share + "% failed"
                    + " (its output: " + log + ")");
                cl.getErr().flush();
            }
            lastExit = exit;
            return null;
        }
        TpccRunCommand command = run.getSubcommands().get("tpcc").getSubcommands().get("run").getCommand();
        DriverResult r = command.lastResult();
        ModeReport m = command.lastMode();
        TypeStats newOrders = r.stats(TxnType.NEW_ORDER);
        long attempts = r.committed() + r.aborted();
        return new Point(mode, share, r.txnPerSec(), r.committed(), r.aborted(),
            attempts == 0 ? 0 : r.aborted() / (double) attempts,
            newOrders.percentileMicros(50) / 1000.0, newOrders.percentileMicros(99) / 1000.0, m.roundTripsPerTxn(),
            m.messagesPerTxn(), m.invalidations(), m.twoPc() == null ? 0 : m.twoPc().distributedCommits(),
            m.forcesPerDistributedCommit(), command.lastWalForces());
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
        say.printf(Locale.ROOT, "%n%-11s %5s %12s %8s %10s %10s %9s %9s %13s %12s %11s%n", "mode", "dist%", "txn/s",
            "abort%", "NO p50 ms", "NO p99 ms", "RT/txn", "msg/txn", "invalidations", "dist.commits", "forces/dc");
        for (Point p : results) {
            say.printf(Locale.ROOT, "%-11s %5d %12.1f %8.2f %10.2f %10.2f %9.2f %9.2f %13d %12d %11.2f%n", p.mode(),
                p.share(), p.txnPerSec(), 100 * p.abortRate(), p.newOrderP50Millis(), p.newOrderP99Millis(),
                p.roundTripsPerTxn(), p.messagesPerTxn(), p.invalidations(), p.distributedCommits(),
                p.forcesPerDistributedCommit());
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
        json.field("load", "fresh per run, same seed");
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
                .field("walForcesWholeRun", p.walForces())
                .endObject();
        }
        json.endArray().endObject();
        JsonFile.write(out.resolve("compare.json"), json.toString());
    }

    private void writeCsv(List<Point> results) throws IOException {
        StringBuilder csv = new StringBuilder("mode,distribution,txnPerSec,committed,aborted,abortRate,newOrderP50Millis,"
            + "newOrderP99Millis,roundTripsPerTxnAllNodes,messagesPerTxnAllNodes,invalidationsBetweenNodes,distributedCommits,"
            + "twoPcForcesPerDistributedCommit,walForcesWholeRun\n");
        for (Point p : results) {
            csv.append(String.format(Locale.ROOT, "%s,%d,%.1f,%d,%d,%.5f,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3f,%d%n", p.mode(),
                p.share(), p.txnPerSec(), p.committed(), p.aborted(), p.abortRate(), p.newOrderP50Millis(),
                p.newOrderP99Millis(), p.roundTripsPerTxn(), p.messagesPerTxn(), p.invalidations(), p.distributedCommits(),
                p.forcesPerDistributedCommit(), p.walForces()));
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
        try {
            // The encoder adds the ".svg" extension itself.
            VectorGraphicsEncoder.saveVectorGraphic(chart, out.resolve("compare").toString(),
                VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
        } catch (IOException | RuntimeException | Error e) {
            throw new CliFailure("cannot write the plot " + out.resolve("compare.svg") + ": " + e, e);
        }
    }
}
