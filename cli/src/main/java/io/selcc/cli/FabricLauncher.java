package io.selcc.cli;

import io.selcc.fabric.Fabric;
import io.selcc.fabric.tcp.ClusterMap;
import io.selcc.fabric.tcp.TcpFabric;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * {@code --fabric tcp}: starts one {@code selcc memory-node} process per memory node on localhost (the
 * same JVM and class path as this one), waits for each one's ready line, and connects a
 * {@link TcpFabric} hosting every compute node of this process. Closing the fabric stops the processes;
 * they also stop when this process ends.
 */
public final class FabricLauncher {
    /** A memory node must say where it listens within this time. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Connects and every answer over the fabric. */
    static final Duration FABRIC_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern READY = Pattern.compile("memory node listening on (.+):(\\d+) with \\d+ bytes");

    /** Processes started so far by this JVM (tests check that a run really started its nodes as processes). */
    private static final java.util.concurrent.atomic.AtomicInteger STARTED = new java.util.concurrent.atomic.AtomicInteger();

    /** The JVM options Chronicle Queue needs on JDK 25 (as bin/selcc and the test JVMs pass them). */
    private static final List<String> CHRONICLE_FLAGS = List.of("--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED", "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "-Dchronicle.analytics.disable=true", "-Dchronicle.disk.monitor.disable=true");

    private FabricLauncher() {
    }

    static int processesStarted() {
        return STARTED.get();
    }

    static Fabric launch(ClusterSettings cluster, long bytesPerMemoryNode) {
        Children children = new Children();
        try {
            List<InetSocketAddress> memory = children.startMemoryNodes(cluster.memoryNodes(), bytesPerMemoryNode);
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            List<InetSocketAddress> compute = IntStream.range(0, cluster.computeNodes()).mapToObj(i -> any).toList();
            Set<Integer> all = Set.copyOf(IntStream.range(0, cluster.computeNodes()).boxed().toList());
            TcpFabric tcp = TcpFabric.connect(new ClusterMap(memory, compute), all, FABRIC_TIMEOUT);
            tcp.whenClosed(children::stopAll); // the cluster closes the fabric: the memory nodes go with it
            return tcp;
        } catch (RuntimeException | Error e) {
            children.stopAll();
            throw e;
        }
    }

    /**
     * {@code --fabric tcp} with every compute node a process of its own (micro): starts the memory nodes,
     * writes a cluster file (free ports on localhost for the compute nodes), and starts compute nodes
     * 1..N-1 running {@code args} with {@code --cluster FILE --node i} in place of {@code --fabric tcp}
     * (and without {@code --json} or {@code --csv}: node 0 reports). The caller runs as node 0 with the returned map, then
     * closes the returned processes.
     */
    public static Processes launchCluster(ClusterSettings cluster, long bytesPerMemoryNode, List<String> args,
                                          List<String> subcommand) {
        Children children = new Children();
        try {
            List<InetSocketAddress> memory = children.startMemoryNodes(cluster.memoryNodes(), bytesPerMemoryNode);
            List<InetSocketAddress> compute = new ArrayList<>();
            for (int i = 0; i < cluster.computeNodes(); i++) {
                compute.add(new InetSocketAddress("127.0.0.1", freePort()));
            }
            ClusterMap map = new ClusterMap(memory, compute);
            Path dir = java.nio.file.Files.createTempDirectory("selcc-cluster-");
            Path file = dir.resolve("cluster.properties");
            StringBuilder text = new StringBuilder("# written by selcc --fabric tcp\n");
            for (int j = 0; j < memory.size(); j++) {
                text.append("memory.").append(j).append('=').append(memory.get(j).getHostString()).append(':')
                    .append(memory.get(j).getPort()).append('\n');
            }
            for (int i = 0; i < compute.size(); i++) {
                text.append("compute.").append(i).append("=127.0.0.1:").append(compute.get(i).getPort()).append('\n');
            }
            java.nio.file.Files.writeString(file, text);
            List<String> childArgs = withoutFlags(args, Set.of("--fabric", "--json", "--csv"));
            List<Process> computeProcesses = new ArrayList<>();
            for (int i = 1; i < cluster.computeNodes(); i++) {
                List<String> command = new ArrayList<>(List.of("-Xmx1g"));
                command.addAll(subcommand);
                command.addAll(childArgs);
                command.addAll(List.of("--cluster", file.toString(), "--node", String.valueOf(i)));
                computeProcesses.add(children.start(command, ProcessBuilder.Redirect.to(dir.resolve("compute-" + i + ".out").toFile()),
                    "compute node " + i));
            }
            return new Processes(map, computeProcesses, children, dir);
        } catch (IOException e) {
            children.stopAll();
            throw new CliFailure("cannot start the cluster's processes: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            children.stopAll();
            throw e;
        }
    }

    /**
     * The processes {@link #launchCluster} started. Closing waits (one deadline for all) for the compute
     * nodes, which end on node 0's STOP, then stops everything left, memory nodes included.
     */
    public record Processes(ClusterMap map, List<Process> computeNodes, Children children, Path dir) implements AutoCloseable {
        @Override
        public void close() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (Process p : computeNodes) {
                try {
                    p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            children.stopAll();
            for (int i = 0; i < computeNodes.size(); i++) {
                Process p = computeNodes.get(i);
                if (!p.isAlive() && p.exitValue() != 0) {
                    // Its output goes before the directory: a compute node's own reason is the one worth reading.
                    System.err.println("compute node " + (i + 1) + "'s process ended with exit code " + p.exitValue()
                        + "; the end of its output:");
                    System.err.println(tail(dir.resolve("compute-" + (i + 1) + ".out"), 20));
                }
            }
            try (var files = java.nio.file.Files.list(dir)) {
                for (Path f : files.toList()) {
                    java.nio.file.Files.deleteIfExists(f);
                }
                java.nio.file.Files.deleteIfExists(dir);
            } catch (IOException e) {
                // a temporary directory left behind is not worth failing the run for
            }
        }
    }

    /** The last {@code lines} lines of {@code file}, indented, or why they cannot be read. */
    private static String tail(Path file, int lines) {
        try {
            List<String> all = java.nio.file.Files.readAllLines(file, StandardCharsets.UTF_8);
            List<String> last = all.subList(Math.max(0, all.size() - lines), all.size());
            return last.isEmpty() ? "  (nothing)" : "  " + String.join("\n  ", last);
        } catch (IOException e) {
            return "  (cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    /**
     * The selcc processes one launch started: stopped by {@link #stopAll}, or by a shutdown hook if this
     * JVM ends first.
     */
    public static final class Children {
        private final List<Process> processes = new ArrayList<>();
        private final Thread stopper = new Thread(this::stopEach, "selcc-processes-stop");

        Children() {
            Runtime.getRuntime().addShutdownHook(stopper);
        }

        /** Starts one {@code selcc memory-node} per memory node and waits for each one's ready line. */
        List<InetSocketAddress> startMemoryNodes(int count, long bytes) {
            List<InetSocketAddress> addresses = new ArrayList<>();
            for (int j = 0; j < count; j++) {
                Process p = start(List.of("-Xmx256m", "-XX:+UseSerialGC", "memory-node", "--listen", "127.0.0.1:0",
                    "--size", bytes + "B", "--exit-with-parent", String.valueOf(ProcessHandle.current().pid())),
                    ProcessBuilder.Redirect.PIPE, "memory node " + j);
                addresses.add(awaitReady(j, p));
            }
            return addresses;
        }

        /**
         * Starts {@code java [JVM options] SelccCli [arguments]} with this JVM's class path; {@code command} holds
         * the JVM options (those starting with '-' before the first argument) and then the arguments.
         */
        Process start(List<String> command, ProcessBuilder.Redirect out, String what) {
            List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"));
            line.addAll(CHRONICLE_FLAGS); // a compute node's commit log: without them Chronicle cannot map its files
            int firstArgument = 0;
            while (firstArgument < command.size() && command.get(firstArgument).startsWith("-")) {
                firstArgument++;
            }
            line.addAll(command.subList(0, firstArgument));
            line.add(SelccCli.class.getName());
            line.addAll(command.subList(firstArgument, command.size()));
            ProcessBuilder builder = new ProcessBuilder(line).redirectError(ProcessBuilder.Redirect.INHERIT).redirectOutput(out);
            // The class path through the environment: a long -cp would push the arguments past what ps shows.
            builder.environment().put("CLASSPATH", System.getProperty("java.class.path"));
            try {
                Process p = builder.start();
                STARTED.incrementAndGet();
                synchronized (processes) {
                    processes.add(p);
                }
                return p;
            } catch (IOException e) {
                throw new CliFailure("cannot start " + what + "'s process: " + e.getMessage(), e);
            }
        }

        /** Stops every process and forgets the shutdown hook. */
        void stopAll() {
            stopEach();
            try {
                Runtime.getRuntime().removeShutdownHook(stopper);
            } catch (IllegalStateException e) {
                // shutting down: the hook stops them too
            }
        }

        private void stopEach() {
            List<Process> all;
            synchronized (processes) {
                all = List.copyOf(processes);
            }
            stop(all);
        }
    }

    /** {@code args} without {@code flags} and their values ({@code --flag value} or {@code --flag=value}). */
    static List<String> withoutFlags(List<String> args, Set<String> flags) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            int eq = a.indexOf('=');
            String name = eq > 0 ? a.substring(0, eq) : a;
            if (flags.contains(name)) {
                if (eq < 0) {
                    i++; // its value
                }
                continue;
            }
            kept.add(a);
        }
        return kept;
    }

    private static int freePort() {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new CliFailure("no free port on localhost: " + e.getMessage(), e);
        }
    }

    /** Reads the child's ready line; its address, or a failure naming what it printed or its exit code. */
    private static InetSocketAddress awaitReady(int memoryNode, Process p) {
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            try {
                return lines.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        String line;
        try {
            line = first.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new CliFailure("memory node " + memoryNode + "'s process did not say it listens within "
                + START_TIMEOUT.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure("interrupted while memory node " + memoryNode + "'s process started", e);
        } catch (ExecutionException e) {
            throw new CliFailure("memory node " + memoryNode + "'s process: " + e.getCause(), e.getCause());
        }
        Matcher m = line == null ? null : READY.matcher(line);
        if (m == null || !m.matches()) {
            boolean ended;
            try {
                ended = p.waitFor(2, TimeUnit.SECONDS); // it usually just died: say how
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended = false;
            }
            String status = ended ? "exit code " + p.exitValue() : "still running";
            throw new CliFailure("memory node " + memoryNode + "'s process did not start (" + status + "): "
                + (line == null ? "it printed nothing" : "it printed '" + line + "'"));
        }
        Thread.ofPlatform().daemon().name("memory-node-" + memoryNode + "-out").start(() -> drain(lines));
        return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
    }

    private static void drain(BufferedReader lines) {
        try {
            while (lines.readLine() != null) {
                // nothing more is expected; keep the pipe from filling
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    private static void stop(List<Process> processes) {
        for (Process p : processes) {
            p.destroy(); // SIGTERM: its shutdown hook closes the server
        }
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
